package modules

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Serve runs a module on a real port until its context ends.
func TestServeAnswersHealthUntilCancelled(t *testing.T) {
	dsn := storagetest.DSN(t)
	t.Setenv("MINIFOLIO_PROFILES", "../../profiles")
	for _, name := range []string{"mod-circulation", "mod-users"} { // without and with a database
		addr := freePort(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- Serve(ctx, Config{Name: name, Addr: addr, DB: dsn, OkapiURL: "http://127.0.0.1:9", Profile: "lotus"})
		}()
		var body string
		for i := 0; i < 100; i++ {
			resp, err := http.Get("http://" + addr + "/admin/health")
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				body = fmt.Sprint(resp.StatusCode, " ", string(b))
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if body != "200 OK" {
			t.Fatalf("%s health: %q", name, body)
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: Serve returned %v after cancel", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Serve did not return after cancel", name)
		}
	}
}

func TestServeRejectsBadConfigWithTheFix(t *testing.T) {
	t.Setenv("MINIFOLIO_PROFILES", "../../profiles")
	ctx := context.Background()
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Name: "mod-nothing", Addr: "127.0.0.1:0", Profile: "fast"}, `unknown module "mod-nothing": use one of mod-configuration,`},
		{Config{Name: "mod-circulation", Addr: "127.0.0.1:0", Profile: "juniper"}, `unknown profile "juniper": use one of fast, fast-checkout-plus10, fast-checkout-plus25, fast-checkout-plus50, juniper-patron-blocks, leak, lotus, missing-index`},
		{Config{Name: "mod-users", Addr: "127.0.0.1:0", Profile: "fast", DB: "::not a url::"}, "invalid database URL"},
	} {
		err := Serve(ctx, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Serve(%+v) = %v, want %q", c.cfg, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "goroutine") {
			t.Errorf("stack trace in a user error: %v", err)
		}
	}
	if _, err := Handler(Config{Name: "mod-users"}, nil, nil); err == nil || !strings.Contains(err.Error(), "needs a database") {
		t.Errorf("Handler without pool: %v", err)
	}
}

// The storage contract check-out relies on: a second open loan for an item
// is a 422 naming itemId (the partial unique index), never a 500.
func TestLoanStorageRefusesASecondOpenLoan(t *testing.T) {
	pool, tenant, f := newTenant(t)
	e := newEnv(t, pool, tenant, "fast")
	loan := func() map[string]any {
		return map[string]any{"itemId": f.itemIDs["it-040"], "userId": f.users["u-040"], "loanDate": "2026-11-22T10:00:00Z",
			"action": "checkedout", "status": map[string]any{"name": "Open"}}
	}
	if r := e.do("POST", "/loan-storage/loans", loan()); r.status != 201 {
		t.Fatalf("first loan: %d %s", r.status, r.body)
	}
	r := e.do("POST", "/loan-storage/loans", loan())
	if r.status != 422 || !strings.Contains(string(r.body), `"key":"itemId"`) {
		t.Fatalf("second open loan: %d %s", r.status, r.body)
	}
	closed := loan()
	closed["status"] = map[string]any{"name": "Closed"}
	if r := e.do("POST", "/loan-storage/loans", closed); r.status != 201 {
		t.Fatalf("a closed loan of the same item: %d %s", r.status, r.body)
	}
}

// Modules trust no caller with the tenant: it ends up in schema names.
func TestModulesRefuseBadTenantsBeforeAnySQL(t *testing.T) {
	prof, err := profile.Load("../../profiles", "fast")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mod-patron-blocks", "mod-notes", "mod-circulation-storage", "mod-circulation"} {
		// a nil-free pool is not needed: the request must be refused first
		h, err := Handler(Config{Name: name, OkapiURL: "http://127.0.0.1:9"}, &pgxpool.Pool{}, prof)
		if err != nil {
			t.Fatal(err)
		}
		for tenant, want := range map[string]string{"": "Missing header: X-Okapi-Tenant", `x"; drop schema y; --`: "No such Tenant"} {
			r := httptest.NewRequest("GET", "/automated-patron-blocks/"+newUUID(), nil)
			if tenant != "" {
				r.Header.Set("X-Okapi-Tenant", tenant)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != 400 || !strings.Contains(w.Body.String(), want) {
				t.Errorf("%s, tenant %q: %d %s", name, tenant, w.Code, w.Body.String())
			}
		}
	}
}
