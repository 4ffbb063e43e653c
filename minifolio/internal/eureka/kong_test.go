package eureka_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/eureka"
	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
)

// recorder stands where a sidecar would: it keeps the last request Kong
// forwarded, to see what Kong does to headers.
type recorder struct {
	mu   sync.Mutex
	last *http.Request
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.mu.Lock()
	rec.last = r.Clone(r.Context())
	rec.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"ok":true}`))
}

func (rec *recorder) header(name string) string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.last == nil {
		return "<no request>"
	}
	return rec.last.Header.Get(name)
}

// kongOnly is Kong on a real tenant, its upstreams one recorder.
func kongOnly(t *testing.T) (kong, tenant string, rec *recorder) {
	t.Helper()
	pool := storagetest.Pool(t)
	tenant = storagetest.Tenant(t, pool, "kong", storage.DDLOptions{NoIndexes: true})
	prof, err := profile.Load("../../profiles", "sunflower")
	if err != nil {
		t.Fatal(err)
	}
	rec = &recorder{}
	up := httptest.NewServer(rec)
	t.Cleanup(up.Close)
	k := httptest.NewServer(eureka.NewKong(eureka.KongConfig{DB: pool, Profile: prof,
		SidecarURL: func(catalog.Module) string { return up.URL }}))
	t.Cleanup(k.Close)
	return k.URL, tenant, rec
}

var kongJSON = regexp.MustCompile(`^\{\n  "message":"(.*)",\n  "request_id":"[0-9a-f]{32}"\n\}$`)

const stsValue = "max-age=31536000; includeSubDomains; preload"

func TestKongUnknownRouteAndTenant(t *testing.T) {
	kong, tenant, _ := kongOnly(t)
	for _, c := range []struct{ name, path, tenant string }{
		{"unknown path", "/no-such-module/x", tenant},
		{"unknown tenant", "/users", "no_such_tenant"},
		{"no tenant", "/users", ""},
		{"Okapi's module list", "/_/proxy/tenants/" + tenant + "/modules", tenant},
		{"Okapi's version", "/_/version", tenant},
	} {
		hdr := map[string]string{}
		if c.tenant != "" {
			hdr["X-Okapi-Tenant"] = c.tenant
		}
		r := do(t, "GET", kong+c.path, hdr, "")
		m := kongJSON.FindStringSubmatch(r.body)
		if r.statusLine != "HTTP/1.1 404 Not Found" || m == nil || m[1] != "no Route matched with those values" {
			t.Errorf("%s: %s %q", c.name, r.statusLine, r.body)
		}
		if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("%s: Content-Type %q", c.name, ct)
		}
		// KONG_HEADERS=off: no Server, Via or X-Kong-*; the global plugins' headers.
		for _, n := range r.names {
			if n == "Server" || n == "Via" || strings.HasPrefix(n, "X-Kong") {
				t.Errorf("%s: header %s with KONG_HEADERS=off", c.name, n)
			}
		}
		if r.header.Get("Strict-Transport-Security") != stsValue || r.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: global plugin headers missing: %v", c.name, r.header)
		}
	}
	r := do(t, "GET", kong+"/nothing", map[string]string{"Accept": "text/plain"}, "")
	if !regexp.MustCompile(`^no Route matched with those values\nrequest_id: [0-9a-f]{32}\n$`).MatchString(r.body) ||
		r.header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("text/plain: %q %q", r.header.Get("Content-Type"), r.body)
	}
}

func TestKongTokenRules(t *testing.T) {
	kong, tenant, rec := kongOnly(t)
	for _, c := range []struct {
		name string
		hdr  map[string]string
		msg  string
	}{
		{"Authorization without Bearer", map[string]string{"Authorization": "Basic abc"},
			"Invalid authorization header, value must start with Bearer"},
		{"header and Authorization differ", map[string]string{"X-Okapi-Token": "a", "Authorization": "Bearer b"},
			"X-Okapi-Token is not equal to Authorization token"},
		{"header and cookie differ", map[string]string{"X-Okapi-Token": "a", "Cookie": "folioAccessToken=b"},
			"X-Okapi-Token token is not equal to folioAccessToken token in cookies"},
		{"Authorization and cookie differ", map[string]string{"Authorization": "Bearer a", "Cookie": "folioAccessToken=b"},
			"Authorization token is not equal to folioAccessToken token in cookies"},
	} {
		c.hdr["X-Okapi-Tenant"] = tenant
		r := do(t, "GET", kong+"/users", c.hdr, "")
		m := kongJSON.FindStringSubmatch(r.body)
		if r.statusLine != "HTTP/1.1 404 Not Found" || m == nil || m[1] != c.msg {
			t.Errorf("%s: %s %q", c.name, r.statusLine, r.body)
		}
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q, want the plugin's application/json", c.name, ct)
		}
	}
	// The cookie becomes X-Okapi-Token and leaves the Cookie header.
	r := do(t, "GET", kong+"/users?limit=1", map[string]string{"X-Okapi-Tenant": tenant,
		"Cookie": "folioAccessToken=tok1; folioRefreshToken=ref1; other=x"}, "")
	if r.statusLine != "HTTP/1.1 200 OK" {
		t.Fatalf("cookie request: %s %q", r.statusLine, r.body)
	}
	if rec.header("X-Okapi-Token") != "tok1" || rec.header("Cookie") != "folioRefreshToken=ref1;other=x" {
		t.Errorf("forwarded X-Okapi-Token %q Cookie %q", rec.header("X-Okapi-Token"), rec.header("Cookie"))
	}
	if r.header.Get("Strict-Transport-Security") != stsValue {
		t.Errorf("proxied answer without the global Strict-Transport-Security")
	}
	// Equal tokens pass; Authorization alone is left for the sidecar.
	do(t, "GET", kong+"/users", map[string]string{"X-Okapi-Tenant": tenant, "Authorization": "Bearer tok2"}, "")
	if rec.header("Authorization") != "Bearer tok2" || rec.header("X-Okapi-Token") != "" {
		t.Errorf("Authorization alone: forwarded %q / %q", rec.header("Authorization"), rec.header("X-Okapi-Token"))
	}
}

func TestKongCORSAndVersion(t *testing.T) {
	kong, tenant, rec := kongOnly(t)
	r := do(t, "OPTIONS", kong+"/circulation/check-out-by-barcode", map[string]string{"Origin": "https://ui.example.org",
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,x-okapi-tenant"}, "")
	want := map[string]string{"Access-Control-Allow-Origin": "https://ui.example.org", "Access-Control-Allow-Credentials": "true",
		"Access-Control-Allow-Headers": "content-type,x-okapi-tenant", "Access-Control-Allow-Methods": "GET,PUT,POST,DELETE,PATCH",
		"Vary": "Origin", "Content-Length": "0"}
	if r.statusLine != "HTTP/1.1 200 OK" || r.body != "" {
		t.Errorf("preflight: %s %q", r.statusLine, r.body)
	}
	for k, v := range want {
		if r.header.Get(k) != v {
			t.Errorf("preflight %s = %q, want %q", k, r.header.Get(k), v)
		}
	}
	if rec.last != nil {
		t.Errorf("the preflight reached an upstream")
	}
	// A plain request with an Origin: the cors plugin echoes it with credentials.
	r = do(t, "GET", kong+"/groups", map[string]string{"X-Okapi-Tenant": tenant, "Origin": "https://ui.example.org"}, "")
	if r.header.Get("Access-Control-Allow-Origin") != "https://ui.example.org" ||
		r.header.Get("Access-Control-Allow-Credentials") != "true" || r.header.Get("Vary") != "Origin" {
		t.Errorf("CORS on a proxied answer: %v", r.header)
	}
	r = do(t, "GET", kong+"/version", nil, "")
	if r.statusLine != "HTTP/1.1 200 OK" || r.body != `{"edition":"community","version":"3.9.1"}` {
		t.Errorf("/version: %s %q", r.statusLine, r.body)
	}
	r = do(t, "GET", kong+"/entitlements/"+tenant+"/applications?limit=500", map[string]string{"X-Okapi-Tenant": tenant}, "")
	if r.statusLine != "HTTP/1.1 200 OK" || !strings.HasPrefix(r.body, `{"applicationDescriptors":[{"id":"app-platform-minimal-2.0.14","name":"app-platform-minimal","version":"2.0.14","modules":[{"id":"mod-configuration-5.12.0","name":"mod-configuration","version":"5.12.0"}`) ||
		!strings.HasSuffix(r.body, `"totalRecords":2}`) {
		t.Errorf("entitlements: %s %q", r.statusLine, r.body)
	}
}
