package okapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/credentials"
	"github.com/folio-perf/folio-perf/minifolio/internal/okapi"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

type env struct {
	t          *testing.T
	gw         *httptest.Server
	signer     *okapi.Signer
	backendURL string // the storage backend behind every module
	tenant     string
	userID     string
	tenantB    string
	goneID     string // an inactive user
	pool       *pgxpool.Pool
}

// addUser writes a user and its mod-login credentials, as the seed does.
func addUser(t testing.TB, pool *pgxpool.Pool, tenant, username, password string, active bool) string {
	t.Helper()
	ctx := context.Background()
	id := storage.NewUUID()
	doc := fmt.Sprintf(`{"id":%q,"username":%q,"active":%v,"barcode":%q}`, id, username, active, username+"-bc")
	if err := storage.Insert(ctx, pool, tenant, storage.MustLookup("mod_users", "users"), id, []byte(doc)); err != nil {
		t.Fatal(err)
	}
	rec, err := credentials.New(id, password)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rec)
	if err := storage.Insert(ctx, pool, tenant, storage.MustLookup("mod_login", "auth_credentials"), storage.NewUUID(), b); err != nil {
		t.Fatal(err)
	}
	return id
}

// setup starts a gateway whose mod-inventory-storage is the real storage
// collection handler for service points, on the real PostgreSQL.
func setup(t *testing.T) *env {
	pool := storagetest.Pool(t)
	tenant := storagetest.Tenant(t, pool, "gwa", storage.DDLOptions{})
	tenantB := storagetest.Tenant(t, pool, "gwb", storage.DDLOptions{})
	uid := addUser(t, pool, tenant, "operator", "s3cret", true)
	goneID := addUser(t, pool, tenant, "gone", "s3cret", false)

	mux := http.NewServeMux()
	(&storage.Collection{DB: pool, Table: storage.MustLookup("mod_inventory_storage", "service_point")}).Mount(mux)
	backend := httptest.NewServer(mux)
	t.Cleanup(backend.Close)

	signer, err := okapi.NewSigner([]byte("test-secret-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(okapi.New(okapi.Config{Port: 1, DB: pool, Signer: signer,
		ModuleURL: func(m catalog.Module) string { return backend.URL },
		ModuleIDs: []string{"mod-circulation-23.0.1", "mod-users-18.2.0"}}))
	t.Cleanup(gw.Close)
	return &env{t: t, gw: gw, backendURL: backend.URL, signer: signer, tenant: tenant, userID: uid, tenantB: tenantB, goneID: goneID, pool: pool}
}

// setupGatewayOn is a second gateway on e's database and signing key, with
// an empty user cache.
func setupGatewayOn(t *testing.T, e *env) *env {
	gw := httptest.NewServer(okapi.New(okapi.Config{Port: 1, DB: e.pool, Signer: e.signer,
		ModuleURL: func(m catalog.Module) string { return "http://127.0.0.1:1" }}))
	t.Cleanup(gw.Close)
	e2 := *e
	e2.gw = gw
	return &e2
}

type resp struct {
	code int
	hdr  http.Header
	body string
}

func (e *env) do(method, path, body string, hdr ...string) resp {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.gw.URL+path, strings.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return resp{r.StatusCode, r.Header, string(b)}
}

func (e *env) login() string {
	e.t.Helper()
	r := e.do("POST", "/authn/login", `{"username":"operator","password":"s3cret"}`,
		"X-Okapi-Tenant", e.tenant, "Content-Type", "application/json")
	tok := r.hdr.Get("x-okapi-token")
	if r.code != 201 || tok == "" || !strings.Contains(r.body, `"okapiToken":"`+tok+`"`) {
		e.t.Fatalf("login: %d %v %s", r.code, r.hdr, r.body)
	}
	return tok
}

func cookie(h http.Header, name string) string {
	for _, c := range h.Values("Set-Cookie") {
		if strings.HasPrefix(c, name+"=") {
			v := strings.TrimPrefix(c, name+"=")
			return v[:strings.IndexByte(v, ';')]
		}
	}
	return ""
}

func TestLoginAndProxy(t *testing.T) {
	e := setup(t)
	tok := e.login()
	ten := e.tenant

	// The token reaches the module with the user's id: the storage module
	// stamps metadata.createdByUserId from X-Okapi-User-Id.
	r := e.do("POST", "/service-points", `{"name":"Circ desk 1","code":"cd1","discoveryDisplayName":"Circ 1"}`,
		"X-Okapi-Tenant", ten, "X-Okapi-Token", tok, "Content-Type", "application/json")
	if r.code != 201 || !strings.Contains(r.body, `"createdByUserId":"`+e.userID+`"`) {
		t.Fatalf("proxied POST: %d %s", r.code, r.body)
	}
	// The three token carriers, alone or agreeing, all work.
	for _, h := range [][]string{
		{"X-Okapi-Token", tok},
		{"Authorization", "Bearer " + tok},
		{"Cookie", "folioAccessToken=" + tok},
		{"X-Okapi-Token", tok, "Cookie", "folioAccessToken=" + tok},
	} {
		r := e.do("GET", "/service-points?limit=1000", "", append([]string{"X-Okapi-Tenant", ten}, h...)...)
		if r.code != 200 || !strings.Contains(r.body, `"servicepoints":[{`) || !strings.Contains(r.body, `"totalRecords":1`) {
			t.Errorf("GET with %v: %d %s", h[0], r.code, r.body)
		}
	}
	// Without X-Okapi-Tenant the token's tenant is used (Okapi).
	if r := e.do("GET", "/service-points", "", "X-Okapi-Token", tok); r.code != 200 {
		t.Errorf("tenant from token: %d %s", r.code, r.body)
	}

	expired := e.signer.Sign(okapi.Claims{Type: "access", Tenant: ten, Sub: "operator", UserID: e.userID,
		Iat: time.Now().Add(-time.Hour).Unix(), Exp: time.Now().Add(-time.Minute).Unix()})
	foreign, _ := okapi.NewSigner([]byte("another-secret-0123456789"))
	forged := foreign.Sign(okapi.Claims{Type: "access", Tenant: ten, Sub: "operator", UserID: e.userID,
		Iat: time.Now().Unix(), Exp: time.Now().Add(time.Hour).Unix()})
	// A valid signature for a user who is no longer active (mod-authtoken).
	inactive := e.signer.Sign(okapi.Claims{Type: "access", Tenant: ten, Sub: "gone", UserID: e.goneID,
		Iat: time.Now().Unix(), Exp: time.Now().Add(time.Hour).Unix()})
	cases := []struct {
		name   string
		method string
		path   string
		hdr    []string
		code   int
		body   string
	}{
		{"no token", "GET", "/service-points", []string{"X-Okapi-Tenant", ten}, 400,
			"Token missing, access requires permission: service-points.collection.get"},
		{"expired", "GET", "/service-points", []string{"X-Okapi-Tenant", ten, "X-Okapi-Token", expired}, 401, "Invalid token"},
		{"forged", "GET", "/service-points", []string{"X-Okapi-Tenant", ten, "X-Okapi-Token", forged}, 401, "Invalid token"},
		{"inactive user", "GET", "/service-points", []string{"X-Okapi-Tenant", ten, "X-Okapi-Token", inactive}, 401,
			"Invalid token: user with id " + e.goneID + " is not active"},
		{"garbage", "GET", "/service-points", []string{"X-Okapi-Tenant", ten, "X-Okapi-Token", "abc"}, 401, "Invalid token"},
		{"disagreeing carriers", "GET", "/service-points", []string{"X-Okapi-Tenant", ten, "X-Okapi-Token", tok,
			"Authorization", "Bearer " + expired}, 400, "different tokens"},
		{"tenant A token on tenant B", "GET", "/service-points", []string{"X-Okapi-Tenant", e.tenantB, "X-Okapi-Token", tok}, 403, "Invalid token"},
		{"unknown tenant", "GET", "/service-points", []string{"X-Okapi-Tenant", "nosuch", "X-Okapi-Token", tok}, 400, "No such Tenant nosuch"},
		{"no tenant, no token", "GET", "/service-points", nil, 400, "No such Tenant supertenant"},
		{"unknown path", "GET", "/nothing/here", []string{"X-Okapi-Tenant", ten, "X-Okapi-Token", tok}, 404,
			"No suitable module found for path /nothing/here for tenant " + ten},
	}
	for _, c := range cases {
		r := e.do(c.method, c.path, "", c.hdr...)
		if r.code != c.code || !strings.Contains(r.body, c.body) {
			t.Errorf("%s: %d %q, want %d %q", c.name, r.code, r.body, c.code, c.body)
		}
	}
	// Tenant B's data is not reachable with tenant A's token even by path tricks.
	if r := e.do("GET", "/service-points", "", "X-Okapi-Tenant", e.tenantB, "Authorization", "Bearer "+tok); r.code != 403 {
		t.Errorf("bearer cross-tenant: %d", r.code)
	}
}

func TestLoginErrors(t *testing.T) {
	e := setup(t)
	ct := []string{"X-Okapi-Tenant", e.tenant, "Content-Type", "application/json"}
	for _, c := range []struct {
		body string
		code int
		want string
	}{
		{`{"username":"operator","password":"wrong"}`, 422, `"Password does not match"`},
		{`{"username":"nobody","password":"x"}`, 422, `No user found by username nobody`},
		{`{"username":"gone","password":"s3cret"}`, 422, `User must be flagged as active`},
		{`{"password":"x"}`, 422, `username`},
		{`{"username":`, 400, `Json content error`},
		{`{"username":"` + strings.Repeat("x", storage.MaxBody) + `"}`, 413, `too large`},
		// PostgreSQL cannot hold a NUL (22021): mod-users answers the lookup
		// 400, so mod-login's answer is its failed-lookup 422.
		{`{"username":"oper\u0000ator","password":"s3cret"}`, 422,
			`"Error verifying user existence: Error looking up user at url '`},
		{`{"username":"\u0000","password":"s3cret"}`, 422, `"code":"username.incorrect"`},
	} {
		r := e.do("POST", "/authn/login", c.body, ct...)
		if r.code != c.code || !strings.Contains(r.body, c.want) || r.hdr.Get("x-okapi-token") != "" {
			t.Errorf("%s: %d %s", c.body, r.code, r.body)
		}
	}
	if r := e.do("POST", "/authn/login", `username=operator&password=s3cret`, "X-Okapi-Tenant", e.tenant,
		"Content-Type", "application/x-www-form-urlencoded"); r.code != 400 || !strings.Contains(r.body, "Content-type header must be") {
		t.Errorf("form-encoded login: %d %s", r.code, r.body)
	}
	if r := e.do("POST", "/authn/login", `{"username":"operator","password":"s3cret"}`, "X-Okapi-Tenant", "nosuch"); r.code != 400 || r.body != "No such Tenant nosuch" {
		t.Errorf("unknown tenant login: %d %s", r.code, r.body)
	}
}

func TestRefreshIsSingleUse(t *testing.T) {
	e := setup(t)
	r := e.do("POST", "/authn/login-with-expiry", `{"username":"operator","password":"s3cret"}`,
		"X-Okapi-Tenant", e.tenant, "Content-Type", "application/json")
	access, refresh := cookie(r.hdr, "folioAccessToken"), cookie(r.hdr, "folioRefreshToken")
	var exp struct{ AccessTokenExpiration, RefreshTokenExpiration string }
	_ = json.Unmarshal([]byte(r.body), &exp)
	if r.code != 201 || access == "" || refresh == "" || r.hdr.Get("x-okapi-token") != "" ||
		exp.AccessTokenExpiration == "" || exp.RefreshTokenExpiration <= exp.AccessTokenExpiration {
		t.Fatalf("login-with-expiry: %d %v %s", r.code, r.hdr, r.body)
	}
	if !strings.Contains(strings.Join(r.hdr.Values("Set-Cookie"), "\n"), "Path=/authn; Secure; HttpOnly; SameSite=Lax") {
		t.Errorf("refresh cookie attributes: %v", r.hdr.Values("Set-Cookie"))
	}
	// The access cookie alone authorises a call.
	if r := e.do("GET", "/service-points", "", "X-Okapi-Tenant", e.tenant, "Cookie", "folioAccessToken="+access); r.code != 200 {
		t.Fatalf("cookie auth: %d %s", r.code, r.body)
	}
	r = e.do("POST", "/authn/refresh", "", "X-Okapi-Tenant", e.tenant, "Cookie", "folioRefreshToken="+refresh)
	refresh2 := cookie(r.hdr, "folioRefreshToken")
	if r.code != 201 || cookie(r.hdr, "folioAccessToken") == "" || refresh2 == "" || refresh2 == refresh {
		t.Fatalf("first refresh: %d %v %s", r.code, r.hdr, r.body)
	}
	if r := e.do("POST", "/authn/refresh", "", "X-Okapi-Tenant", e.tenant, "Cookie", "folioRefreshToken="+refresh); r.code != 422 {
		t.Fatalf("second use of a refresh token: %d %s", r.code, r.body)
	}
	// Two concurrent redemptions of one token: exactly one wins.
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = e.do("POST", "/authn/refresh", "", "Cookie", "folioRefreshToken="+refresh2).code
		}()
	}
	wg.Wait()
	won := 0
	for _, c := range codes {
		if c == 201 {
			won++
		} else if c != 422 {
			t.Errorf("concurrent refresh got %d", c)
		}
	}
	if won != 1 {
		t.Fatalf("concurrent refresh: %d winners (%v), want 1", won, codes)
	}
	// Logout revokes the refresh token and clears the cookies.
	r = e.do("POST", "/authn/login-with-expiry", `{"username":"operator","password":"s3cret"}`, "X-Okapi-Tenant", e.tenant)
	refresh3 := cookie(r.hdr, "folioRefreshToken")
	r = e.do("POST", "/authn/logout", "", "X-Okapi-Tenant", e.tenant, "Cookie", "folioRefreshToken="+refresh3)
	if r.code != 204 || !strings.Contains(strings.Join(r.hdr.Values("Set-Cookie"), "\n"), "folioAccessToken=; Path=/; Expires=Thu, 01 Jan 1970") {
		t.Fatalf("logout: %d %v", r.code, r.hdr)
	}
	if r := e.do("POST", "/authn/refresh", "", "Cookie", "folioRefreshToken="+refresh3); r.code != 422 {
		t.Fatalf("refresh after logout: %d", r.code)
	}
	if r := e.do("POST", "/authn/refresh", "", "X-Okapi-Tenant", e.tenant); r.code != 400 {
		t.Fatalf("refresh without cookie: %d", r.code)
	}
}

// A user record whose "active" is not a boolean is not an active user: login
// is refused (not a token) and an existing token stops working.
func TestUserWithAnInvalidActiveFieldIsNotActive(t *testing.T) {
	e := setup(t)
	tok := e.login()
	odd := addUser(t, e.pool, e.tenant, "odd", "s3cret", true)
	for _, id := range []string{odd, e.userID} {
		if _, err := e.pool.Exec(context.Background(), `UPDATE `+e.tenant+`_mod_users.users SET jsonb = jsonb_set(jsonb, '{active}', '"nope"') WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
	}
	r := e.do("POST", "/authn/login", `{"username":"odd","password":"s3cret"}`, "X-Okapi-Tenant", e.tenant, "Content-Type", "application/json")
	if r.code != 422 || !strings.Contains(r.body, "User must be flagged as active") || r.hdr.Get("x-okapi-token") != "" {
		t.Fatalf("login of a user with active \"nope\": %d %s", r.code, r.body)
	}
	// The operator's token, minted before, is refused once the cache expires;
	// a fresh gateway has no cache.
	e2 := setupGatewayOn(t, e)
	if r := e2.do("GET", "/service-points", "", "X-Okapi-Tenant", e.tenant, "X-Okapi-Token", tok); r.code != 401 {
		t.Fatalf("token of a user with active \"nope\": %d %s", r.code, r.body)
	}
}

// rawHeaders sends request as written over a plain TCP connection and returns
// the response's header block exactly as it came off the wire: a Go client
// would canonicalise the names and hide the spelling under test.
func rawHeaders(t *testing.T, baseURL, request string) string {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(baseURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	head, _, ok := strings.Cut(string(b), "\r\n\r\n")
	if !ok {
		t.Fatalf("no header block in %q", b)
	}
	return head + "\r\n"
}

// Header names as FOLIO spells them on the wire, read from the raw bytes.
func TestHeaderNamesAsFolioSpellsThem(t *testing.T) {
	e := setup(t)
	body := `{"username":"operator","password":"s3cret"}`
	login := rawHeaders(t, e.gw.URL, "POST /authn/login HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Okapi-Tenant: "+e.tenant+
		"\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
	// PTF's JMeter plans: Regular Expression Extractor on the response headers.
	m := regexp.MustCompile(`x-okapi-token: (.*)`).FindStringSubmatch(login)
	if !strings.HasPrefix(login, "HTTP/1.1 201") || m == nil || strings.Count(strings.ToLower(login), "x-okapi-token:") != 1 {
		t.Fatalf("login: PTF's regex `x-okapi-token: (.*)` does not match once:\n%s", login)
	}
	if _, err := e.signer.Verify(strings.TrimSpace(m[1]), "access", time.Now()); err != nil {
		t.Errorf("the extracted token is not the access token: %v", err)
	}

}

// CORS answers as Okapi's Vert.x CorsHandler writes them, read from the raw
// bytes: before Okapi 5.0 "*" without credentials, from 5.0 the origin
// echoed with credentials and the extra "Credentials" header name.
func TestCORSAsOkapiWritesIt(t *testing.T) {
	e := setup(t)
	tok := e.login()
	const allow4 = "content-type,X-Okapi-Tenant,X-Okapi-Token,Authorization,X-Okapi-Request-Id,X-Okapi-Module-Id"
	const expose4 = "location,X-Okapi-Trace,X-Okapi-Token,Authorization,X-Okapi-Request-Id,X-Okapi-Module-Id"
	for _, c := range []struct {
		okapi         string
		pre, get, not []string
	}{
		{"okapi-4.13.2",
			[]string{"HTTP/1.1 204", "\r\naccess-control-allow-origin: *\r\n", "\r\naccess-control-allow-methods: PUT,PATCH,DELETE,GET,POST\r\n",
				"\r\naccess-control-allow-headers: " + allow4 + "\r\n", "\r\naccess-control-max-age: 7200\r\n", "\r\ncontent-length: 0\r\n"},
			[]string{"HTTP/1.1 200", "\r\nvary: origin\r\n", "\r\naccess-control-allow-origin: *\r\n", "\r\naccess-control-expose-headers: " + expose4 + "\r\n"},
			[]string{"credentials: true", "Credentials"}},
		{"okapi-5.0.1",
			[]string{"HTTP/1.1 204", "\r\naccess-control-allow-origin: http://localhost\r\n", "\r\naccess-control-allow-credentials: true\r\n",
				"\r\naccess-control-allow-methods: PUT,PATCH,DELETE,GET,POST\r\n", "\r\naccess-control-allow-headers: " + allow4 + ",Credentials\r\n",
				"\r\naccess-control-max-age: 7200\r\n"},
			[]string{"HTTP/1.1 200", "\r\nvary: origin\r\n", "\r\naccess-control-allow-origin: http://localhost\r\n", "\r\naccess-control-allow-credentials: true\r\n",
				"\r\naccess-control-expose-headers: " + expose4 + ",Credentials\r\n"},
			[]string{"Access-Control-"}},
	} {
		gw := httptest.NewServer(okapi.New(okapi.Config{Port: 1, DB: e.pool, Signer: e.signer,
			ModuleURL: func(catalog.Module) string { return e.backendURL }, ModuleIDs: []string{c.okapi, "mod-users-19.1.1"}}))
		pre := rawHeaders(t, gw.URL, "OPTIONS /circulation/check-out-by-barcode HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"+
			"Origin: http://localhost\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type,x-okapi-foo\r\n\r\n")
		get := rawHeaders(t, gw.URL, "GET /service-points HTTP/1.1\r\nHost: x\r\nConnection: close\r\nOrigin: http://localhost\r\n"+
			"X-Okapi-Tenant: "+e.tenant+"\r\nX-Okapi-Token: "+tok+"\r\n\r\n")
		plain := rawHeaders(t, gw.URL, "GET /service-points HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"+
			"X-Okapi-Tenant: "+e.tenant+"\r\nX-Okapi-Token: "+tok+"\r\n\r\n")
		gw.Close()
		for _, w := range c.pre {
			if !strings.Contains(pre, w) {
				t.Errorf("%s preflight lacks %q:\n%s", c.okapi, w, pre)
			}
		}
		for _, w := range c.get {
			if !strings.Contains(get, w) {
				t.Errorf("%s GET with Origin lacks %q:\n%s", c.okapi, w, get)
			}
		}
		for _, w := range c.not {
			if strings.Contains(pre, w) || strings.Contains(get, w) {
				t.Errorf("%s: %q must not appear:\n%s\n%s", c.okapi, w, pre, get)
			}
		}
		if strings.Count(get, "access-control-allow-origin:") != 1 {
			t.Errorf("%s: one allow-origin header wanted:\n%s", c.okapi, get)
		}
		if !strings.HasPrefix(plain, "HTTP/1.1 200") || strings.Contains(strings.ToLower(plain), "access-control-") || strings.Contains(plain, "vary:") {
			t.Errorf("%s: a request without Origin gets no CORS headers:\n%s", c.okapi, plain)
		}
	}
}

// Okapi's module list: no token needed, Okapi's pretty layout, 404 for a
// tenant that does not exist.
func TestTenantModuleList(t *testing.T) {
	e := setup(t)
	r := e.do("GET", "/_/proxy/tenants/"+e.tenant+"/modules", "")
	want := "[ {\n  \"id\" : \"mod-circulation-23.0.1\"\n}, {\n  \"id\" : \"mod-users-18.2.0\"\n} ]"
	if r.code != 200 || r.body != want || r.hdr.Get("Content-Type") != "application/json" {
		t.Fatalf("module list: %d %q %q, want %q", r.code, r.hdr.Get("Content-Type"), r.body, want)
	}
	if r := e.do("GET", "/_/proxy/tenants/nosuch/modules", ""); r.code != 404 {
		t.Errorf("unknown tenant: %d %s", r.code, r.body)
	}
}

// Login errors follow the profile's mod-login: up to 7.13.0 one message per
// cause, from 7.13.1 (MODLOGIN-164) one message for all of them.
func TestLoginErrorsFollowTheModLoginVersion(t *testing.T) {
	e := setup(t)
	for _, c := range []struct {
		login, message, code string
	}{
		{"mod-login-7.13.0", "Password does not match", "password.incorrect"},
		{"mod-login-7.13.1", "Wrong username or wrong password or account blocked", "wrong.username.or.wrong.password.or.account.blocked"},
		{"mod-login-8.0.0", "Wrong username or wrong password or account blocked", "wrong.username.or.wrong.password.or.account.blocked"},
	} {
		gw := httptest.NewServer(okapi.New(okapi.Config{Port: 1, DB: e.pool, Signer: e.signer,
			ModuleURL: func(m catalog.Module) string { return "http://127.0.0.1:1" }, ModuleIDs: []string{c.login, "mod-users-19.1.1"}}))
		e2 := *e
		e2.gw = gw
		r := e2.do("POST", "/authn/login", `{"username":"operator","password":"wrong"}`, "X-Okapi-Tenant", e.tenant, "Content-Type", "application/json")
		var body struct {
			Errors []struct{ Message, Code string } `json:"errors"`
		}
		if err := json.Unmarshal([]byte(r.body), &body); err != nil || r.code != 422 || len(body.Errors) != 1 ||
			body.Errors[0].Message != c.message || body.Errors[0].Code != c.code {
			t.Errorf("%s, wrong password: %d %s, want %q / %s", c.login, r.code, r.body, c.message, c.code)
		}
		if c.login != "mod-login-7.13.0" {
			for _, u := range []string{`{"username":"nobody","password":"x"}`, `{"username":"gone","password":"s3cret"}`,
				`{"username":"oper\u0000ator","password":"s3cret"}`} {
				if r := e2.do("POST", "/authn/login", u, "X-Okapi-Tenant", e.tenant, "Content-Type", "application/json"); r.code != 422 ||
					!strings.Contains(r.body, c.message) {
					t.Errorf("%s, %s: %d %s, want %q", c.login, u, r.code, r.body, c.message)
				}
			}
		}
		gw.Close()
	}
}
