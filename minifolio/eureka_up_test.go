package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/eureka"
	"github.com/folio-perf/folio-perf/minifolio/internal/eureka/eurekatest"
	"github.com/folio-perf/folio-perf/minifolio/internal/procs"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
)

// freeEurekaBase finds a base port whose gateway, module and sidecar ports are free.
func freeEurekaBase(t *testing.T) int {
	t.Helper()
	top := catalog.SidecarOffset + len(catalog.Modules) + 1
	for base := 23000 + os.Getpid()%4000; base < 40000; base += 97 {
		ok := true
		for i := 0; i <= top && ok; i++ {
			ok = procs.PortFree(base + i)
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free port range")
	return 0
}

// curl runs the real curl with a cookie jar, as docs/eureka.md tells a user to.
func curl(t *testing.T, jar string, args ...string) (status int, body string) {
	t.Helper()
	out, err := exec.Command("curl", append([]string{"-s", "-o", "-", "-w", "\n%{http_code}", "-c", jar, "-b", jar}, args...)...).Output()
	if err != nil {
		t.Fatalf("curl %v: %v", args, err)
	}
	s := strings.TrimRight(string(out), "\n")
	i := strings.LastIndexByte(s, '\n')
	fmt.Sscanf(s[i+1:], "%d", &status)
	return status, s[:max(i, 0)]
}

// The Eureka deployment as `make run` starts it: `minifolio up --profile
// sunflower` (kong, every module behind its own sidecar process) on a seeded
// tenant with the test stack's Keycloak, then curl's login → call → refresh →
// logout cycle, and a sidecar process stopped and started again.
func TestUpEurekaWithCurl(t *testing.T) {
	kcURL := eurekatest.KeycloakURL(t)
	bin := buildBinary(t)
	pool := storagetest.Pool(t)
	dsn := storagetest.DSN(t)
	tenant := storagetest.TenantName("euup")
	t.Cleanup(func() {
		_ = storage.DropTenant(context.Background(), pool, tenant)
		_ = eureka.NewKeycloak(kcURL, os.Getenv("FP_KEYCLOAK_ADMIN_PASSWORD")).DeleteRealm(context.Background(), tenant)
	})
	env := []string{"MINIFOLIO_DB=" + dsn, "MINIFOLIO_PROFILES=" + filepath.Join(mustGetwd(t), "profiles"), "FP_KEYCLOAK_URL="}
	runDir := t.TempDir()
	if r := runBin(t, bin, env, "up", "--profile", "sunflower", "--run-dir", runDir); r.code != 1 ||
		!strings.Contains(r.stderr, "profile sunflower runs on Eureka and needs Keycloak") || !strings.Contains(r.stderr, "Fix:") {
		t.Fatalf("up sunflower without Keycloak: %+v", r)
	}
	if r := runBin(t, bin, append(env, "MINIFOLIO_ADMIN_PASSWORD=eu-up-pw"), "seed", "--tenant", tenant, "--items", "20", "--users", "5", "--quiet"); r.code != 0 {
		t.Fatalf("seed: %+v", r)
	}
	base := freeEurekaBase(t)
	r := runBin(t, bin, env, "up", "--profile", "sunflower", "--port", fmt.Sprint(base), "--run-dir", runDir, "--keycloak", kcURL, "--timeout", "120s")
	if r.code != 0 || !strings.Contains(r.stdout, "minifolio up: Eureka (kong http://127.0.0.1:") {
		t.Fatalf("up sunflower: %+v", r)
	}
	t.Cleanup(func() { runBin(t, bin, nil, "down", "--run-dir", runDir) })
	st := runBin(t, bin, env, "status", "--run-dir", runDir)
	for _, name := range []string{"kong", "mod-circulation", "sidecar-mod-circulation", "mod-login-keycloak", "sidecar-mod-login-keycloak"} {
		if !regexp.MustCompile(`(?m)^` + name + `\s+up\s`).MatchString(st.stdout) {
			t.Errorf("status does not show %s up:\n%s", name, st.stdout)
		}
	}
	if strings.Contains(st.stdout, "okapi ") {
		t.Errorf("an Eureka deployment runs an okapi process:\n%s", st.stdout)
	}

	// curl keeps Secure cookies for http://localhost only: the user's URL.
	kong := fmt.Sprintf("http://localhost:%d", base)
	jar := filepath.Join(t.TempDir(), "cookies")
	hdr := []string{"-H", "X-Okapi-Tenant: " + tenant}
	status, body := curl(t, jar, append(hdr, "-H", "Content-Type: application/json", "-d",
		`{"username":"folio_admin","password":"eu-up-pw"}`, kong+"/authn/login-with-expiry")...)
	if status != 201 || !strings.HasPrefix(body, `{"accessTokenExpiration":"`) {
		t.Fatalf("curl login: %d %s", status, body)
	}
	if status, body = curl(t, jar, append(hdr, kong+"/circulation/loans?limit=1")...); status != 200 || !strings.Contains(body, `"loans"`) {
		t.Fatalf("curl call with the cookie: %d %s", status, body)
	}
	if status, body = curl(t, jar, append(hdr, "-X", "POST", kong+"/authn/refresh")...); status != 201 {
		t.Fatalf("curl refresh: %d %s", status, body)
	}
	if status, _ = curl(t, jar, append(hdr, kong+"/users?limit=1")...); status != 200 {
		t.Fatalf("curl call after refresh: %d", status)
	}

	// A sidecar process goes away and comes back.
	d := procs.Dir(runDir)
	name := "sidecar-mod-users"
	pid := d.ReadPid(name)
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Stop(name, 10*time.Second, markers(d, name)...); err != nil {
		t.Fatal(err)
	}
	if status, body = curl(t, jar, append(hdr, kong+"/users?limit=1")...); status != 502 {
		t.Errorf("sidecar stopped: %d %s, want Kong's 502", status, body)
	}
	args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")[1:]
	if _, err := d.Start(bin, procs.Spec{Name: name, Args: args, Env: env, Port: base + catalog.SidecarOffset + 2}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !procs.Healthy(context.Background(), base+catalog.SidecarOffset+2) && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if status, body = curl(t, jar, append(hdr, kong+"/users?limit=1")...); status != 200 {
		t.Errorf("after the sidecar's restart: %d %s", status, body)
	}

	refreshCookie := ""
	if b, err := os.ReadFile(jar); err == nil {
		if m := regexp.MustCompile(`folioRefreshToken\t(\S+)`).FindSubmatch(b); m != nil {
			refreshCookie = string(m[1])
		}
	}
	if status, _ = curl(t, jar, append(hdr, "-X", "POST", kong+"/authn/logout")...); status != 204 {
		t.Fatalf("curl logout: %d", status)
	}
	// The session is over in Keycloak: its refresh token is refused.
	if status, body = curl(t, filepath.Join(t.TempDir(), "none"), append(hdr, "-X", "POST", "-H", "Cookie: folioRefreshToken="+refreshCookie,
		kong+"/authn/refresh")...); refreshCookie == "" || status != 422 {
		t.Errorf("refresh after logout: %d %s", status, body)
	}
	// Processes are stopped by pid file: down stops every one of them.
	if r := runBin(t, bin, nil, "down", "--run-dir", runDir); r.code != 0 || !strings.Contains(r.stdout, "stopped") {
		t.Errorf("down: %+v", r)
	}
	if p := d.ReadPid("kong"); p != 0 && syscall.Kill(p, 0) == nil && procs.Ours(p, markers(d, "kong")...) {
		t.Errorf("kong still runs after down")
	}
}
