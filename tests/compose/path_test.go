package compose

// The docker compose path as docs/docker.md writes it: for each of its `docker compose` lines, what
// compose starts (the loader's own profile and dependency rules), and the commands of the services
// those lines run (the k6 entrypoint, the search preparation) run natively with the services'
// environment, since no Docker engine runs here.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/types"
)

// composeLine is one `docker compose [--profile p]... <verb> ...` line of the docs' block.
type composeLine struct {
	text     string
	profiles []string
	verb     string   // up | run
	args     []string // after `run --rm <service>`: the service's command
	service  string   // run's service
}

// docsBlock returns the lines of docs/docker.md's marked command block.
func docsBlock(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs", "docker.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- compose:commands[^>]*-->\n```sh\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/docker.md has no <!-- compose:commands --> block")
	}
	return strings.Split(strings.TrimSpace(string(m[1])), "\n")
}

func parseCompose(t *testing.T, line string) composeLine {
	t.Helper()
	f := strings.Fields(line)
	c := composeLine{text: line}
	i := 2
	for ; i+1 < len(f) && f[i] == "--profile"; i += 2 {
		c.profiles = append(c.profiles, f[i+1])
	}
	if i >= len(f) {
		t.Fatalf("%q: no compose command", line)
	}
	c.verb = f[i]
	switch c.verb {
	case "up":
		if !slices.Equal(f[i+1:], []string{"-d"}) {
			t.Fatalf("%q: want `up -d`", line)
		}
	case "run":
		if len(f) < i+3 || f[i+1] != "--rm" {
			t.Fatalf("%q: want `run --rm <service> ...`", line)
		}
		c.service, c.args = f[i+2], f[i+3:]
	default:
		t.Fatalf("%q: unexpected compose command %s", line, c.verb)
	}
	return c
}

// searchServices are the ones only the search workflow needs.
var searchServices = []string{"opensearch", "mod-search", "search-seed", "search-prep"}

func TestDocsCommandsStartWhatEachWorkflowNeeds(t *testing.T) {
	root := repoRoot(t)
	file := filepath.Join(root, "docker-compose.yml")
	ctx := context.Background()
	var ups, runs int
	for _, line := range docsBlock(t, root) {
		if !strings.HasPrefix(line, "docker compose ") {
			continue
		}
		c := parseCompose(t, line)
		var started []string
		if c.verb == "up" {
			ups++
			p, err := Load(ctx, file, c.profiles...)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			started = sortedNames(p)
		} else {
			runs++
			var err error
			if started, err = Started(ctx, file, c.service, c.profiles...); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
		}
		search := slices.Contains(c.profiles, "search")
		for _, s := range searchServices {
			if slices.Contains(started, s) != search {
				t.Errorf("%q starts %s: %v (only the profile search should)", line, s, slices.Contains(started, s))
			}
		}
		for _, s := range append([]string{"influxdb", "postgres", "okapi", "mod-circulation", "mod-users"}, map[bool][]string{true: {"mod-search"}}[search]...) {
			if !slices.Contains(started, s) {
				t.Errorf("%q does not start %s", line, s)
			}
		}
		if c.verb == "run" && search {
			p, err := Load(ctx, file, c.profiles...)
			if err != nil {
				t.Fatal(err)
			}
			p, _ = p.WithServicesEnabled(c.service)
			if d, ok := p.Services[c.service].DependsOn["search-prep"]; !ok || d.Condition != types.ServiceConditionCompletedSuccessfully {
				t.Errorf("%q: %s does not wait for search-prep to complete", line, c.service)
			}
		}
	}
	if ups < 2 || runs < 2 {
		t.Errorf("docs/docker.md's block has %d up and %d run lines; want both workflows' (2 and 2)", ups, runs)
	}
}

// closedPort is a port on 127.0.0.1 where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	return port
}

// native is a service's command made runnable on this machine: the repository's mount becomes a
// scratch copy of it (links to the repository's files; results/ and data/ its own), and every
// compose service's address (//name:port or @name:port) a closed port on 127.0.0.1.
type native struct {
	work    string            // the mount's stand-in
	mount   string            // the mount's target in the container (/work)
	hosts   map[string]string // compose service name or alias -> a closed port on 127.0.0.1
	pathDir string            // first on PATH: the image's programs
}

func newNative(t *testing.T, root string, p *types.Project, s types.ServiceConfig) *native {
	t.Helper()
	n := &native{work: t.TempDir(), hosts: map[string]string{}, pathDir: t.TempDir()}
	for _, v := range s.Volumes {
		if v.Type == types.VolumeTypeBind && v.Source == root {
			n.mount = v.Target
		}
	}
	if n.mount == "" || s.WorkingDir != n.mount {
		t.Fatalf("%s: the repository is not mounted as its working directory (%s)", s.Name, s.WorkingDir)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if name := e.Name(); name != "results" && name != "data" && name != "bin" {
			if err := os.Symlink(filepath.Join(root, name), filepath.Join(n.work, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// a service is reached by its name and by its aliases (okapi is also minifolio)
	for name, svc := range p.Services {
		names := []string{name}
		for _, net := range svc.Networks {
			if net != nil {
				names = append(names, net.Aliases...)
			}
		}
		for _, h := range names {
			n.hosts[h] = closedPort(t)
		}
	}
	return n
}

// local rewrites one argument or value: the mount's paths and the compose hosts.
func (n *native) local(v string) string {
	if strings.HasPrefix(v, n.mount+"/") {
		v = n.work + strings.TrimPrefix(v, n.mount)
	}
	for host, port := range n.hosts {
		// http://name:port/... -> http://127.0.0.1:<closed>/..., user@name:port/db -> user@127.0.0.1:<closed>/db
		v = regexp.MustCompile(`(//|@)`+regexp.QuoteMeta(host)+`:\d+`).ReplaceAllString(v, "${1}127.0.0.1:"+port)
	}
	return v
}

func (n *native) run(t *testing.T, s types.ServiceConfig, argv []string, extra ...string) (string, int) {
	t.Helper()
	env := []string{"PATH=" + n.pathDir + ":/usr/bin:/bin", "HOME=" + n.work}
	for k, v := range s.Environment {
		if v != nil {
			env = append(env, k+"="+n.local(*v))
		}
	}
	env = append(env, extra...)
	local := make([]string, len(argv))
	for i, a := range argv {
		local[i] = n.local(a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, local[0], local[1:]...)
	cmd.Dir, cmd.Env = n.work, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", local, err)
	}
	return out.String(), code
}

func TestK6ServiceFilesTheRunUnderResults(t *testing.T) {
	root := repoRoot(t)
	file := filepath.Join(root, "docker-compose.yml")
	k6bin := filepath.Join(root, "bin", "k6")
	if _, err := os.Stat(k6bin); err != nil {
		t.Fatalf("%s is missing (the project's k6, the image's k6): run make k6 first", k6bin)
	}
	p, err := Load(context.Background(), file, "k6")
	if err != nil {
		t.Fatal(err)
	}
	k6 := p.Services["k6"]
	if len(k6.Entrypoint) == 0 {
		t.Fatal("the k6 service has no entrypoint that files the run under results/")
	}
	n := newNative(t, root, p, k6)
	if err := os.Symlink(k6bin, filepath.Join(n.pathDir, "k6")); err != nil {
		t.Fatal(err)
	}
	var cico, report composeLine
	for _, line := range docsBlock(t, root) {
		if strings.HasPrefix(line, "docker compose run ") && cico.text == "" {
			cico = parseCompose(t, line)
		}
		if strings.HasPrefix(line, "npx folio-perf report ") && report.text == "" {
			report.text = line
		}
	}
	if cico.service != "k6" || report.text == "" {
		t.Fatalf("docs/docker.md's block lacks `docker compose run --rm k6 ...` (%q) or the report line", cico.text)
	}
	// The target is the compose one, env/docker.json's FOLIO (http://minifolio:9130), a name this
	// machine does not resolve: the run stops at setup, which still files a summary and k6's report.
	// The service's InfluxDB and database are closed ports here: InfluxDB's samples are given up
	// after seconds instead of a minute, and the database snapshots fail, costing only themselves.
	// k6's HTML report needs a few of its snapshots (K6_WEB_DASHBOARD_PERIOD apart): the InfluxDB
	// retries keep this run going long enough for three.
	folio := "http://minifolio:9130"
	out, code := n.run(t, k6, append(slices.Clone(k6.Entrypoint), cico.args...), "K6_INFLUXDB_RETRY_TIMEOUT=4s", "K6_WEB_DASHBOARD_PERIOD=1s")
	m := regexp.MustCompile(`(?m)^==> results: results/([\w.-]+)/summary\.json results/([\w.-]+)/k6-report\.html$`).FindStringSubmatch(out)
	if m == nil || m[1] != m[2] {
		t.Fatalf("no `==> results: results/<testid>/summary.json results/<testid>/k6-report.html` line (exit %d):\n%s", code, out)
	}
	testid := m[1]
	if code == 0 || !strings.Contains(out, "FOLIO is not reachable at "+folio) {
		t.Errorf("the run against a FOLIO that is not there exited %d without saying so:\n%s", code, out)
	}
	// Both snapshots of the compose database were tried (FP_STACK_DB), on the service's database.
	db := n.local(derefOr(k6.Environment["FP_STACK_DB"], ""))
	for _, when := range []string{"start", "end"} {
		if want := fmt.Sprintf("==> report: no pg_stat_statements snapshot (%s): %s", when, db); !strings.Contains(out, want) {
			t.Errorf("no line %q (FP_STACK_DB %q):\n%s", want, derefOr(k6.Environment["FP_STACK_DB"], ""), out)
		}
	}
	dir := filepath.Join(n.work, "results", testid)
	var doc struct {
		Meta struct{ Testid, SummaryPath, WebReport string } `json:"meta"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := "results/" + testid + "/"
	if doc.Meta.Testid != testid || doc.Meta.SummaryPath != want+"summary.json" || doc.Meta.WebReport != want+"k6-report.html" {
		t.Errorf("summary.json's meta: %+v, want testid %s and the paths under %s", doc.Meta, testid, want)
	}
	if html, err := os.ReadFile(filepath.Join(dir, "k6-report.html")); err != nil || !bytes.Contains(html, []byte("<html")) {
		t.Errorf("k6-report.html: %v, %d bytes", err, len(html))
	}
	left, _ := filepath.Glob(filepath.Join(n.work, "results", ".*"))
	if len(left) > 0 {
		t.Errorf("work directories left in results/: %v", left)
	}
	// The report command printed is the docs' line with the test id, aimed at the influxdb service
	// as the host reaches it.
	wantReport := strings.Replace(report.text, "<testid>", testid, 1)
	if !strings.Contains(out, "==> report (on the host): "+wantReport+"\n") {
		t.Errorf("the run does not print %q:\n%s", wantReport, out)
	}
	if host := derefOr(k6.Environment["FP_HOST_INFLUX_URL"], ""); host != "http://127.0.0.1:"+published(p, "influxdb", 8086) {
		t.Errorf("FP_HOST_INFLUX_URL %q is not where the influxdb service is published", host)
	}

	// A bad setting stops k6 before any summary: nothing is left behind, k6's exit code is kept. Aimed
	// at another FOLIO (FOLIO_URL), the run takes no snapshot of the compose database.
	out, code = n.run(t, k6, append(slices.Clone(k6.Entrypoint), cico.args...), "FOLIO_URL="+n.local("http://minifolio:9130"), "TESTID=not a test id")
	entries, _ := os.ReadDir(filepath.Join(n.work, "results"))
	if code == 0 || len(entries) != 1 || !strings.Contains(out, `is not a test id; fix:`) {
		t.Errorf("a bad TESTID: exit %d, results/ holds %d entries (want the first run's only):\n%s", code, len(entries), out)
	}
	if strings.Contains(out, "pg_stat_statements") {
		t.Errorf("a run aimed at FOLIO_URL snapshotted the compose database:\n%s", out)
	}
	// The machine reaches the run's record as folio-perf run gives it (lib/record.js MACHINE_ENV),
	// and a script without a summary of its own leaves no work directory.
	script := filepath.Join(n.work, "machine.js")
	if err := os.WriteFile(script, []byte("export const options = { iterations: 1 };\nexport default function () { console.log(`machine ${__ENV.FP_MACHINE_CORES} ${__ENV.FP_MACHINE_MEMORY_BYTES}`); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	record, err := os.ReadFile(filepath.Join(root, "lib", "record.js"))
	if err != nil || !strings.Contains(string(record), "{ cores: 'FP_MACHINE_CORES', memoryBytes: 'FP_MACHINE_MEMORY_BYTES' }") {
		t.Errorf("lib/record.js's MACHINE_ENV is not FP_MACHINE_CORES, FP_MACHINE_MEMORY_BYTES (%v)", err)
	}
	out, code = n.run(t, k6, append(slices.Clone(k6.Entrypoint), "run", "machine.js"), "K6_INFLUXDB_RETRY_TIMEOUT=1s")
	entries, _ = os.ReadDir(filepath.Join(n.work, "results"))
	meminfo, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	var kb int64
	if m := regexp.MustCompile(`(?m)^MemTotal:\s+(\d+) kB`).FindSubmatch(meminfo); m != nil {
		kb, _ = strconv.ParseInt(string(m[1]), 10, 64)
	}
	want = fmt.Sprintf(`msg="machine %d %d"`, runtime.NumCPU(), kb*1024)
	if code != 0 || !strings.Contains(out, want) || len(entries) != 1 {
		t.Errorf("a run of a script of one's own: exit %d, results/ holds %d entries (want 1), want %s:\n%s", code, len(entries), want, out)
	}
	// The snapshot script reads its query from the native snapshot's module (one home): it finds it.
	native, err := os.ReadFile(filepath.Join(root, "tools", "run", "db-snapshot.mjs"))
	if err != nil || !regexp.MustCompile("export const STATEMENTS_SQL = `[^`]+`").Match(native) {
		t.Errorf("tools/run/db-snapshot.mjs has no export const STATEMENTS_SQL = `...` for tools/compose-db-snapshot.js (%v)", err)
	}
	// Not a run: k6 as it is, nothing filed.
	out, code = n.run(t, k6, append(slices.Clone(k6.Entrypoint), "version"))
	if code != 0 || !strings.Contains(out, "k6 v") || strings.Contains(out, "==> results") {
		t.Errorf("`docker compose run --rm k6 version`: exit %d:\n%s", code, out)
	}
}

// search-prep runs the same tools as folio-perf run does for WORKFLOW=search: the query files, then
// both tenants indexed (here against a mod-search that is not there: the first index call fails).
func TestSearchPrepRunsTheNativeTools(t *testing.T) {
	root := repoRoot(t)
	file := filepath.Join(root, "docker-compose.yml")
	p, err := Load(context.Background(), file, "search")
	if err != nil {
		t.Fatal(err)
	}
	prep, ok := p.Services["search-prep"]
	if !ok {
		t.Fatal("no search-prep service under the profile search")
	}
	cmd := strings.Join(prep.Command, " ")
	native, err := os.ReadFile(filepath.Join(root, "tools", "run", "workflows", "search.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	value := func(key string) string { return defaultsValue(t, root, key) }
	for _, want := range []string{"search-index.mjs", "--if-incomplete", "--timeout"} {
		if !strings.Contains(string(native), want) || !strings.Contains(cmd, want) {
			t.Errorf("search-prep's command and tools/run/workflows/search.mjs do not both use %s:\n%s", want, cmd)
		}
	}
	seed := strings.Join(p.Services["search-seed"].Command, " ")
	if want := "seed --force-remote --tenant " + value("FP_REINDEX_TENANT") + " --admin-user " + value("FP_USER") + " --scale " + nativeSeedScale(t, root) + " --events-per-user 0"; seed != want {
		t.Errorf("search-seed runs %q, want %q (the native run's seed of the reindex tenant)", seed, want)
	}

	n := newNative(t, root, p, prep)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed (make deps)")
	}
	if err := os.Symlink(node, filepath.Join(n.pathDir, "node")); err != nil {
		t.Fatal(err)
	}
	// sh -ec: stops at the first failing call, the first tenant's index.
	out, code := n.run(t, prep, prep.Command)
	files, _ := filepath.Glob(filepath.Join(n.work, "data", "search", "*.csv"))
	if len(files) == 0 {
		t.Errorf("search-prep wrote no query files into data/search/:\n%s", out)
	}
	gateway := n.local("http://minifolio:9130")
	if code == 0 || !strings.Contains(out, fmt.Sprintf("folio-perf: search-index: POST %s/authn/login-with-expiry failed", gateway)) {
		t.Errorf("search-prep did not call tools/search-index.mjs on the gateway %s (exit %d):\n%s", gateway, code, out)
	}
	if !regexp.MustCompile(`for tenant in "` + value("FP_TENANT") + `" "` + value("FP_REINDEX_TENANT") + `"`).MatchString(cmd) {
		t.Errorf("search-prep does not index %s, then %s:\n%s", value("FP_TENANT"), value("FP_REINDEX_TENANT"), cmd)
	}
}
