package compose

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// minifolioModules reads the module names from minifolio's catalog, the table
// the gateway routes by, so a module added there must get its container.
func minifolioModules(t *testing.T, root string) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "minifolio", "internal", "catalog", "catalog.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	// docker-compose.yml runs minifolio on the Okapi platform: the modules only Eureka deploys
	// (catalog entries with Platform: Eureka) have no container there.
	for _, m := range regexp.MustCompile(`\{Name:\s*"([^"]+)"[^\n]*`).FindAllStringSubmatch(string(src), -1) {
		if !strings.Contains(m[0], "Platform: Eureka") {
			names = append(names, m[1])
		}
	}
	if len(names) == 0 {
		t.Fatal("no modules found in minifolio/internal/catalog/catalog.go")
	}
	return names
}

// defaultsValue is a setting of defaults.env, the one file of defaults (ports, tenants, operator).
func defaultsValue(t *testing.T, root, key string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "defaults.env"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + key + `=(.*)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("defaults.env has no %s", key)
	}
	return string(m[1])
}

func TestDockerCompose(t *testing.T) {
	root := repoRoot(t)
	file := filepath.Join(root, "docker-compose.yml")
	p, err := Load(context.Background(), file, AllProfiles...)
	if err != nil {
		t.Fatalf("docker-compose.yml does not load: %v", err)
	}
	checks := map[string][]string{
		"bind mounts exist":            BindMountsExist(p),
		"images pinned":                ImagesPinned(p),
		"dependencies healthy":         DependenciesHealthy(p),
		"k6 writes to influxdb":        K6WritesToInfluxDB(p),
		"grafana provisioned":          GrafanaProvisioned(p, filepath.Join(root, "dashboards", "generated")),
		"one container per module":     ModulesPerContainer(p, minifolioModules(t, root)),
		"ports on 127.0.0.1":           LocalPortsOnly(p),
		"secrets from the environment": SecretsFromEnv(file),
		"opensearch for mod-search":    OpenSearchForSearch(p),
		"grafana for the native stack": NativeGrafana(p, filepath.Join(root, "dashboards", "generated"), defaultsValue(t, root, "FP_INFLUX_PORT"), "folio-influxdb"),
	}
	for name, findings := range checks {
		t.Run(name, func(t *testing.T) {
			for _, f := range findings {
				t.Error(f)
			}
		})
	}
	for _, want := range []string{"influxdb", "grafana", "grafana-native", "telegraf", "postgres", "opensearch", "okapi", "mod-search", "minifolio-seed", "k6"} {
		if _, ok := p.Services[want]; !ok {
			t.Errorf("service %s missing", want)
		}
	}
	if img := p.Services["influxdb"].Image; !strings.HasPrefix(img, "influxdb:1.8") {
		t.Errorf("influxdb image %s: k6's built-in output needs InfluxDB 1.x (1.8)", img)
	}
}

// The checks must catch what they claim to catch: a compose file with each
// fault once.
func TestChecksFlagBrokenCompose(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "prov", "datasources"), 0o755); err != nil {
		t.Fatal(err)
	}
	broken := `
services:
  influxdb:
    image: influxdb
    environment: { INFLUXDB_DB: k6 }
  prep:
    image: folio-perf/prep:1
    build:
      context: .
      dockerfile_inline: |
        FROM node:latest
  grafana:
    image: grafana/grafana:latest
    ports: ["3000:3000"]
    environment: { GF_SECURITY_ADMIN_PASSWORD: hunter2 }
    volumes: ["./missing:/etc/grafana/provisioning:ro"]
    depends_on:
      influxdb: { condition: service_healthy }
  opensearch:
    image: opensearchproject/opensearch:latest
    environment: { discovery.type: zen }
    ports: ["9200:9200"]
  mod-search:
    image: folio-perf/minifolio:1
    environment: { FP_OPENSEARCH_URL: "http://localhost:9200", MINIFOLIO_DB: "postgres://folio:${FOLIO_DB_PASSWORD}@postgres:5432/folio" }
  grafana-native:
    image: grafana/grafana:12.1.1
    profiles: [native-grafana]
    environment: { GF_SERVER_HTTP_ADDR: 0.0.0.0 }
    volumes: ["./prov/datasources:/etc/grafana/provisioning/datasources:ro", "./prov/dashboards:/etc/grafana/provisioning/dashboards:ro"]
    depends_on:
      influxdb: { condition: service_healthy }
  k6:
    image: folio-perf/k6:1
    profiles: [k6]
    environment: { K6_OUT: "influxdb=http://localhost:8086/metrics", FOLIO_ENV: local }
    depends_on: [grafana]
`
	file := filepath.Join(dir, "docker-compose.yml")
	if err := os.WriteFile(file, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(context.Background(), file, AllProfiles...)
	if err != nil {
		t.Fatal(err)
	}
	expect := func(name string, findings []string, wants ...string) {
		t.Helper()
		all := strings.Join(findings, "\n")
		for _, w := range wants {
			if !strings.Contains(all, w) {
				t.Errorf("%s: want a finding containing %q, got:\n%s", name, w, all)
			}
		}
	}
	expect("binds", BindMountsExist(p), "missing does not exist")
	expect("images", ImagesPinned(p), "influxdb has no tag", "uses latest", "prep: image node:latest uses latest")
	expect("deps", DependenciesHealthy(p), "influxdb has no healthcheck", `condition "service_started"`)
	expect("k6", K6WritesToInfluxDB(p), `"localhost" is not an InfluxDB`, "FOLIO_ENV is not docker", "K6_AUTO_EXTENSION_RESOLUTION")
	expect("grafana", GrafanaProvisioned(p, dir), "lacks datasources")
	expect("modules", ModulesPerContainer(p, []string{"mod-users"}), "no service for module okapi", "no service for module mod-users")
	expect("ports", LocalPortsOnly(p), "not 127.0.0.1")
	expect("native grafana", NativeGrafana(p, dir, "58086", "folio-influxdb"), `network_mode "", not host`,
		`GF_SERVER_HTTP_ADDR "0.0.0.0"`, "depends on compose services", "has no *.yaml")
	expect("secrets", SecretsFromEnv(file), "GF_SECURITY_ADMIN_PASSWORD is not taken from the environment",
		"mod-search: MINIFOLIO_DB puts ${FOLIO_DB_PASSWORD} into a URL")
	expect("opensearch", OpenSearchForSearch(p), "is not opensearchproject/opensearch:2.x.y", "DISABLE_SECURITY_PLUGIN is not true",
		"discovery.type is not single-node", "is not 127.0.0.1", "opensearch: no healthcheck",
		"mod-search does not wait for opensearch", `FP_OPENSEARCH_URL "http://localhost:9200"`)
}

// published is the host port a service publishes for its container port, "" when none.
func published(p *types.Project, service string, target uint32) string {
	for _, port := range p.Services[service].Ports {
		if port.Target == target {
			return port.Published
		}
	}
	return ""
}

// The ports compose publishes, the tenant it seeds and the operator come from defaults.env (read
// through .env, as docker compose does), and follow it: the same file with another gateway port
// moves the published gateway.
func TestDefaultsFromTheOneFile(t *testing.T) {
	root := repoRoot(t)
	defaults, err := os.ReadFile(filepath.Join(root, "defaults.env"))
	if err != nil {
		t.Fatal(err)
	}
	load := func(dir string) *types.Project {
		p, err := Load(context.Background(), filepath.Join(dir, "docker-compose.yml"), AllProfiles...)
		if err != nil {
			t.Fatalf("docker-compose.yml does not load: %v", err)
		}
		return p
	}
	p := load(root)
	for _, c := range []struct {
		service string
		target  uint32
		key     string
	}{{"okapi", 9130, "FP_MINIFOLIO_PORT"}, {"postgres", 5432, "FP_PG_PORT"}, {"opensearch", 9200, "FP_OPENSEARCH_PORT"}, {"grafana", 3000, "FP_GRAFANA_PORT"}} {
		if got, want := published(p, c.service, c.target), defaultsValue(t, root, c.key); got != want {
			t.Errorf("%s publishes %d on %q, defaults.env's %s is %s", c.service, c.target, got, c.key, want)
		}
	}
	if seed := strings.Join(p.Services["minifolio-seed"].Command, " "); seed != "seed --force-remote --tenant "+defaultsValue(t, root, "FP_TENANT")+" --admin-user "+defaultsValue(t, root, "FP_USER")+" --scale "+nativeSeedScale(t, root) {
		t.Errorf("minifolio-seed runs %q, not defaults.env's tenant and operator at folio-perf run's default scale", seed)
	}

	// Another gateway port in the one file: compose publishes it.
	dir := t.TempDir()
	compose, err := os.ReadFile(filepath.Join(root, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	moved := regexp.MustCompile(`(?m)^FP_MINIFOLIO_PORT=.*$`).ReplaceAll(defaults, []byte("FP_MINIFOLIO_PORT=19130"))
	for name, b := range map[string][]byte{"docker-compose.yml": compose, "defaults.env": moved} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("defaults.env", filepath.Join(dir, ".env")); err != nil {
		t.Fatal(err)
	}
	if got := published(load(dir), "okapi", 9130); got != "19130" {
		t.Errorf("with FP_MINIFOLIO_PORT=19130 in defaults.env the gateway is published on %q", got)
	}
}

// nativeSeedScale is folio-perf run's default SEED_SCALE (tools/run/settings.mjs), the size a native
// run seeds minifolio's tenants at.
func nativeSeedScale(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "tools", "run", "settings.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\['SEED_SCALE', '(\w+)'`).FindSubmatch(b)
	if m == nil {
		t.Fatal("tools/run/settings.mjs has no SEED_SCALE default")
	}
	return string(m[1])
}
