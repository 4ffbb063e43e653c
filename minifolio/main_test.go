package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/procs"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
)

// buildBinary builds the real minifolio: `up` starts children from its own
// executable, which under `go test` would be the test binary.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "minifolio")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type result struct {
	code           int
	stdout, stderr string
}

func runBin(t *testing.T, bin string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, o.String(), e.String()}
}

// freeBase finds a base port with the gateway's and every module's port free.
func freeBase(t *testing.T) int {
	t.Helper()
	for base := 21000 + os.Getpid()%5000; base < 40000; base += 37 {
		ok := true
		for i := 0; i <= len(catalog.Modules); i++ {
			if !procs.PortFree(base + i) {
				ok = false
				break
			}
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free port range")
	return 0
}

func TestCLI(t *testing.T) {
	dsn := storagetest.DSN(t)
	pool := storagetest.Pool(t)
	bin := buildBinary(t)
	tenant := storagetest.TenantName("cli")
	t.Cleanup(func() { _ = storage.DropTenant(context.Background(), pool, tenant) })
	env := []string{"MINIFOLIO_DB=" + dsn, "MINIFOLIO_PROFILES=" + filepath.Join(mustGetwd(t), "profiles")}
	// The leak checks need a password that cannot occur by chance (make
	// test uses one); a short one like the default "folio" is part of
	// "minifolio" itself.
	password := ""
	if u, err := url.Parse(dsn); err == nil {
		password, _ = u.User.Password()
	}
	if len(password) < 8 {
		password = ""
	}

	// Bad input: one line with the fix, exit 1, no stack trace. Should an
	// `up` wrongly succeed, the cleanup stops it.
	badDir := t.TempDir()
	t.Cleanup(func() { runBin(t, bin, nil, "down", "--run-dir", badDir) })
	for _, c := range []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"seed"}, []string{"MINIFOLIO_DB="}, "no database URL. Fix: pass --db or set MINIFOLIO_DB"},
		{[]string{"seed", "--items", "x"}, env, "invalid value"},
		{[]string{"seed", "--tenant", "x", "--items", "1", "--loans", "2"}, env, "every loan needs its own item"},
		{[]string{"up", "--profile", "nosuchprofile", "--run-dir", badDir}, env, "Fix:"},
		{[]string{"up", "--port", "80", "--run-dir", badDir}, env, "invalid --port"},
		{[]string{"frobnicate"}, env, "unknown command"},
		{[]string{"up", "--token-ttl", "0s", "--run-dir", badDir}, env, "invalid --token-ttl"},
		{[]string{"up", "--run-dir", badDir}, []string{"MINIFOLIO_DB=postgres://folio:x@127.0.0.1:1/folio?sslmode=disable"},
			"cannot reach PostgreSQL at 127.0.0.1:1"},
		{[]string{"reset", "--tenant", "nosuchtenant"}, env, "no tenant nosuchtenant"},
		{[]string{"seed", "--scale", "huge"}, env, "unknown --scale \"huge\": one of demo, 1m, ptf"},
		// the preset's other sizes stand beside the one given: its 30,479 open loans need as many items
		{[]string{"seed", "--scale", "1m", "--items", "10"}, env, "--loans 30479 is more than --items 10"},
		{[]string{"seed", "--disk-free", "lots"}, env, "invalid size \"lots\""},
		// the ptf preset on a disk said to have 2 GB free: refused with both figures, nothing written
		{[]string{"seed", "--tenant", tenant + "_disk", "--scale", "ptf", "--disk-free", "2GB"}, env,
			"GB, the database's disk (--disk-free) has 2.0 GB free. Fix: free space"},
	} {
		r := runBin(t, bin, c.env, c.args...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 ||
			strings.Contains(r.stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want one line containing %q", c.args, r.code, r.stderr, c.want)
		}
	}

	// seed through the CLI; the second run is a no-op.
	r := runBin(t, bin, env, "seed", "--tenant", tenant, "--items", "40", "--users", "10", "--loans", "3", "--quiet")
	if r.code != 0 || !strings.Contains(r.stdout, "seeded tenant "+tenant+": 40 items") {
		t.Fatalf("seed: %+v", r)
	}
	if r := runBin(t, bin, env, "seed", "--tenant", tenant, "--items", "40"); r.code != 0 || !strings.Contains(r.stdout, "already seeded") {
		t.Fatalf("second seed: %+v", r)
	}

	// drop removes the tenant; seeding again recreates it.
	if r := runBin(t, bin, env, "drop", "--tenant", tenant); r.code != 0 || !strings.Contains(r.stdout, "dropped tenant "+tenant) {
		t.Fatalf("drop: %+v", r)
	}
	var n int
	_ = pool.QueryRow(context.Background(), "SELECT count(*) FROM pg_namespace WHERE nspname LIKE $1", tenant+"_%").Scan(&n)
	if n != 0 {
		t.Fatalf("drop left %d schemas", n)
	}
	if r := runBin(t, bin, env, "seed", "--tenant", tenant, "--items", "40", "--users", "10", "--loans", "3", "--quiet"); r.code != 0 {
		t.Fatalf("seed after drop: %+v", r)
	}

	runDir := t.TempDir()
	base := freeBase(t)

	// Port taken: clean error naming the port and the flag, nothing left running.
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+3))
	if err != nil {
		t.Fatal(err)
	}
	r = runBin(t, bin, env, "up", "--port", fmt.Sprint(base), "--run-dir", runDir)
	ln.Close()
	if r.code != 1 || !strings.Contains(r.stderr, fmt.Sprintf("port %d (for mod-inventory-storage) is already in use", base+3)) ||
		!strings.Contains(r.stderr, "--port") {
		t.Fatalf("up with a taken port: %+v", r)
	}
	if files, _ := filepath.Glob(filepath.Join(runDir, "*.pid")); len(files) != 0 {
		t.Fatalf("failed up left pid files: %v", files)
	}

	r = runBin(t, bin, env, "up", "--port", fmt.Sprint(base), "--run-dir", runDir, "--token-ttl", "2m")
	if r.code != 0 || !strings.Contains(r.stdout, "minifolio up") {
		t.Fatalf("up: %+v", r)
	}
	t.Cleanup(func() { runBin(t, bin, nil, "down", "--run-dir", runDir) })
	d := procs.Dir(runDir)
	var pids []int
	for _, p := range deployment(base, false, catalog.Okapi) {
		pid := d.ReadPid(p.name)
		if !procs.Ours(pid, markers(d, p.name)...) {
			t.Fatalf("%s: pid file %d is not a running minifolio %s", p.name, pid, p.name)
		}
		pids = append(pids, pid)
		// Secrets stay out of command lines.
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(string(cmdline), "postgres://") || (password != "" && strings.Contains(string(cmdline), password)) {
			t.Errorf("%s command line carries the database URL: %q", p.name, cmdline)
		}
	}
	if r := runBin(t, bin, env, "up", "--port", fmt.Sprint(base), "--run-dir", runDir); r.code != 0 || !strings.Contains(r.stdout, "already up") {
		t.Fatalf("second up: %+v", r)
	}
	for i, p := range deployment(base, false, catalog.Okapi) {
		if d.ReadPid(p.name) != pids[i] {
			t.Fatalf("second up restarted %s", p.name)
		}
	}
	if r := runBin(t, bin, env, "status", "--run-dir", runDir); r.code != 0 || strings.Count(r.stdout, " up ") != len(pids) {
		t.Fatalf("status: %+v", r)
	}

	// The running gateway serves the seeded tenant end to end.
	gw := fmt.Sprintf("http://127.0.0.1:%d", base)
	req, _ := http.NewRequest("POST", gw+"/authn/login", strings.NewReader(`{"username":"folio_admin","password":"admin"}`))
	req.Header.Set("X-Okapi-Tenant", tenant)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	tok := resp.Header.Get("X-Okapi-Token")
	if resp.StatusCode != 201 || tok == "" {
		t.Fatalf("login through the running gateway: %d", resp.StatusCode)
	}
	req, _ = http.NewRequest("GET", gw+`/users?query=barcode=="usr0000001"`, nil)
	req.Header.Set("X-Okapi-Tenant", tenant)
	req.Header.Set("X-Okapi-Token", tok)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(body.String(), `"totalRecords":1`) {
		t.Fatalf("users through the gateway: %d %s", resp.StatusCode, body.String())
	}

	r = runBin(t, bin, env, "down", "--run-dir", runDir)
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("stopped %d processes", len(pids))) {
		t.Fatalf("down: %+v", r)
	}
	for i, p := range deployment(base, false, catalog.Okapi) {
		if procs.Ours(pids[i], markers(d, p.name)...) {
			t.Errorf("%s (pid %d) still runs after down", p.name, pids[i])
		}
	}
	if r := runBin(t, bin, env, "down", "--run-dir", runDir); r.code != 0 || !strings.Contains(r.stdout, "not running") {
		t.Fatalf("second down: %+v", r)
	}
	if r := runBin(t, bin, env, "status", "--run-dir", runDir); r.code != 1 {
		t.Fatalf("status after down: %+v", r)
	}
	// Logs exist and never carry the database password.
	logs, _ := filepath.Glob(filepath.Join(runDir, "logs", "*.log"))
	if len(logs) != len(pids) {
		t.Fatalf("want one log per process, got %v", logs)
	}
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if password != "" && strings.Contains(string(b), password) {
			t.Errorf("%s contains the database password", l)
		}
	}
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// The gateway carries every request, so it gets half the cores; a module a
// quarter; every process at least one (measured on 2 cores: one each is
// cheapest, see tuneRuntime).
func TestProcsFor(t *testing.T) {
	for _, c := range []struct {
		module     string
		cpus, want int
	}{
		{gatewayName, 1, 1}, {gatewayName, 2, 1}, {gatewayName, 8, 4},
		{"mod-circulation", 2, 1}, {"mod-circulation", 4, 1}, {"mod-circulation", 16, 4},
	} {
		if got := procsFor(c.module, c.cpus); got != c.want {
			t.Errorf("procsFor(%s, %d cpus) = %d, want %d", c.module, c.cpus, got, c.want)
		}
	}
}
