package eureka_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/modules"
)

// The bytes of mod-login-keycloak's answers, through Kong and the sidecar,
// with tokens from the real Keycloak: status line, body text, Set-Cookie
// attributes as Spring's ResponseCookie writes them.
var (
	accessCookie  = regexp.MustCompile(`^folioAccessToken=(eyJ[\w-]+\.[\w-]+\.[\w-]+); Path=/; Max-Age=(\d+); Expires=(\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT); Secure; HttpOnly; SameSite=None$`)
	refreshCookie = regexp.MustCompile(`^folioRefreshToken=(eyJ[\w-]+\.[\w-]+\.[\w-]+); Path=/authn; Max-Age=(\d+); Expires=(\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT); Secure; HttpOnly; SameSite=None$`)
	expiryBody    = regexp.MustCompile(`^\{"accessTokenExpiration":"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z","refreshTokenExpiration":"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"\}$`)
)

const (
	unauthorizedLogin = `{"errors":[{"message":"Unauthorized error","type":"UnauthorizedException","code":"unauthorized_error"}],"total_records":1}`
	refreshRefused    = `{"errors":[{"message":"Authorization server unable to process token refresh request","type":"TokenRefreshException","code":"token.refresh.unprocessable"}],"total_records":1}`
	noRefreshCookie   = `{"errors":[{"message":"Required cookie 'folioRefreshToken' for method parameter type String is not present","type":"MissingRequestCookieException","code":"validation_error"}],"total_records":1}`
	sidecar401        = `{"errors":[{"type":"UnauthorizedException","code":"authorization_error","message":"Unauthorized"}],"total_records":1}`
	sidecar403        = `{"errors":[{"type":"ForbiddenException","code":"authorization_error","message":"Access Denied"}],"total_records":1}`
)

func loginBody(user, pw string) string { return fmt.Sprintf(`{"username":%q,"password":%q}`, user, pw) }

func TestLoginWithExpiryAnswersWithCookies(t *testing.T) {
	p := sharedPlatform(t, "sunflower")
	// Seconds as Keycloak and minifolio count them (truncated): whatever they
	// read of the clock during the login lies between these two.
	before := time.Now().Unix()
	r := do(t, "POST", p.kong+"/authn/login-with-expiry", map[string]string{"X-Okapi-Tenant": p.tenant,
		"Content-Type": "application/json"}, loginBody(p.operator.name, p.operator.password))
	after := time.Now().Unix()
	if r.statusLine != "HTTP/1.1 201 Created" || !expiryBody.MatchString(r.body) {
		t.Fatalf("login-with-expiry: %s %q", r.statusLine, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want Spring's application/json", ct)
	}
	if r.header.Get("X-Okapi-Token") != "" {
		t.Errorf("login-with-expiry sent an X-Okapi-Token header")
	}
	cookies := r.header.Values("Set-Cookie")
	if len(cookies) != 2 {
		t.Fatalf("Set-Cookie %q, want two", cookies)
	}
	a, rf := accessCookie.FindStringSubmatch(cookies[0]), refreshCookie.FindStringSubmatch(cookies[1])
	if a == nil || rf == nil {
		t.Fatalf("cookies not as mod-login-keycloak writes them:\n%s\n%s", cookies[0], cookies[1])
	}
	// mgr-tenants' realm: access tokens live 600 s, the SSO session this
	// login started 86,400 s. Max-Age is what Keycloak answered (expires_in,
	// refresh_expires_in): the token's exp less the second Keycloak answered
	// in, 600 or 599 then as a second passes. So each is checked against the
	// token's own exp and iat and the seconds the login took, never a constant.
	for _, c := range []struct {
		name     string
		m        []string
		lifespan int64
	}{{"access", a, 600}, {"refresh", rf, 86400}} {
		tok := payload(t, c.m[1])
		exp, iat := int64(tok["exp"].(float64)), int64(tok["iat"].(float64))
		maxAge, _ := strconv.ParseInt(c.m[2], 10, 64)
		expires, err := time.Parse(http.TimeFormat, c.m[3])
		if err != nil {
			t.Fatal(err)
		}
		if from := exp - c.lifespan; from < before || from > after || iat < before || iat > after {
			t.Errorf("%s token: exp %d, iat %d: want %d s issued within the login, between %d and %d", c.name, exp, iat, c.lifespan, before, after)
		}
		if maxAge < exp-after || maxAge > exp-iat {
			t.Errorf("%s cookie Max-Age %d: want the token's time left when answered, %d to %d", c.name, maxAge, exp-after, exp-iat)
		}
		if at := expires.Unix() - maxAge; at < before || at > after {
			t.Errorf("%s cookie Expires %s is not the answer's time + Max-Age %d", c.name, c.m[3], maxAge)
		}
	}
	claims := payload(t, a[1])
	if claims["iss"] != p.kc.Issuer(p.tenant) || claims["user_id"] != p.operator.id {
		t.Errorf("token claims iss %v user_id %v", claims["iss"], claims["user_id"])
	}
	head := header(t, a[1])
	if head["alg"] != "RS256" || head["kid"] == "" {
		t.Errorf("token header %v, want RS256 with a kid", head)
	}
	exp := time.Unix(int64(claims["exp"].(float64)), 0).UTC().Format("2006-01-02T15:04:05Z")
	if !strings.Contains(r.body, `"accessTokenExpiration":"`+exp+`"`) {
		t.Errorf("body %s does not carry the token's exp %s", r.body, exp)
	}
}

func TestLegacyLoginBodyAndNoTokenHeader(t *testing.T) {
	p := sharedPlatform(t, "sunflower")
	r := do(t, "POST", p.kong+"/authn/login", map[string]string{"X-Okapi-Tenant": p.tenant,
		"Content-Type": "application/json"}, loginBody(p.operator.name, p.operator.password))
	if r.statusLine != "HTTP/1.1 201 Created" ||
		!regexp.MustCompile(`^\{"okapiToken":"eyJ[\w.-]+","refreshToken":"eyJ[\w.-]+"\}$`).MatchString(r.body) {
		t.Fatalf("legacy login: %s %q", r.statusLine, r.body)
	}
	for _, n := range r.names {
		if strings.EqualFold(n, "x-okapi-token") {
			t.Errorf("legacy login sent %s without X_OKAPI_TOKEN_HEADER_ENABLED", n)
		}
	}
	if len(r.header.Values("Set-Cookie")) != 2 {
		t.Errorf("legacy login cookies: %q", r.header.Values("Set-Cookie"))
	}
}

func TestWrongPasswordIs401WithoutCookies(t *testing.T) {
	p := sharedPlatform(t, "sunflower")
	p.login() // the account exists in Keycloak from now on
	for _, body := range []string{loginBody(p.operator.name, "wrong"), loginBody("nobody_here", "x")} {
		r := do(t, "POST", p.kong+"/authn/login-with-expiry", map[string]string{"X-Okapi-Tenant": p.tenant,
			"Content-Type": "application/json"}, body)
		if r.statusLine != "HTTP/1.1 401 Unauthorized" || r.body != unauthorizedLogin {
			t.Errorf("%s: %s %q", body, r.statusLine, r.body)
		}
		if c := r.header.Values("Set-Cookie"); len(c) != 0 {
			t.Errorf("failed login set cookies %q", c)
		}
	}
}

func TestRefreshRotatesAndRefusesReuse(t *testing.T) {
	p := sharedPlatform(t, "sunflower")
	_, refresh := p.login()
	hdr := map[string]string{"X-Okapi-Tenant": p.tenant, "Cookie": "folioRefreshToken=" + refresh}
	r := do(t, "POST", p.kong+"/authn/refresh", hdr, "")
	if r.statusLine != "HTTP/1.1 201 Created" || !expiryBody.MatchString(r.body) {
		t.Fatalf("refresh: %s %q", r.statusLine, r.body)
	}
	c := r.header.Values("Set-Cookie")
	if len(c) != 2 || !accessCookie.MatchString(c[0]) || !refreshCookie.MatchString(c[1]) {
		t.Fatalf("refresh cookies %q", c)
	}
	if cookieValue(r, "folioRefreshToken") == refresh {
		t.Errorf("refresh returned the same refresh token")
	}
	// Keycloak's realm: refresh tokens revoked on use, max reuse 0.
	r = do(t, "POST", p.kong+"/authn/refresh", hdr, "")
	if r.statusLine != "HTTP/1.1 422 Unprocessable Entity" || r.body != refreshRefused {
		t.Errorf("reused refresh token: %s %q", r.statusLine, r.body)
	}
	r = do(t, "POST", p.kong+"/authn/refresh", map[string]string{"X-Okapi-Tenant": p.tenant}, "")
	if r.statusLine != "HTTP/1.1 400 Bad Request" || r.body != noRefreshCookie {
		t.Errorf("refresh without cookie: %s %q", r.statusLine, r.body)
	}
}

func TestLogoutEmptiesCookies(t *testing.T) {
	p := sharedPlatform(t, "sunflower")
	access, refresh := p.login()
	r := do(t, "POST", p.kong+"/authn/logout", map[string]string{"X-Okapi-Tenant": p.tenant,
		"Cookie": "folioAccessToken=" + access + "; folioRefreshToken=" + refresh}, "")
	want := []string{
		"folioAccessToken=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure; HttpOnly; SameSite=None",
		"folioRefreshToken=; Path=/authn; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure; HttpOnly; SameSite=None",
	}
	if r.statusLine != "HTTP/1.1 204 No Content" || strings.Join(r.header.Values("Set-Cookie"), "\n") != strings.Join(want, "\n") {
		t.Fatalf("logout: %s %q", r.statusLine, r.header.Values("Set-Cookie"))
	}
	// The session is over: its refresh token is refused.
	r = do(t, "POST", p.kong+"/authn/refresh", map[string]string{"X-Okapi-Tenant": p.tenant,
		"Cookie": "folioRefreshToken=" + refresh}, "")
	if r.statusLine != "HTTP/1.1 422 Unprocessable Entity" {
		t.Errorf("refresh after logout: %s %q", r.statusLine, r.body)
	}
	// logout-all ends every session of the token's user.
	access, refresh = p.login()
	r = do(t, "POST", p.kong+"/authn/logout-all", map[string]string{"X-Okapi-Tenant": p.tenant,
		"Cookie": "folioAccessToken=" + access}, "")
	if r.statusLine != "HTTP/1.1 204 No Content" || len(r.header.Values("Set-Cookie")) != 2 {
		t.Fatalf("logout-all: %s %q %q", r.statusLine, r.header.Values("Set-Cookie"), r.body)
	}
	r = do(t, "POST", p.kong+"/authn/refresh", map[string]string{"X-Okapi-Tenant": p.tenant,
		"Cookie": "folioRefreshToken=" + refresh}, "")
	if r.statusLine != "HTTP/1.1 422 Unprocessable Entity" {
		t.Errorf("refresh after logout-all: %s %q", r.statusLine, r.body)
	}
}

// With X_OKAPI_TOKEN_HEADER_ENABLED=true the legacy login also sends the
// access token as a header, spelt x-okapi-token as folio-spring's
// XOkapiHeaders.TOKEN (the module itself, as its sidecar passes it through).
func TestLegacyLoginTokenHeaderWhenEnabled(t *testing.T) {
	p := sharedPlatform(t, "sunflower")
	h, err := modules.Handler(modules.Config{Name: "mod-login-keycloak", Profile: "sunflower", Keycloak: p.kc,
		TokenHeader: true}, p.pool, p.prof)
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(h)
	defer s.Close()
	r := do(t, "POST", s.URL+"/authn/login", map[string]string{"X-Okapi-Tenant": p.tenant,
		"Content-Type": "application/json"}, loginBody(p.operator.name, p.operator.password))
	if r.statusLine != "HTTP/1.1 201 Created" {
		t.Fatalf("legacy login: %s %q", r.statusLine, r.body)
	}
	var spelled string
	for _, n := range r.names {
		if strings.EqualFold(n, "x-okapi-token") {
			spelled = n
		}
	}
	if spelled != "x-okapi-token" || !strings.Contains(r.body, `"okapiToken":"`+r.header.Get("x-okapi-token")+`"`) {
		t.Errorf("token header %q (%q), body %s", spelled, r.header.Get("x-okapi-token"), r.body)
	}
}
