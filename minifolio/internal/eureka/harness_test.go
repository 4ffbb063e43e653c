package eureka_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/credentials"
	"github.com/folio-perf/folio-perf/minifolio/internal/eureka"
	"github.com/folio-perf/folio-perf/minifolio/internal/eureka/eurekatest"
	"github.com/folio-perf/folio-perf/minifolio/internal/modules"
	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// keycloak is the test stack's real Keycloak, as its admin.
func keycloak(t testing.TB) *eureka.Keycloak {
	t.Helper()
	return eureka.NewKeycloak(eurekatest.KeycloakURL(t), os.Getenv("FP_KEYCLOAK_ADMIN_PASSWORD"))
}

// platform is one Eureka deployment in the test process: kong, and for every
// Eureka module the real module handler and its sidecar, each on its own
// 127.0.0.1 port (every hop is real HTTP), on a tenant of its own whose realm
// lives in the stack's Keycloak.
type platform struct {
	t        *testing.T
	pool     *pgxpool.Pool
	kc       *eureka.Keycloak
	tenant   string
	kong     string
	sidecar  map[string]string
	module   map[string]string
	servers  map[string]*http.Server
	ln       map[string]string // process name → address
	handlers map[string]http.Handler
	prof     *profile.Profile
	operator struct{ name, password, id string }
	cleanup  func(func())
}

// Deployments shared by the tests of one profile: setting a realm up takes
// Keycloak tens of seconds on a busy machine, so each profile gets one,
// removed when the package's tests end (TestMain).
var (
	sharedMu  sync.Mutex
	shared    = map[string]*platform{}
	teardowns []func()
)

func TestMain(m *testing.M) {
	code := m.Run()
	for i := len(teardowns) - 1; i >= 0; i-- {
		teardowns[i]()
	}
	os.Exit(code)
}

// sharedPlatform is the profile's shared deployment; tests that replace a
// process put it back in their cleanup.
func sharedPlatform(t *testing.T, profileName string) *platform {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if p := shared[profileName]; p != nil {
		p.t = t
		return p
	}
	p := buildPlatform(t, profileName, 0, func(f func()) { teardowns = append(teardowns, f) })
	shared[profileName] = p
	return p
}

// newPlatform is a deployment of the test's own (e.g. with a short token
// lifetime), removed when the test ends.
func newPlatform(t *testing.T, profileName string, ttl time.Duration) *platform {
	t.Helper()
	return buildPlatform(t, profileName, ttl, t.Cleanup)
}

func buildPlatform(t *testing.T, profileName string, ttl time.Duration, cleanup func(func())) *platform {
	t.Helper()
	kc := keycloak(t)
	pool, err := storage.Open(context.Background(), storagetest.DSN(t), 16)
	if err != nil {
		t.Fatal(err)
	}
	cleanup(pool.Close)
	prof, err := profile.Load("../../profiles", profileName)
	if err != nil {
		t.Fatal(err)
	}
	p := &platform{t: t, pool: pool, kc: kc, prof: prof, sidecar: map[string]string{}, module: map[string]string{},
		servers: map[string]*http.Server{}, ln: map[string]string{}, handlers: map[string]http.Handler{}, cleanup: cleanup}
	p.tenant = storagetest.TenantName("eu")
	if err := storage.CreateTenant(context.Background(), pool, p.tenant, storage.DDLOptions{}); err != nil {
		t.Fatal(err)
	}
	cleanup(func() {
		if err := storage.DropTenant(context.Background(), pool, p.tenant); err != nil {
			fmt.Fprintf(os.Stderr, "dropping tenant %s: %v\n", p.tenant, err)
		}
		if err := kc.DeleteRealm(context.Background(), p.tenant); err != nil {
			fmt.Fprintf(os.Stderr, "deleting realm %s: %v\n", p.tenant, err)
		}
	})
	p.operator.name, p.operator.password = "eu_admin", "eu-Secret-pw-1"
	p.operator.id = p.addUser(p.operator.name, p.operator.password, true)

	listeners := map[string]net.Listener{}
	listen := func(name string) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		listeners[name] = l
		p.ln[name] = l.Addr().String()
	}
	listen("kong")
	var mods []catalog.Module
	for _, m := range catalog.Modules {
		if m.On(catalog.Eureka) && !m.OpenSearch {
			mods = append(mods, m)
			listen(m.Name)
			listen("sidecar-" + m.Name)
			p.module[m.Name] = "http://" + p.ln[m.Name]
			p.sidecar[m.Name] = "http://" + p.ln["sidecar-"+m.Name]
		}
	}
	p.kong = "http://" + p.ln["kong"]
	sidecarURL := func(m catalog.Module) string {
		if u := p.sidecar[m.Name]; u != "" {
			return u
		}
		return "http://127.0.0.1:1" // not deployed here
	}
	p.handlers["kong"] = eureka.NewKong(eureka.KongConfig{DB: pool, Profile: prof, SidecarURL: sidecarURL})
	for _, m := range mods {
		h, err := modules.Handler(modules.Config{Name: m.Name, OkapiURL: p.sidecar[m.Name], Profile: profileName,
			Keycloak: kc, TokenTTL: ttl}, pool, prof)
		if err != nil {
			t.Fatal(err)
		}
		p.handlers[m.Name] = h
		p.handlers["sidecar-"+m.Name] = eureka.NewSidecar(eureka.SidecarConfig{Module: m, ModuleURL: p.module[m.Name],
			SelfURL: p.sidecar[m.Name], SidecarURL: sidecarURL, KC: kc, Verifier: &eureka.Verifier{KC: kc}, DB: pool,
			GetBodyRefused: prof.AtLeast("folio-module-sidecar", 4, 0, 0)})
	}
	for name, l := range listeners {
		p.serve(name, l)
	}
	return p
}

func (p *platform) serve(name string, l net.Listener) {
	srv := &http.Server{Handler: p.handlers[name], ReadHeaderTimeout: 10 * time.Second}
	p.servers[name] = srv
	go func() { _ = srv.Serve(l) }()
	p.cleanup(func() { _ = p.servers[name].Close() })
}

// stop closes one process's server; restart listens on its port again with
// a handler built anew (a restarted process keeps no state).
func (p *platform) stop(name string) { _ = p.servers[name].Close() }

// replace puts h in the place of process name for the test; the real handler
// comes back when the test ends.
func (p *platform) replace(t *testing.T, name string, h http.Handler) {
	t.Helper()
	orig := p.handlers[name]
	p.stop(name)
	p.restart(name, h)
	t.Cleanup(func() {
		p.stop(name)
		p.restart(name, orig)
	})
}

func (p *platform) restart(name string, h http.Handler) {
	p.t.Helper()
	var l net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if l, err = net.Listen("tcp", p.ln[name]); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatal(err)
	}
	p.handlers[name] = h
	p.serve(name, l)
}

// addUser inserts a FOLIO user with mod-login credentials, as the seed does.
func (p *platform) addUser(username, password string, active bool) string {
	p.t.Helper()
	id := storage.NewUUID()
	doc, _ := json.Marshal(map[string]any{"id": id, "username": username, "active": active, "type": "staff",
		"personal": map[string]any{"lastName": "Admin", "firstName": username}})
	ctx := context.Background()
	if err := storage.Insert(ctx, p.pool, p.tenant, storage.MustLookup("mod_users", "users"), id, doc); err != nil {
		p.t.Fatal(err)
	}
	rec, err := credentials.New(id, password)
	if err != nil {
		p.t.Fatal(err)
	}
	cdoc, _ := json.Marshal(rec)
	if err := storage.Insert(ctx, p.pool, p.tenant, storage.MustLookup("mod_login", "auth_credentials"), storage.NewUUID(), cdoc); err != nil {
		p.t.Fatal(err)
	}
	return id
}

// raw is one answer as the client received it: status line, headers as sent
// (their spelling too) and body.
type raw struct {
	statusLine string
	header     http.Header
	names      []string // header names as spelled on the wire
	body       string
}

// do sends a request over a fresh connection and reads the answer's bytes.
func do(t *testing.T, method, url string, hdr map[string]string, body string) raw {
	t.Helper()
	u := strings.TrimPrefix(url, "http://")
	host, path, _ := strings.Cut(u, "/")
	conn, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(120 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "%s /%s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, path, host)
	for k, v := range hdr {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	if body != "" || method == http.MethodPost {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n" + body)
	if _, err := io.WriteString(conn, b.String()); err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(all), "\r\n\r\n")
	lines := strings.Split(head, "\r\n")
	r := raw{statusLine: lines[0], header: http.Header{}}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ": ")
		r.names = append(r.names, k)
		r.header.Add(k, v)
	}
	if strings.EqualFold(r.header.Get("Transfer-Encoding"), "chunked") {
		rest = dechunk(t, rest)
	}
	r.body = rest
	return r
}

func dechunk(t *testing.T, s string) string {
	var out strings.Builder
	rd := bufio.NewReader(strings.NewReader(s))
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("bad chunked body %q", s)
		}
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(line), "%x", &n); err != nil {
			t.Fatalf("bad chunk size %q", line)
		}
		if n == 0 {
			return out.String()
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(rd, buf); err != nil {
			t.Fatal(err)
		}
		out.Write(buf[:n])
	}
}

// login logs the operator in through Kong and returns the two cookies.
func (p *platform) login() (access, refresh string) {
	p.t.Helper()
	r := do(p.t, "POST", p.kong+"/authn/login-with-expiry", map[string]string{"X-Okapi-Tenant": p.tenant,
		"Content-Type": "application/json"}, fmt.Sprintf(`{"username":%q,"password":%q}`, p.operator.name, p.operator.password))
	if r.statusLine != "HTTP/1.1 201 Created" {
		p.t.Fatalf("login: %s %s", r.statusLine, r.body)
	}
	return cookieValue(r, "folioAccessToken"), cookieValue(r, "folioRefreshToken")
}

func cookieValue(r raw, name string) string {
	for _, c := range r.header.Values("Set-Cookie") {
		if v, ok := strings.CutPrefix(c, name+"="); ok {
			return v[:strings.IndexByte(v, ';')]
		}
	}
	return ""
}

func payload(t *testing.T, tok string) map[string]any {
	t.Helper()
	m, err := eureka.Payload(tok)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func header(t *testing.T, tok string) map[string]any {
	t.Helper()
	h, _, _ := strings.Cut(tok, ".")
	m, err := eureka.Payload("x." + h)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
