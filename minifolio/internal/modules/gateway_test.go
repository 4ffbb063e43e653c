package modules

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/okapi"
	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
	"github.com/folio-perf/folio-perf/minifolio/internal/seed"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
)

// The whole path a load test takes: `minifolio seed`'s data, the real Okapi
// gateway (login, token, routing, X-Okapi-Url/User-Id), every module, and
// module-to-module calls back through the gateway with the caller's token.
func TestCICOThroughTheGatewayOnASeededTenant(t *testing.T) {
	ctx := context.Background()
	pool, err := storage.Open(ctx, storagetest.DSN(t), 24)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	tenant := storagetest.TenantName("modgw")
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
	gwURL := fmt.Sprintf("http://127.0.0.1:%d", port)
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

	call := func(method, path, token string, body any) (int, string) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = strings.NewReader(string(b))
		}
		req, _ := http.NewRequest(method, gwURL+path, rd)
		req.Header.Set("X-Okapi-Tenant", tenant)
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("X-Okapi-Token", token)
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
	if st, body := out(free, user); st != 201 || !strings.Contains(body, `"status":{"name":"Open"}`) {
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
		{user, seed.MissingItemBarcode(0), "has the item status Missing and cannot be checked out"},
		{"no-such-user", seed.ItemBarcode(11), "Could not find user with matching barcode"},
	} {
		if st, body := out(c.item, c.user); st != 422 || !strings.Contains(body, c.msg) {
			t.Errorf("check-out %s/%s: %d %s, want 422 %q", c.user, c.item, st, body, c.msg)
		}
	}
	// check-in of the seeded loan: the loan comes back closed, by the
	// operator's service point, with the staff member from the token
	st, body = in(seed.ItemBarcode(0))
	if st != 200 || !strings.Contains(body, `"action":"checkedin"`) || !strings.Contains(body, `"staffSlipContext"`) {
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
