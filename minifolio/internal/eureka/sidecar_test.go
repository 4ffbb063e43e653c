package eureka_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/eureka"
)

// The sidecar's answers (folio-module-sidecar's ErrorHandler), with tokens of
// the real Keycloak, read as the client gets them through Kong.
func TestSidecarRefusals(t *testing.T) {
	p := sharedPlatform(t, "trillium")
	access, _ := p.login()
	cookie := map[string]string{"X-Okapi-Tenant": p.tenant, "Cookie": "folioAccessToken=" + access}

	if r := do(t, "GET", p.kong+"/groups", cookie, ""); r.statusLine != "HTTP/1.1 200 OK" {
		t.Fatalf("a staff login cannot read /groups: %s %q", r.statusLine, r.body)
	}
	// No token on a route that needs a permission.
	if r := do(t, "GET", p.kong+"/groups", map[string]string{"X-Okapi-Tenant": p.tenant}, ""); r.statusLine != "HTTP/1.1 401 Unauthorized" || r.body != sidecar401 {
		t.Errorf("no token: %s %q", r.statusLine, r.body)
	}
	// A token that does not verify: refused even on a route without permissions.
	bad := access[:len(access)-4] + "AAAA"
	for _, path := range []string{"/groups", "/users-keycloak/_self"} {
		r := do(t, "GET", p.kong+path, map[string]string{"X-Okapi-Tenant": p.tenant, "X-Okapi-Token": bad}, "")
		if r.statusLine != "HTTP/1.1 401 Unauthorized" || r.body != sidecar401 {
			t.Errorf("bad signature on %s: %s %q", path, r.statusLine, r.body)
		}
	}
	// Trillium's sidecar (4.x) refuses a GET with a body.
	r := do(t, "GET", p.kong+"/groups", cookie, `{"x":1}`)
	if r.statusLine != "HTTP/1.1 400 Bad Request" ||
		r.body != `{"errors":[{"type":"BadRequestException","code":"service_error","message":"GET requests should not have a body"}],"total_records":1}` {
		t.Errorf("GET with a body: %s %q", r.statusLine, r.body)
	}
	// A token of another realm (tenant): 401.
	other := sharedPlatform(t, "sunflower")
	otherAccess, _ := other.login()
	r = do(t, "GET", p.kong+"/groups", map[string]string{"X-Okapi-Tenant": p.tenant, "X-Okapi-Token": otherAccess}, "")
	if r.statusLine != "HTTP/1.1 401 Unauthorized" || r.body != sidecar401 {
		t.Errorf("foreign-tenant token: %s %q", r.statusLine, r.body)
	}
	// A user without the staff role: Keycloak's decision is no, the sidecar's 403.
	if err := p.kc.CreateUser(context.Background(), p.tenant, eureka.User{Username: "patron1", UserID: p.addUser("patron1", "pw-1", true),
		Password: "pw-1", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	lr := do(t, "POST", p.kong+"/authn/login-with-expiry", map[string]string{"X-Okapi-Tenant": p.tenant,
		"Content-Type": "application/json"}, loginBody("patron1", "pw-1"))
	patron := cookieValue(lr, "folioAccessToken")
	r = do(t, "GET", p.kong+"/groups", map[string]string{"X-Okapi-Tenant": p.tenant, "Cookie": "folioAccessToken=" + patron}, "")
	if r.statusLine != "HTTP/1.1 403 Forbidden" || r.body != sidecar403 {
		t.Errorf("no permission: %s %q", r.statusLine, r.body)
	}
	// Straight at a sidecar: a tenant without entitlements, a path of no module.
	r = do(t, "GET", p.sidecar["mod-users"]+"/groups", map[string]string{"X-Okapi-Tenant": "not_entitled", "X-Okapi-Token": access}, "")
	if r.statusLine != "HTTP/1.1 401 Unauthorized" {
		t.Errorf("token of another tenant than the header's: %s %q", r.statusLine, r.body)
	}
	r = do(t, "POST", p.sidecar["mod-login-keycloak"]+"/authn/login-with-expiry", map[string]string{"X-Okapi-Tenant": "not_entitled",
		"Content-Type": "application/json"}, loginBody("x", "y"))
	if r.statusLine != "HTTP/1.1 400 Bad Request" ||
		r.body != `{"errors":[{"type":"TenantNotEnabledException","code":"tenant_not_enabled","message":"Application is not enabled for tenant: not_entitled"}],"total_records":1}` {
		t.Errorf("tenant not enabled: %s %q", r.statusLine, r.body)
	}
	r = do(t, "GET", p.sidecar["mod-users"]+"/no-such-route/1", map[string]string{"X-Okapi-Tenant": p.tenant, "X-Okapi-Token": access}, "")
	if r.statusLine != "HTTP/1.1 404 Not Found" ||
		r.body != `{"errors":[{"type":"NotFoundException","code":"route_not_found_error","message":"Route is not found [method: GET, path: /no-such-route/1]"}],"total_records":1}` {
		t.Errorf("unknown route: %s %q", r.statusLine, r.body)
	}
}

// Sunflower's sidecar (3.x) forwards a GET with a body.
func TestSunflowerSidecarForwardsGetWithBody(t *testing.T) {
	p := sharedPlatform(t, "sunflower")
	access, _ := p.login()
	r := do(t, "GET", p.kong+"/groups", map[string]string{"X-Okapi-Tenant": p.tenant, "Cookie": "folioAccessToken=" + access}, `{"x":1}`)
	if r.statusLine != "HTTP/1.1 200 OK" {
		t.Errorf("GET with a body on sidecar 3.x: %s %q", r.statusLine, r.body)
	}
}

// What the module behind a sidecar receives: the sidecar's headers.
func TestSidecarHeadersForTheModule(t *testing.T) {
	p := sharedPlatform(t, "sunflower")
	access, _ := p.login()
	rec := &recorder{}
	p.replace(t, "mod-circulation", rec)
	r := do(t, "POST", p.kong+"/circulation/check-out-by-barcode", map[string]string{"X-Okapi-Tenant": p.tenant,
		"Cookie": "folioAccessToken=" + access, "User-Agent": "k6/1.8", "Content-Type": "application/json"}, `{}`)
	if r.statusLine != "HTTP/1.1 200 OK" {
		t.Fatalf("check-out through the sidecar: %s %q", r.statusLine, r.body)
	}
	checks := map[string]*regexp.Regexp{
		"X-Okapi-Token":       regexp.MustCompile(`^` + regexp.QuoteMeta(access) + `$`),
		"X-Okapi-User-Id":     regexp.MustCompile(`^` + p.operator.id + `$`),
		"X-Okapi-Url":         regexp.MustCompile(`^` + regexp.QuoteMeta(p.sidecar["mod-circulation"]) + `$`),
		"X-Okapi-Request-Id":  regexp.MustCompile(`^\d{6}/circulation$`),
		"X-Okapi-Tenant":      regexp.MustCompile(`^` + p.tenant + `$`),
		"X-Okapi-Permissions": regexp.MustCompile(`^\["circulation.override-patron-block.post","circulation.override-item-limit-block.post","circulation.override-item-not-loanable-block.post"\]$`),
		"User-Agent":          regexp.MustCompile(`^$`),
		"Cookie":              regexp.MustCompile(`^$`),
		"Authorization":       regexp.MustCompile(`^$`),
	}
	for h, re := range checks {
		if v := rec.header(h); !re.MatchString(v) {
			t.Errorf("module got %s %q", h, v)
		}
	}
}

// Module-to-module calls go from the module's sidecar (egress) to the other
// module's sidecar (ingress), which checks the token again.
func TestEgressGoesSidecarToSidecar(t *testing.T) {
	p := sharedPlatform(t, "sunflower")
	access, _ := p.login()
	rec := &recorder{}
	p.replace(t, "mod-users", rec)
	// mod-users-bl's _self calls /users/{id} through its own sidecar.
	do(t, "GET", p.kong+"/bl-users/_self", map[string]string{"X-Okapi-Tenant": p.tenant, "Cookie": "folioAccessToken=" + access}, "")
	if got := rec.header("X-Okapi-Url"); got != p.sidecar["mod-users"] {
		t.Errorf("mod-users was called with X-Okapi-Url %q, want its own sidecar %s", got, p.sidecar["mod-users"])
	}
	if got := rec.header("X-Okapi-Request-Id"); !regexp.MustCompile(`^\d{6}/bl-users;\d{6}/users$`).MatchString(got) {
		t.Errorf("request id %q, want the caller's with the new hop appended", got)
	}
}

// A drill: tokens that expire, a refresh, its reuse, a sidecar restart.
func TestDrillExpiryRefreshRestart(t *testing.T) {
	p := newPlatform(t, "sunflower", 3*time.Second)
	access, refresh := p.login()
	get := func(tok string) raw {
		return do(t, "GET", p.kong+"/groups", map[string]string{"X-Okapi-Tenant": p.tenant, "Cookie": "folioAccessToken=" + tok}, "")
	}
	if r := get(access); r.statusLine != "HTTP/1.1 200 OK" {
		t.Fatalf("fresh token: %s %q", r.statusLine, r.body)
	}
	time.Sleep(4500 * time.Millisecond)
	if r := get(access); r.statusLine != "HTTP/1.1 401 Unauthorized" || r.body != sidecar401 {
		t.Errorf("expired token: %s %q", r.statusLine, r.body)
	}
	r := do(t, "POST", p.kong+"/authn/refresh", map[string]string{"X-Okapi-Tenant": p.tenant, "Cookie": "folioRefreshToken=" + refresh}, "")
	access2, refresh2 := cookieValue(r, "folioAccessToken"), cookieValue(r, "folioRefreshToken")
	if r.statusLine != "HTTP/1.1 201 Created" || access2 == "" {
		t.Fatalf("refresh after expiry: %s %q", r.statusLine, r.body)
	}
	r = do(t, "POST", p.kong+"/authn/refresh", map[string]string{"X-Okapi-Tenant": p.tenant, "Cookie": "folioRefreshToken=" + refresh}, "")
	if r.statusLine != "HTTP/1.1 422 Unprocessable Entity" || r.body != refreshRefused {
		t.Errorf("refresh reuse: %s %q", r.statusLine, r.body)
	}
	// The sidecar goes away: Kong answers 502; back, it verifies the token anew.
	p.stop("sidecar-mod-users")
	if r := get(access2); r.statusLine != "HTTP/1.1 502 Bad Gateway" ||
		!kongJSON.MatchString(r.body) {
		t.Errorf("sidecar down: %s %q", r.statusLine, r.body)
	}
	m, _ := catalog.ByName("mod-users")
	p.restart("sidecar-mod-users", eureka.NewSidecar(eureka.SidecarConfig{Module: m, ModuleURL: p.module["mod-users"],
		SelfURL: p.sidecar["mod-users"], SidecarURL: func(x catalog.Module) string { return p.sidecar[x.Name] },
		KC: p.kc, Verifier: &eureka.Verifier{KC: p.kc}, DB: p.pool}))
	// The refused reuse also ended the session in Keycloak (its client session
	// is revoked: the rotated refresh token is refused too), so a client logs
	// in again; the new sidecar verifies the new token against keys it
	// fetches anew.
	r = do(t, "POST", p.kong+"/authn/refresh", map[string]string{"X-Okapi-Tenant": p.tenant, "Cookie": "folioRefreshToken=" + refresh2}, "")
	if r.statusLine != "HTTP/1.1 422 Unprocessable Entity" {
		t.Errorf("refresh of the rotated token after a refused reuse: %s %q", r.statusLine, r.body)
	}
	access3, _ := p.login()
	if r := get(access3); r.statusLine != "HTTP/1.1 200 OK" {
		t.Errorf("after the sidecar's restart: %s %q", r.statusLine, r.body)
	}
}
