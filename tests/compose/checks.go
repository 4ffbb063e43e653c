// Package compose validates folio-perf's docker-compose.yml with the compose
// specification's own loader (github.com/compose-spec/compose-go/v2), since
// no Docker engine is available to try it: what the loader accepts, Docker
// Compose accepts, and the checks below hold the file to the project's rules.
// Each check returns every finding, so one run names every offender.
package compose

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"go.yaml.in/yaml/v4"
)

// AllProfiles is compose's `--profile '*'`: every service of the file.
var AllProfiles = []string{"*"}

// Load reads a compose file as `docker compose --profile <p>... config` would
// (no profile: what `docker compose up` starts), with an environment that has
// none of the user's variables set, so the file's own defaults are what gets
// checked.
func Load(ctx context.Context, file string, profiles ...string) (*types.Project, error) {
	opts, err := cli.NewProjectOptions([]string{file},
		cli.WithWorkingDirectory(filepath.Dir(file)),
		cli.WithName("folio-perf"),
		cli.WithProfiles(profiles),
		cli.WithInterpolation(true),
		cli.WithResolvedPaths(true),
		cli.WithEnv([]string{}),
		// As docker compose does: .env of the project directory (a link to defaults.env)
		// gives the variables the file interpolates.
		cli.WithEnvFiles(),
		cli.WithDotEnv,
	)
	if err != nil {
		return nil, err
	}
	return opts.LoadProject(ctx)
}

// hostProvided are bind sources the host supplies at run time (not files of
// the repository): the Docker socket exists only where a Docker engine runs.
var hostProvided = map[string]bool{"/var/run/docker.sock": true}

// BindMountsExist: every bind-mounted host path exists.
func BindMountsExist(p *types.Project) []string {
	var f []string
	for _, name := range sortedNames(p) {
		for _, v := range p.Services[name].Volumes {
			if v.Type != types.VolumeTypeBind || hostProvided[v.Source] {
				continue
			}
			if _, err := os.Stat(v.Source); err != nil {
				f = append(f, fmt.Sprintf("%s: bind source %s does not exist", name, v.Source))
			}
		}
	}
	return f
}

var tagRe = regexp.MustCompile(`^[^:@/]+(?:/[^:@]+)*:([\w][\w.-]{0,127})(?:@sha256:[0-9a-f]{64})?$|@sha256:[0-9a-f]{64}$`)

// ImagesPinned: every service names its image with an explicit tag (or a
// digest), never `latest`: InfluxDB's `latest` turned into 2.x once and broke
// every k6 setup that relied on it.
func ImagesPinned(p *types.Project) []string {
	var f []string
	for _, name := range sortedNames(p) {
		img := p.Services[name].Image
		if img == "" {
			f = append(f, fmt.Sprintf("%s: no image name (a built image needs name:tag too)", name))
			continue
		}
		bases := []string{img}
		// an image built from an inline Dockerfile: its base images too
		if b := p.Services[name].Build; b != nil {
			for _, from := range fromRe.FindAllStringSubmatch(b.DockerfileInline, -1) {
				bases = append(bases, from[1])
			}
		}
		for _, img := range bases {
			m := tagRe.FindStringSubmatch(img)
			switch {
			case m == nil:
				f = append(f, fmt.Sprintf("%s: image %s has no tag", name, img))
			case m[1] == "latest":
				f = append(f, fmt.Sprintf("%s: image %s uses latest", name, img))
			}
		}
	}
	return f
}

var fromRe = regexp.MustCompile(`(?m)^\s*FROM\s+(\S+)`)

// DependenciesHealthy: every depends_on states its condition; a service that
// others wait for as healthy has a healthcheck; one waited for to complete
// is a one-shot (never restarted). An optional dependency (required: false)
// may be missing: compose skips it when its profile is off.
func DependenciesHealthy(p *types.Project) []string {
	var f []string
	for _, name := range sortedNames(p) {
		for dep, d := range p.Services[name].DependsOn {
			target, ok := p.Services[dep]
			if !ok && !d.Required {
				continue
			}
			if !ok {
				f = append(f, fmt.Sprintf("%s depends on unknown service %s", name, dep))
				continue
			}
			switch d.Condition {
			case types.ServiceConditionHealthy:
				if target.HealthCheck == nil || target.HealthCheck.Disable || len(target.HealthCheck.Test) == 0 {
					f = append(f, fmt.Sprintf("%s waits for %s to be healthy, but %s has no healthcheck", name, dep, dep))
				}
			case types.ServiceConditionCompletedSuccessfully:
				if target.Restart != "" && target.Restart != "no" {
					f = append(f, fmt.Sprintf("%s waits for %s to complete, but %s restarts (%s)", name, dep, dep, target.Restart))
				}
			default:
				f = append(f, fmt.Sprintf("%s depends on %s with condition %q: wait for healthy or completed", name, dep, d.Condition))
			}
		}
	}
	return f
}

// K6WritesToInfluxDB: the k6 service's K6_OUT is InfluxDB's v1 output aimed
// at the influxdb service's port and database; the run environment is the
// docker one and k6 never tries to download extensions.
func K6WritesToInfluxDB(p *types.Project) []string {
	k6, ok := p.Services["k6"]
	if !ok {
		return []string{"no k6 service"}
	}
	var f []string
	if !slices.Contains(k6.Profiles, "k6") {
		f = append(f, "k6 is not under profile k6")
	}
	env := func(s types.ServiceConfig, k string) string {
		if v := s.Environment[k]; v != nil {
			return *v
		}
		return ""
	}
	out := env(k6, "K6_OUT")
	kind, addr, _ := strings.Cut(out, "=")
	u, err := url.Parse(addr)
	// influxdb-lp is the project's k6 build's output (k6/influxout): the same
	// points as k6's influxdb output, for a fraction of its CPU.
	if (kind != "influxdb" && kind != "influxdb-lp") || err != nil {
		return append(f, fmt.Sprintf("K6_OUT %q is not influxdb-lp=<url> or influxdb=<url>", out))
	}
	influx, ok := p.Services[u.Hostname()]
	if !ok || !strings.HasPrefix(influx.Image, "influxdb:1.") {
		f = append(f, fmt.Sprintf("K6_OUT host %q is not an InfluxDB 1.x service", u.Hostname()))
	} else {
		if u.Port() != "8086" {
			f = append(f, fmt.Sprintf("K6_OUT port %q is not InfluxDB's 8086", u.Port()))
		}
		if db := strings.TrimPrefix(u.Path, "/"); db != env(influx, "INFLUXDB_DB") {
			f = append(f, fmt.Sprintf("K6_OUT database %q is not the one %s creates (%q)", db, u.Hostname(), env(influx, "INFLUXDB_DB")))
		}
	}
	if _, waits := k6.DependsOn[u.Hostname()]; !waits {
		f = append(f, "k6 does not wait for "+u.Hostname())
	}
	if env(k6, "FOLIO_ENV") != "docker" {
		f = append(f, "k6: FOLIO_ENV is not docker")
	}
	if env(k6, "K6_AUTO_EXTENSION_RESOLUTION") != "false" {
		f = append(f, "k6: K6_AUTO_EXTENSION_RESOLUTION is not false (k6 would try to download k6/x/sql)")
	}
	return f
}

type provider struct {
	Providers []struct {
		Type    string `yaml:"type"`
		Options struct {
			Path string `yaml:"path"`
		} `yaml:"options"`
	} `yaml:"providers"`
}

type datasources struct {
	Datasources []struct {
		UID      string         `yaml:"uid"`
		Type     string         `yaml:"type"`
		URL      string         `yaml:"url"`
		JSONData map[string]any `yaml:"jsonData"`
	} `yaml:"datasources"`
}

// GrafanaProvisioned: Grafana gets the provisioning directory, whose
// datasource points at the influxdb service's database and whose dashboard
// provider reads a directory where every generated dashboard is mounted.
func GrafanaProvisioned(p *types.Project, dashboardsDir string) []string {
	g, ok := p.Services["grafana"]
	if !ok {
		return []string{"no grafana service"}
	}
	mounts := map[string]string{} // target → source
	for _, v := range g.Volumes {
		mounts[v.Target] = v.Source
	}
	prov, ok := mounts["/etc/grafana/provisioning"]
	if !ok {
		return []string{"grafana: /etc/grafana/provisioning is not mounted"}
	}
	var f []string
	dsFiles, _ := filepath.Glob(filepath.Join(prov, "datasources", "*.yaml"))
	provFiles, _ := filepath.Glob(filepath.Join(prov, "dashboards", "*.yaml"))
	if len(dsFiles) == 0 || len(provFiles) == 0 {
		return append(f, fmt.Sprintf("grafana: %s lacks datasources/*.yaml or dashboards/*.yaml", prov))
	}
	for _, file := range dsFiles {
		var d datasources
		if err := readYAML(file, &d); err != nil {
			f = append(f, err.Error())
			continue
		}
		for _, ds := range d.Datasources {
			u, err := url.Parse(ds.URL)
			influx, ok := p.Services[u.Hostname()]
			switch {
			case err != nil || !ok:
				f = append(f, fmt.Sprintf("datasource %s: url %s is not a compose service", ds.UID, ds.URL))
			case ds.Type != "influxdb" || ds.UID == "":
				f = append(f, fmt.Sprintf("datasource %q: want type influxdb and a stable uid", ds.UID))
			case fmt.Sprint(ds.JSONData["dbName"]) != derefOr(influx.Environment["INFLUXDB_DB"], ""):
				f = append(f, fmt.Sprintf("datasource %s: jsonData.dbName %v is not the database %s creates", ds.UID, ds.JSONData["dbName"], u.Hostname()))
			}
		}
	}
	return append(f, dashboardsMounted("grafana", mounts, provFiles, dashboardsDir)...)
}

// dashboardsMounted: every generated dashboard is mounted where a dashboard
// provider of provFiles reads, as a file or with the directory of them all.
func dashboardsMounted(service string, mounts map[string]string, provFiles []string, dashboardsDir string) []string {
	var f []string
	generated, _ := filepath.Glob(filepath.Join(dashboardsDir, "*.json"))
	for _, file := range provFiles {
		var pr provider
		if err := readYAML(file, &pr); err != nil {
			f = append(f, err.Error())
			continue
		}
		for _, one := range pr.Providers {
			for _, dash := range generated {
				base := filepath.Base(dash)
				dir, dirOK := mounts[one.Options.Path]
				file, fileOK := mounts[one.Options.Path+"/"+base]
				if !(dirOK && dir == filepath.Dir(dash)) && !(fileOK && file == dash) {
					f = append(f, fmt.Sprintf("%s: %s is not mounted at %s/%s", service, dash, one.Options.Path, base))
				}
			}
		}
	}
	return f
}

// NativeGrafana: the profile native-grafana's grafana-native reads the native
// stack's InfluxDB (127.0.0.1:<nativePort>, database k6, where `make run`
// writes) through the host's network, with the datasource uid the dashboards
// default to (uid, that of the compose datasource), listens on 127.0.0.1 only,
// waits for no compose service, and has every generated dashboard.
func NativeGrafana(p *types.Project, dashboardsDir, nativePort, uid string) []string {
	g, ok := p.Services["grafana-native"]
	if !ok {
		return []string{"no grafana-native service"}
	}
	var f []string
	if !slices.Contains(g.Profiles, "native-grafana") {
		f = append(f, "grafana-native is not under profile native-grafana")
	}
	if g.NetworkMode != "host" {
		f = append(f, fmt.Sprintf("grafana-native: network_mode %q, not host (the native stack listens on the host's 127.0.0.1)", g.NetworkMode))
	}
	env := func(k string) string { return derefOr(g.Environment[k], "") }
	if env("GF_SERVER_HTTP_ADDR") != "127.0.0.1" {
		f = append(f, fmt.Sprintf("grafana-native: GF_SERVER_HTTP_ADDR %q, not 127.0.0.1 (host network: it would listen on every interface)", env("GF_SERVER_HTTP_ADDR")))
	}
	if len(g.DependsOn) > 0 {
		f = append(f, "grafana-native depends on compose services; it reads the native stack")
	}
	mounts := map[string]string{}
	for _, v := range g.Volumes {
		mounts[v.Target] = v.Source
	}
	dsDir, ok1 := mounts["/etc/grafana/provisioning/datasources"]
	provDir, ok2 := mounts["/etc/grafana/provisioning/dashboards"]
	if !ok1 || !ok2 {
		return append(f, "grafana-native: /etc/grafana/provisioning/datasources or /dashboards is not mounted")
	}
	dsFiles, _ := filepath.Glob(filepath.Join(dsDir, "*.yaml"))
	provFiles, _ := filepath.Glob(filepath.Join(provDir, "*.yaml"))
	if len(dsFiles) == 0 || len(provFiles) == 0 {
		return append(f, fmt.Sprintf("grafana-native: %s or %s has no *.yaml", dsDir, provDir))
	}
	want := "http://127.0.0.1:" + nativePort
	found := false
	for _, file := range dsFiles {
		var d datasources
		if err := readYAML(file, &d); err != nil {
			f = append(f, err.Error())
			continue
		}
		for _, ds := range d.Datasources {
			// Grafana substitutes $VAR and ${VAR} from the container's environment.
			u := os.Expand(ds.URL, env)
			if u != want || ds.Type != "influxdb" || fmt.Sprint(ds.JSONData["dbName"]) != "k6" {
				f = append(f, fmt.Sprintf("grafana-native datasource %s: %s (url %s) database %v, want influxdb at %s database k6", ds.UID, ds.Type, u, ds.JSONData["dbName"], want))
			}
			if ds.UID == uid {
				found = true
			}
		}
	}
	if !found {
		f = append(f, fmt.Sprintf("grafana-native: no datasource with uid %s, the dashboards' default", uid))
	}
	return append(f, dashboardsMounted("grafana-native", mounts, provFiles, dashboardsDir)...)
}

// ModulesPerContainer: every minifolio module runs in a service of its own,
// labelled with its module name (the label telegraf/docker.conf turns into
// the `module` tag of module_stats).
func ModulesPerContainer(p *types.Project, modules []string) []string {
	var f []string
	for _, m := range append([]string{"okapi"}, modules...) {
		s, ok := p.Services[m]
		if !ok {
			f = append(f, fmt.Sprintf("no service for module %s", m))
			continue
		}
		cmd := strings.Join(s.Command, " ")
		if !strings.HasPrefix(cmd, "serve --module "+m+" ") {
			f = append(f, fmt.Sprintf("%s: command %q does not serve module %s", m, cmd, m))
		}
		if s.Labels["io.folio-perf.module"] != m {
			f = append(f, fmt.Sprintf("%s: label io.folio-perf.module is %q", m, s.Labels["io.folio-perf.module"]))
		}
	}
	return f
}

// LocalPortsOnly: published ports listen on 127.0.0.1 (anonymous Grafana
// and default passwords are for the local machine only).
func LocalPortsOnly(p *types.Project) []string {
	var f []string
	for _, name := range sortedNames(p) {
		for _, port := range p.Services[name].Ports {
			if port.HostIP != "127.0.0.1" {
				f = append(f, fmt.Sprintf("%s: port %d published on %q, not 127.0.0.1", name, port.Target, port.HostIP))
			}
		}
	}
	return f
}

// SecretsFromEnv: in the file as written (before interpolation) every
// password value is a variable reference, never a literal; and no URL carries
// a password at all, not even one from a variable: compose cannot URL-encode
// it, so a password with @ # / ? % breaks the URL (PGPASSWORD carries it).
func SecretsFromEnv(file string) []string {
	var doc struct {
		Services map[string]struct {
			Environment map[string]string `yaml:"environment"`
		} `yaml:"services"`
	}
	if err := readYAML(file, &doc); err != nil {
		return []string{err.Error()}
	}
	credURL := regexp.MustCompile(`://[^:/@]+:([^@]*)@`)
	var f []string
	names := make([]string, 0, len(doc.Services))
	for n := range doc.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		for k, v := range doc.Services[name].Environment {
			if strings.Contains(strings.ToUpper(k), "PASSWORD") && !strings.HasPrefix(v, "${") {
				f = append(f, fmt.Sprintf("%s: %s is not taken from the environment", name, k))
			}
			if m := credURL.FindStringSubmatch(v); m != nil && !strings.HasPrefix(m[1], "${") {
				f = append(f, fmt.Sprintf("%s: %s carries a literal password in a URL", name, k))
			} else if m != nil {
				f = append(f, fmt.Sprintf("%s: %s puts %s into a URL, which one with @ # / ? %% breaks: use a URL without it and PGPASSWORD", name, k, m[1]))
			}
		}
	}
	return f
}

func readYAML(file string, into any) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(b, into); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

func derefOr(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

func sortedNames(p *types.Project) []string {
	names := make([]string, 0, len(p.Services))
	for n := range p.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// OpenSearchForSearch: mod-search's OpenSearch is the official image at a
// pinned 2.x version, a single node with the security plugin off (minifolio
// speaks plain HTTP without credentials), published on 127.0.0.1 only, with a
// healthcheck; the mod-search service waits for it and is pointed at it.
func OpenSearchForSearch(p *types.Project) []string {
	node, ok := p.Services["opensearch"]
	if !ok {
		return []string{"no opensearch service"}
	}
	var f []string
	if !regexp.MustCompile(`^opensearchproject/opensearch:2\.\d+\.\d+$`).MatchString(node.Image) {
		f = append(f, fmt.Sprintf("opensearch: image %s is not opensearchproject/opensearch:2.x.y", node.Image))
	}
	env := func(s types.ServiceConfig, k string) string { return derefOr(s.Environment[k], "") }
	if env(node, "DISABLE_SECURITY_PLUGIN") != "true" {
		f = append(f, "opensearch: DISABLE_SECURITY_PLUGIN is not true (minifolio talks plain HTTP)")
	}
	if env(node, "discovery.type") != "single-node" {
		f = append(f, "opensearch: discovery.type is not single-node")
	}
	if len(node.Ports) == 0 {
		f = append(f, "opensearch: no published port")
	}
	for _, port := range node.Ports {
		if port.HostIP != "127.0.0.1" || port.Target != 9200 {
			f = append(f, fmt.Sprintf("opensearch: port %s:%d is not 127.0.0.1:…:9200", port.HostIP, port.Target))
		}
	}
	if node.HealthCheck == nil || len(node.HealthCheck.Test) == 0 {
		f = append(f, "opensearch: no healthcheck")
	}
	ms, ok := p.Services["mod-search"]
	if !ok {
		return append(f, "no mod-search service")
	}
	if d, ok := ms.DependsOn["opensearch"]; !ok || d.Condition != types.ServiceConditionHealthy {
		f = append(f, "mod-search does not wait for opensearch to be healthy")
	}
	if u := env(ms, "FP_OPENSEARCH_URL"); u != "http://opensearch:9200" {
		f = append(f, fmt.Sprintf("mod-search: FP_OPENSEARCH_URL %q is not http://opensearch:9200", u))
	}
	return f
}

// Started is what `docker compose [--profile p]... run <service>` starts: the
// service (its own profile enabled, as compose does for a service named on the
// command line) and what it depends on, an optional dependency only when its
// profile is on.
func Started(ctx context.Context, file, service string, profiles ...string) ([]string, error) {
	p, err := Load(ctx, file, profiles...)
	if err != nil {
		return nil, err
	}
	if p, err = p.WithServicesEnabled(service); err != nil {
		return nil, err
	}
	if p, err = p.WithSelectedServices([]string{service}, types.IncludeDependencies); err != nil {
		return nil, err
	}
	return sortedNames(p.WithoutUnresolvedOptionalDependencies()), nil
}
