package modules

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/okapi"
	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
	"github.com/folio-perf/folio-perf/minifolio/internal/seed"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// seededGateway is a seeded tenant behind the real Okapi gateway with every
// module on its own server; call sends one request through the gateway.
func seededGateway(t *testing.T) (pool *pgxpool.Pool, tenant string, call func(method, path, token string, body any) (int, string), gwURL string) {
	t.Helper()
	ctx := context.Background()
	pool, err := storage.Open(ctx, storagetest.DSN(t), 24)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	tenant = storagetest.TenantName("modgw")
	if _, err := seed.Run(ctx, pool, seed.Options{Tenant: tenant, AdminUser: "folio_admin", AdminPassword: "admin",
		Items: 40, Users: 10, Loans: 3}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { storage.DropTenant(context.Background(), pool, tenant) })

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	gwURL = fmt.Sprintf("http://127.0.0.1:%d", port)
	prof, _ := profile.Load("../../profiles", "fast")
	urls := map[string]string{}
	for _, m := range catalog.Modules {
		h, err := Handler(Config{Name: m.Name, OkapiURL: gwURL, Profile: "fast"}, pool, prof)
		if err != nil {
			t.Fatal(err)
		}
		s := httptest.NewServer(h)
		t.Cleanup(s.Close)
		urls[m.Name] = s.URL
	}
	signer, err := okapi.NewSigner([]byte("modules-test-secret-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	gw := &http.Server{Handler: okapi.New(okapi.Config{Port: port, DB: pool, Signer: signer,
		ModuleURL: func(m catalog.Module) string { return urls[m.Name] }})}
	go gw.Serve(ln)
	t.Cleanup(func() { gw.Close() })

	call = func(method, path, token string, body any) (int, string) {
		t.Helper()
		var rd io.Reader
		expect := false
		switch b := body.(type) {
		case nil:
		case expectContinue:
			rd, expect = b.Reader, true
		case io.Reader:
			rd = b
		default:
			j, _ := json.Marshal(b)
			rd = strings.NewReader(string(j))
		}
		req, _ := http.NewRequest(method, gwURL+path, rd)
		req.Header.Set("X-Okapi-Tenant", tenant)
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("X-Okapi-Token", token)
		}
		if expect {
			req.Header.Set("Expect", "100-continue")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if strings.HasPrefix(path, "/authn/login") {
			return resp.StatusCode, resp.Header.Get("X-Okapi-Token")
		}
		return resp.StatusCode, string(b)
	}
	return pool, tenant, call, gwURL
}

// expectContinue is a body that call sends with "Expect: 100-continue", as
// curl does for any body over 1 MB.
type expectContinue struct{ io.Reader }

// The whole path a load test takes: `minifolio seed`'s data, the real Okapi
// gateway (login, token, routing, X-Okapi-Url/User-Id), every module, and
// module-to-module calls back through the gateway with the caller's token.
func TestCICOThroughTheGatewayOnASeededTenant(t *testing.T) {
	ctx := context.Background()
	pool, tenant, call, _ := seededGateway(t)
	st, token := call("POST", "/authn/login", "", map[string]string{"username": "folio_admin", "password": "admin"})
	if st != 201 || token == "" {
		t.Fatalf("login: %d", st)
	}
	st, body := call("GET", "/service-points?limit=1000", token, nil)
	var sps struct {
		Servicepoints []obj `json:"servicepoints"`
	}
	if json.Unmarshal([]byte(body), &sps); st != 200 || len(sps.Servicepoints) < 2 {
		t.Fatalf("service points: %d %s", st, body)
	}
	sp := str(sps.Servicepoints[0], "id")
	out := func(item, user string) (int, string) {
		return call("POST", "/circulation/check-out-by-barcode", token, map[string]any{"itemBarcode": item, "userBarcode": user,
			"servicePointId": sp, "loanDate": time.Now().UTC().Format(time.RFC3339), "id": newUUID()})
	}
	in := func(item string) (int, string) {
		return call("POST", "/circulation/check-in-by-barcode", token, map[string]any{"itemBarcode": item,
			"servicePointId": sp, "checkInDate": time.Now().UTC().Format(time.RFC3339), "id": newUUID()})
	}

	// items 0..2 carry the seed's open loans; 10 is Available
	free, user := seed.ItemBarcode(10), seed.UserBarcode(1)
	if st, body := out(free, user); st != 201 || !strings.Contains(body, "\"status\" : {\n    \"name\" : \"Open\"\n  }") {
		t.Fatalf("check-out through the gateway: %d %s", st, body)
	}
	if st, body := out(free, seed.UserBarcode(2)); st != 422 || !strings.Contains(body, "Item is already checked out") {
		t.Fatalf("second check-out: %d %s", st, body)
	}
	if st, body := out(seed.ItemBarcode(0), user); st != 422 || !strings.Contains(body, "Item is already checked out") {
		t.Fatalf("check-out of a seeded loan's item: %d %s", st, body)
	}
	for _, c := range []struct{ user, item, msg string }{
		{seed.InactiveUserBarcode(0), seed.ItemBarcode(11), "Cannot check out to inactive user"},
		{seed.BlockedUserBarcode(0), seed.ItemBarcode(11), "Patron blocked from borrowing"},
		{"no-such-user", seed.ItemBarcode(11), "Could not find user with matching barcode"},
	} {
		if st, body := out(c.item, c.user); st != 422 || !strings.Contains(body, c.msg) {
			t.Errorf("check-out %s/%s: %d %s, want 422 %q", c.user, c.item, st, body, c.msg)
		}
	}
	// check-in of the seeded loan: the loan comes back closed, by the
	// operator's service point, with the staff member from the token
	st, body = in(seed.ItemBarcode(0))
	if st != 200 || !strings.Contains(body, `"action" : "checkedin"`) || !strings.Contains(body, `"staffSlipContext"`) {
		t.Fatalf("check-in of a seeded loan: %d %s", st, body)
	}
	if st, body := in(free); st != 200 || !strings.Contains(body, `"loan"`) {
		t.Fatalf("check-in: %d %s", st, body)
	}
	if st, body := in(free); st != 200 || strings.Contains(body, `"loan"`) {
		t.Fatalf("check-in without a loan: %d %s", st, body)
	}
	var staff string
	pool.QueryRow(ctx, `SELECT jsonb->'lastCheckIn'->>'staffMemberId' FROM `+tenant+`_mod_inventory_storage.item WHERE jsonb->>'barcode' = $1`, free).Scan(&staff)
	var admin string
	pool.QueryRow(ctx, `SELECT id::text FROM `+tenant+`_mod_users.users WHERE jsonb->>'username' = 'folio_admin'`).Scan(&admin)
	if staff == "" || staff != admin {
		t.Fatalf("lastCheckIn.staffMemberId %q, want the logged-in operator %q", staff, admin)
	}
	// a module never answers without the gateway's token checks
	if st, _ := call("POST", "/circulation/check-in-by-barcode", "", map[string]any{"itemBarcode": free}); st != 400 {
		t.Fatalf("no token: %d, want 400", st)
	}
}

// A storage module's 200 that is not a page (truncated, not JSON, the wrong
// shape) is a 500 naming the storage path, never an empty page that the
// caller would take for "no such item".
func TestStoragePageRejectsAnInvalidPage(t *testing.T) {
	pool, tenant, _ := newTenant(t)
	bodies := []struct{ name, body string }{
		{"truncated", `{"items": [{"id": "x"}`},
		{"not JSON", `<html>oops</html>`},
		{"wrong shape", `{"items": "none", "totalRecords": 0}`},
		{"no totalRecords", `{"items": []}`},
		{"no collection", `{"totalRecords": 3}`},
	}
	for _, b := range bodies {
		t.Run(b.name, func(t *testing.T) {
			e := newEnvWrapped(t, pool, tenant, "fast", func(module string, h http.Handler) http.Handler {
				if module != "mod-inventory-storage" {
					return h
				}
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodGet && r.URL.Path == "/item-storage/items" {
						w.Header().Set("Content-Type", "application/json")
						io.WriteString(w, b.body)
						return
					}
					h.ServeHTTP(w, r)
				})
			})
			res := e.do("GET", "/inventory/items?query=barcode%3D%3Dit-000", nil)
			if res.status != http.StatusInternalServerError || !strings.Contains(string(res.body), "/item-storage/items") {
				t.Fatalf("storage answered 200 %q: got %d %s, want 500 naming the storage path", b.body, res.status, res.body)
			}
		})
	}
	// The same route with the real storage module still pages.
	e := newEnv(t, pool, tenant, "fast")
	if res := e.do("GET", "/inventory/items?query=barcode%3D%3Dit-000", nil); res.status != http.StatusOK || res.json(t)["totalRecords"] != float64(1) {
		t.Fatalf("real storage: %d %s", res.status, res.body)
	}
}

// A NUL byte in a query or a barcode is the client's mistake, never a 500:
// PostgreSQL cannot store or compare it (SQLSTATE 22021/22P05), so storage
// refuses the query with 400 as RMB does for bad CQL, and the business modules
// answer their own "not found" for a barcode nobody can have.
func TestNULByteIsAClientError(t *testing.T) {
	pool, tenant, f := newTenant(t)
	e := newEnv(t, pool, tenant, "fast")
	gets := []string{
		"/users?query=barcode%3D%3Da%00b", "/groups?query=group%3D%3D%00", "/proxiesfor?query=userId%3D%3D%00",
		"/item-storage/items?query=barcode%3D%3D%00", "/holdings-storage/holdings?query=id%3D%3D%00",
		"/instance-storage/instances?query=title%3D%00", "/service-points?query=name%3D%3D%00",
		"/service-points-users?query=userId%3D%3D%00", "/locations?query=name%3D%3D%00", "/material-types?query=name%3D%00",
		"/loan-types?query=name%3D%00", "/loan-storage/loans?query=itemId%3D%3D%00", "/request-storage/requests?query=itemId%3D%3D%00",
		"/loan-policy-storage/loan-policies?query=name%3D%00", "/accounts?query=userId%3D%3D%00", "/manualblocks?query=userId%3D%3D%00",
		"/feefines?query=feeFineType%3D%00", "/notes?query=title%3D%00", "/patron-block-conditions?query=name%3D%00",
		"/patron-block-limits?query=patronGroupId%3D%3D%00", "/configurations/entries?query=module%3D%3D%00",
		"/inventory/items?query=barcode%3D%3D%00", "/circulation/loans?query=itemId%3D%3D%00", "/circulation/requests?query=itemId%3D%3D%00",
		"/users?query=barcode%3D%3Dx%20sortBy%20%00", "/note-links/domain/users/type/user/id/%00",
	}
	for _, g := range gets {
		if r := e.do("GET", g, nil); r.status != http.StatusBadRequest {
			t.Errorf("GET %s: %d %.120q, want 400", g, r.status, r.body)
		}
	}
	if r := e.do("GET", "/users?query=barcode%3D%3Da%00b", nil); !strings.Contains(string(r.body), "NUL character") {
		t.Errorf("the 400 does not name the cause: %q", r.body)
	}
	posts := []struct {
		path string
		body any
		want int
		msg  string
	}{
		{"/circulation/check-out-by-barcode", checkOutBody(f, "it-0\x0020", "u-020"), 422, "No item with barcode"},
		{"/circulation/check-out-by-barcode", checkOutBody(f, "it-020", "u-\x00020"), 422, "Could not find user with matching barcode"},
		{"/circulation/check-in-by-barcode", map[string]any{"servicePointId": f.sp1, "checkInDate": "2026-11-22T11:00:00Z", "itemBarcode": "a\x00b"}, 422, "No item with barcode"},
		{"/users", map[string]any{"username": "a\x00b", "active": true}, 400, "Unicode"},
		{"/item-storage/items", map[string]any{"barcode": "a\x00b", "holdingsRecordId": f.holdings, "status": map[string]any{"name": "Available"},
			"materialTypeId": newUUID(), "permanentLoanTypeId": newUUID()}, 400, "Unicode"},
	}
	for _, p := range posts {
		if r := e.do("POST", p.path, p.body); r.status != p.want || !strings.Contains(string(r.body), p.msg) {
			t.Errorf("POST %s %v: %d %.160q, want %d with %q", p.path, p.body, r.status, r.body, p.want, p.msg)
		}
	}
	// The refused check-out changed nothing: it-020 is still Available.
	var status string
	pool.QueryRow(t.Context(), `SELECT jsonb->'status'->>'name' FROM `+tenant+`_mod_inventory_storage.item WHERE jsonb->>'barcode' = 'it-020'`).Scan(&status)
	if status != "Available" {
		t.Errorf("it-020 is %q after refused check-outs", status)
	}
}

// cqlString's stand-in for a value with a NUL matches nothing, alone and
// joined with and on either side, and leaves every other value as it was.
func TestCQLStringOfANULMatchesNothing(t *testing.T) {
	for _, q := range []string{"barcode==" + cqlString("a\x00"), "barcode==" + cqlString("\x00") + ` and status.name=="Available"`,
		`status.name=="Available" and barcode==` + cqlString("x\x00y")} {
		if strings.IndexByte(q, 0) >= 0 || !strings.Contains(q, "not cql.allRecords=1") {
			t.Errorf("%q still carries the NUL or lacks the never-true clause", q)
		}
	}
	if got := cqlString(`it-"1"*`); got != `"it-\"1\"\*"` {
		t.Errorf("cqlString of an ordinary barcode: %s", got)
	}
}

// A body too large for the module is a 413 through the gateway every time,
// whether its size is declared (Content-Length) or not (chunked): the module
// stops reading at its limit and closes the connection, and a gateway that
// forwarded the rest lost the module's 413 to a reset connection (a 500
// "Connection to module failed") now and then.
func TestTooLargeBodyIs413ThroughTheGateway(t *testing.T) {
	_, _, call, _ := seededGateway(t)
	st, token := call("POST", "/authn/login", "", map[string]string{"username": "folio_admin", "password": "admin"})
	if st != 201 {
		t.Fatalf("login: %d", st)
	}
	big := func(n int) string { return `{"itemBarcode":"` + strings.Repeat("x", n) + `"}` }
	cases := []struct {
		name, path string
		body       func() io.Reader
	}{
		{"10 MB check-out", "/circulation/check-out-by-barcode", func() io.Reader { return strings.NewReader(big(10 << 20)) }},
		{"10 MB chunked check-in", "/circulation/check-in-by-barcode", func() io.Reader { return io.MultiReader(strings.NewReader(big(10 << 20))) }},
		{"2 MB check-out (over the module's 1 MiB)", "/circulation/check-out-by-barcode", func() io.Reader { return strings.NewReader(big(2 << 20)) }},
		{"10 MB check-out, Expect: 100-continue (curl)", "/circulation/check-out-by-barcode", func() io.Reader {
			return expectContinue{strings.NewReader(big(10 << 20))}
		}},
		{"10 MB item", "/item-storage/items", func() io.Reader { return strings.NewReader(big(10 << 20)) }},
		{"10 MB chunked user", "/users", func() io.Reader { return io.MultiReader(strings.NewReader(big(10 << 20))) }},
	}
	for _, c := range cases {
		for i := 0; i < 8; i++ {
			if st, body := call("POST", c.path, token, c.body()); st != http.StatusRequestEntityTooLarge {
				t.Fatalf("%s, attempt %d: %d %.200s, want 413", c.name, i+1, st, body)
			}
		}
	}
	// The gateway still serves ordinary bodies after refusing the big ones.
	if st, body := call("POST", "/circulation/check-out-by-barcode", token, map[string]any{"itemBarcode": "nope", "userBarcode": "nope",
		"servicePointId": newUUID()}); st != 422 {
		t.Fatalf("ordinary check-out after the big ones: %d %s", st, body)
	}
}

// Each module's answers in its own layout and content type, as clients that
// match the body text see them: mod-circulation and mod-inventory through
// Vert.x's Json.encodePrettily with "application/json; charset=utf-8", the RMB
// modules (mod-inventory-storage, mod-login) compact with "application/json".
func TestAnswersInEachModulesLayout(t *testing.T) {
	_, tenant, call, gwURL := seededGateway(t)
	_, token := call("POST", "/authn/login", "", map[string]string{"username": "folio_admin", "password": "admin"})
	get := func(method, path, body string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest(method, gwURL+path, strings.NewReader(body))
		req.Header.Set("X-Okapi-Tenant", tenant)
		req.Header.Set("X-Okapi-Token", token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	st, ct, body := get("GET", "/service-points?limit=1", "")
	if st != 200 || ct != "application/json" || !strings.HasPrefix(body, `{"servicepoints":[{"`) ||
		strings.Contains(body, `": `) || strings.Contains(body, `, "`) {
		t.Fatalf("RMB storage answer: %d %q, want compact Jackson: %s", st, ct, body)
	}
	var sps struct {
		Servicepoints []obj `json:"servicepoints"`
	}
	_ = json.Unmarshal([]byte(body), &sps)
	sp := str(sps.Servicepoints[0], "id")
	checkOut := fmt.Sprintf(`{"itemBarcode":%q,"userBarcode":%q,"servicePointId":%q}`, seed.ItemBarcode(12), seed.UserBarcode(1), sp)
	st, ct, body = get("POST", "/circulation/check-out-by-barcode", checkOut)
	// PTF's check-out assertion is the text `"id" : `.
	if st != 201 || ct != "application/json; charset=utf-8" || !strings.HasPrefix(body, "{\n  \"") ||
		!strings.Contains(body, "\n  \"id\" : \"") || strings.HasSuffix(body, "\n") {
		t.Fatalf("check-out: %d %q, want Vert.x's encodePrettily: %s", st, ct, body)
	}
	st, ct, body = get("POST", "/circulation/check-out-by-barcode", checkOut)
	if st != 422 || ct != "application/json; charset=utf-8" || !strings.HasPrefix(body, "{\n  \"errors\" : [ {\n    \"") {
		t.Errorf("check-out 422: %d %q: %s", st, ct, body)
	}
	st, ct, body = get("GET", "/inventory/items?query="+url.QueryEscape("barcode=="+seed.ItemBarcode(12)), "")
	if st != 200 || ct != "application/json; charset=utf-8" || !strings.HasPrefix(body, "{\n  \"items\" : [ {\n    \"") {
		t.Errorf("mod-inventory items: %d %q: %s", st, ct, body)
	}
	st, ct, body = get("POST", "/authn/login", `{"username":"folio_admin","password":"admin"}`)
	if st != 201 || ct != "application/json" || !strings.HasPrefix(body, `{"`) || strings.Contains(body, `" : `) {
		t.Errorf("mod-login: %d %q: %s", st, ct, body)
	}
}

// mod-users-bl's composite user on the Okapi platform: the staff UI and PTF's
// plans read /bl-users/_self right after login.
func TestBLUsersThroughOkapi(t *testing.T) {
	_, _, call, _ := seededGateway(t)
	st, token := call("POST", "/authn/login", "", map[string]string{"username": "folio_admin", "password": "admin"})
	if st != 201 || token == "" {
		t.Fatalf("login: %d", st)
	}
	st, body := call("GET", "/bl-users/_self", token, nil)
	if st != 200 || !strings.HasPrefix(body, `{"user":{"username":"folio_admin","id":"`) ||
		!strings.Contains(body, `"permissions":{"permissions":[]}`) {
		t.Fatalf("_self: %d %s", st, body)
	}
	var self struct {
		User struct {
			ID string `json:"id"`
		} `json:"user"`
	}
	if err := json.Unmarshal([]byte(body), &self); err != nil {
		t.Fatal(err)
	}
	st, byID := call("GET", "/bl-users/by-id/"+self.User.ID, token, nil)
	if st != 200 || byID != body {
		t.Errorf("by-id: %d %s, want the _self answer %s", st, byID, body)
	}
	if st, body := call("GET", "/bl-users/by-id/"+newUUID(), token, nil); st != 404 {
		t.Errorf("unknown user: %d %s", st, body)
	}
}

// mod-users' profile-picture configuration, which ui-checkout 12 reads at page
// load: its one row, as RMB writes the schema (the Sunflower sequence's
// GET /users/configurations/entry; the storage module's /users/{id} stays apart).
func TestUsersConfigurationEntry(t *testing.T) {
	_, _, call, _ := seededGateway(t)
	_, token := call("POST", "/authn/login", "", map[string]string{"username": "folio_admin", "password": "admin"})
	st, body := call("GET", "/users/configurations/entry", token, nil)
	want := `{"id":"5a5e3a46-7b6d-4f43-9e9b-2c1f8b0d7e11","configName":"PROFILE_PICTURE_CONFIG","enabled":false,` +
		`"enabledObjectStorage":false,"encryptionKey":"ThisIsASimpleDefaultKeyToTestIts","maxFileSize":4.0}`
	if st != 200 || body != want {
		t.Fatalf("GET /users/configurations/entry: %d %s, want %s", st, body, want)
	}
	if st, _ := call("GET", "/users?limit=1", token, nil); st != 200 {
		t.Errorf("GET /users beside it: %d", st)
	}
}
