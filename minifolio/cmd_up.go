package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/procs"
	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
)

// proc is one process of a minifolio deployment.
type proc struct {
	name string
	port int
}

// healthPath is where a process answers its health check: Kong has no
// /admin/health route, so its own GET /version stands in.
func (p proc) healthPath() string {
	if p.name == kongName {
		return "/version"
	}
	return "/admin/health"
}

// deployment lists the gateway and every module of platform for a base port,
// gateway first; modules that need OpenSearch only with search set. On Eureka
// the gateway is kong and every module has its sidecar (SidecarOffset above it).
func deployment(port int, search bool, platform string) []proc {
	gw := gatewayName
	if platform == catalog.Eureka {
		gw = kongName
	}
	ps := []proc{{gw, port}}
	for _, m := range catalog.Modules {
		if (m.OpenSearch && !search) || !m.On(platform) {
			continue
		}
		ps = append(ps, proc{m.Name, port + m.Offset})
		if platform == catalog.Eureka {
			ps = append(ps, proc{sidecarPrefix + m.Name, port + catalog.SidecarOffset + m.Offset})
		}
	}
	return ps
}

// markers are what the cmdline of our process for name must contain: the
// module (the trailing " --port" keeps mod-inventory from matching
// mod-inventory-storage) and this run dir, so `down` of one stack never
// touches another stack's process even if a pid was recycled.
func markers(dir procs.Dir, name string) []string {
	return []string{"serve --module " + name + " --port", "--run-dir " + string(dir) + " "}
}

// state is <run-dir>/state.json: what `up` started, for status and a second up.
type state struct {
	Port     int    `json:"port"`
	Profile  string `json:"profile"`
	Started  string `json:"started"`
	Search   bool   `json:"search,omitempty"`   // mod-search runs (up --opensearch)
	Platform string `json:"platform,omitempty"` // eureka, else okapi
	Keycloak string `json:"keycloak,omitempty"` // the Eureka deployment's Keycloak URL
}

func (s state) platform() string {
	if s.Platform == "" {
		return catalog.Okapi
	}
	return s.Platform
}

func runDirFlag(fsRunDir *string) (procs.Dir, error) {
	abs, err := filepath.Abs(*fsRunDir)
	if err != nil {
		return "", err
	}
	return procs.Dir(abs), nil
}

func readState(d procs.Dir) (state, bool) {
	var s state
	b, err := os.ReadFile(filepath.Join(string(d), "state.json"))
	if err != nil || json.Unmarshal(b, &s) != nil || s.Port == 0 {
		return state{}, false
	}
	return s, true
}

func cmdUp(args []string, out io.Writer) error {
	fs := newFlags("up")
	port := fs.Int("port", 9130, "gateway port; module ports are this plus 1..10")
	prof := fs.String("profile", "fast", "release profile (minifolio/profiles/<name>.json)")
	ttl := fs.Duration("token-ttl", 10*time.Minute, "access-token lifetime")
	runDir := fs.String("run-dir", ".stack/minifolio", "directory for pid files and logs/")
	timeout := fs.Duration("timeout", 60*time.Second, "how long to wait for every process to be healthy")
	osURL := fs.String("opensearch", "", "OpenSearch URL, e.g. http://127.0.0.1:9200; when set, mod-search runs too (port: --port + 10)")
	kcURL := keycloakFlag(fs)
	db := dbFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *osURL != "" && !strings.HasPrefix(*osURL, "http://") && !strings.HasPrefix(*osURL, "https://") {
		return fail(fmt.Sprintf("invalid --opensearch %q", *osURL), "give the node's URL, e.g. --opensearch http://127.0.0.1:9200")
	}
	if *port < 1024 || *port > 65500 {
		return fail(fmt.Sprintf("invalid --port %d", *port), "use a port between 1024 and 65500")
	}
	if *ttl < time.Second {
		return fail(fmt.Sprintf("invalid --token-ttl %s", *ttl), "use a duration of at least 1s, e.g. --token-ttl 10m")
	}
	dsn, err := dbURL(*db)
	if err != nil {
		return err
	}
	dir, err := runDirFlag(runDir)
	if err != nil {
		return err
	}

	// Already (partly) up? Judge by the pid files of the recorded deployment.
	if st, ok := readState(dir); ok {
		var alive, dead []string
		for _, p := range deployment(st.Port, st.Search, st.platform()) {
			if procs.Ours(dir.ReadPid(p.name), markers(dir, p.name)...) {
				alive = append(alive, p.name)
			} else {
				dead = append(dead, p.name)
			}
		}
		if len(dead) == 0 {
			fmt.Fprintf(out, "minifolio is already up: gateway http://127.0.0.1:%d, profile %s, %d processes (pid files in %s). Nothing started.\n",
				st.Port, st.Profile, len(alive), dir)
			return nil
		}
		if len(alive) > 0 {
			return fail(fmt.Sprintf("minifolio is partly up (%d running, %s not)", len(alive), dead[0]),
				"run 'minifolio down' and then 'minifolio up'")
		}
	}

	pr, err := profile.Load(profile.Dir(), *prof)
	if err != nil {
		return fail(err.Error(), "pick a profile from "+profile.Dir())
	}
	if pr.Eureka() {
		if err := keycloakUp(*kcURL, pr.Name); err != nil {
			return err
		}
	}
	ctx := context.Background()
	pool, err := openDB(ctx, dsn, 1)
	if err != nil {
		return err
	}
	pool.Close()
	ps := deployment(*port, *osURL != "", pr.Platform)
	// The span, not the count: modules sit at their catalog offsets and, on Eureka, each sidecar
	// SidecarOffset above its module.
	top := *port
	for _, p := range ps {
		top = max(top, p.port)
	}
	for _, p := range ps {
		if !procs.PortFree(p.port) {
			return fail(fmt.Sprintf("port %d (for %s) is already in use", p.port, p.name),
				fmt.Sprintf("stop what listens on it, or choose another base port with --port (minifolio uses --port to --port+%d)", top-*port))
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	secret := os.Getenv("MINIFOLIO_TOKEN_SECRET")
	if secret == "" {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		secret = hex.EncodeToString(b)
	}
	// The DB URL and the token secret reach the children through their
	// environment only: command lines are world-readable in /proc.
	env := []string{"MINIFOLIO_DB=" + dsn}
	if pr.Eureka() {
		// mod-login-keycloak sets realms up with Keycloak's admin.
		env = append(env, "FP_KEYCLOAK_ADMIN_PASSWORD="+os.Getenv("FP_KEYCLOAK_ADMIN_PASSWORD"))
	}
	okapiURL := fmt.Sprintf("http://127.0.0.1:%d", *port)
	var started []proc
	stopStarted := func() {
		for i := len(started) - 1; i >= 0; i-- {
			_, _ = dir.Stop(started[i].name, 5*time.Second, markers(dir, started[i].name)...)
		}
		_ = os.Remove(filepath.Join(string(dir), "state.json"))
	}
	for _, p := range ps {
		args := []string{"serve", "--module", p.name, "--port", strconv.Itoa(p.port), "--profile", *prof, "--run-dir", string(dir)}
		if pr.Eureka() {
			args = append(args, "--keycloak", *kcURL, "--token-ttl", ttl.String())
			if *osURL != "" {
				args = append(args, "--with-search")
			}
		}
		e := env
		if p.name == kongName {
			// Kong needs no token secret; modules call their own sidecar.
		} else if p.name == gatewayName {
			args = append(args, "--token-ttl", ttl.String())
			if *osURL != "" {
				args = append(args, "--with-search")
			}
			e = append(append([]string{}, env...), "MINIFOLIO_TOKEN_SECRET="+secret)
		} else if m, ok := catalog.ByName(p.name); ok && pr.Eureka() {
			args = append(args, "--okapi-url", sidecarURL(*port)(m))
		} else if !strings.HasPrefix(p.name, sidecarPrefix) {
			args = append(args, "--okapi-url", okapiURL)
		}
		if m, ok := catalog.ByName(p.name); ok && m.OpenSearch {
			e = append(append([]string{}, env...), "FP_OPENSEARCH_URL="+*osURL)
		}
		if _, err := dir.Start(exe, procs.Spec{Name: p.name, Args: args, Env: e, Port: p.port}); err != nil {
			stopStarted()
			return fail(fmt.Sprintf("cannot start %s: %v", p.name, err), "check that "+string(dir)+" is writable")
		}
		started = append(started, p)
	}

	deadline := time.Now().Add(*timeout)
	pending := append([]proc{}, ps...)
	for len(pending) > 0 {
		var still []proc
		for _, p := range pending {
			if procs.HealthyAt(ctx, p.port, p.healthPath()) {
				continue
			}
			if !procs.Ours(dir.ReadPid(p.name), markers(dir, p.name)...) {
				cause := procs.LastLine(dir.LogFile(p.name))
				stopStarted()
				return fail(fmt.Sprintf("%s exited during start-up: %s", p.name, cause), "read "+dir.LogFile(p.name))
			}
			still = append(still, p)
		}
		pending = still
		if len(pending) == 0 {
			break
		}
		if time.Now().After(deadline) {
			stopStarted()
			return fail(fmt.Sprintf("%s did not answer GET %s on port %d within %s", pending[0].name, pending[0].healthPath(), pending[0].port, *timeout),
				"read "+dir.LogFile(pending[0].name))
		}
		time.Sleep(100 * time.Millisecond)
	}
	st := state{Port: *port, Profile: *prof, Started: time.Now().UTC().Format(time.RFC3339), Search: *osURL != ""}
	if pr.Eureka() {
		st.Platform, st.Keycloak = pr.Platform, *kcURL
	}
	b, _ := json.Marshal(st)
	if err := os.WriteFile(filepath.Join(string(dir), "state.json"), b, 0o644); err != nil {
		stopStarted()
		return err
	}
	if pr.Eureka() {
		fmt.Fprintf(out, "minifolio up: Eureka (kong http://127.0.0.1:%d, %d modules each behind its sidecar, Keycloak %s), profile %s, token TTL %s; logs in %s\n",
			*port, (len(ps)-1)/2, *kcURL, *prof, ttl, filepath.Join(string(dir), "logs"))
		return nil
	}
	fmt.Fprintf(out, "minifolio up: gateway http://127.0.0.1:%d, %d modules, profile %s, token TTL %s; logs in %s\n",
		*port, len(ps)-1, *prof, ttl, filepath.Join(string(dir), "logs"))
	return nil
}

// knownNames: every pid-file name a deployment can have.
func knownNames() []string {
	var n []string
	seen := map[string]bool{}
	for _, platform := range []string{catalog.Okapi, catalog.Eureka} {
		for _, p := range deployment(9130, true, platform) {
			if !seen[p.name] {
				seen[p.name] = true
				n = append(n, p.name)
			}
		}
	}
	return n
}

func cmdDown(args []string, out io.Writer) error {
	fs := newFlags("down")
	runDir := fs.String("run-dir", ".stack/minifolio", "directory of the pid files written by up")
	if err := parse(fs, args); err != nil {
		return err
	}
	dir, err := runDirFlag(runDir)
	if err != nil {
		return err
	}
	stopped := 0
	// Modules first, gateway last: in-flight requests drain through it.
	names := knownNames()
	for i := len(names) - 1; i >= 0; i-- {
		ok, err := dir.Stop(names[i], 10*time.Second, markers(dir, names[i])...)
		if err != nil {
			return fail(fmt.Sprintf("stopping %s: %v", names[i], err), "stop pid "+strconv.Itoa(dir.ReadPid(names[i]))+" by hand")
		}
		if ok {
			stopped++
		}
	}
	_ = os.Remove(filepath.Join(string(dir), "state.json"))
	if stopped == 0 {
		fmt.Fprintln(out, "minifolio is not running; nothing to stop")
		return nil
	}
	fmt.Fprintf(out, "minifolio down: stopped %d processes\n", stopped)
	return nil
}

func cmdStatus(args []string, out io.Writer) error {
	fs := newFlags("status")
	runDir := fs.String("run-dir", ".stack/minifolio", "directory of the pid files written by up")
	if err := parse(fs, args); err != nil {
		return err
	}
	dir, err := runDirFlag(runDir)
	if err != nil {
		return err
	}
	st, ok := readState(dir)
	if !ok {
		fmt.Fprintf(out, "minifolio is not running (no state in %s); start it with 'minifolio up'\n", dir)
		return errDown
	}
	down := false
	for _, p := range deployment(st.Port, st.Search, st.platform()) {
		pid := dir.ReadPid(p.name)
		s := "up"
		if !procs.Ours(pid, markers(dir, p.name)...) {
			s, pid, down = "down", 0, true
		} else if !procs.HealthyAt(context.Background(), p.port, p.healthPath()) {
			s, down = "unhealthy", true
		}
		fmt.Fprintf(out, "%-24s %-9s http://127.0.0.1:%d  pid %d\n", p.name, s, p.port, pid)
	}
	if down {
		return errDown
	}
	return nil
}

// keycloakUp checks that the Eureka profile has a Keycloak that answers.
func keycloakUp(kcURL, prof string) error {
	fix := "start it (stack/stack.sh up eureka, or make stack-up-eureka) and pass --keycloak http://127.0.0.1:<FP_KEYCLOAK_PORT> or set FP_KEYCLOAK_URL"
	if kcURL == "" {
		return fail("profile "+prof+" runs on Eureka and needs Keycloak", fix)
	}
	if !strings.HasPrefix(kcURL, "http://") && !strings.HasPrefix(kcURL, "https://") {
		return fail(fmt.Sprintf("invalid --keycloak %q", kcURL), "give Keycloak's URL, e.g. --keycloak http://127.0.0.1:58180")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(kcURL, "/")+"/realms/master", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fail("Keycloak does not answer at "+kcURL, fix)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Sprintf("Keycloak at %s answered %d for its master realm", kcURL, resp.StatusCode), fix)
	}
	if os.Getenv("FP_KEYCLOAK_ADMIN_PASSWORD") == "" {
		return fail("FP_KEYCLOAK_ADMIN_PASSWORD is not set (mod-login-keycloak sets realms up as Keycloak's admin)",
			"export it (tools/defaults.sh has the local stack's), or source tools/defaults.sh")
	}
	return nil
}
