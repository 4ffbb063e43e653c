package okapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/okapi"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
)

// BenchmarkProxy measures the gateway's own cost per proxied request (token
// check, tenant check, headers, reverse proxy) against a backend that
// answers at once: run with -cpuprofile to see where the time goes.
func BenchmarkProxy(b *testing.B) {
	pool := storagetest.Pool(b)
	tenant := storagetest.Tenant(b, pool, "gwbench", storage.DDLOptions{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"users":[],"totalRecords":0}`)
	}))
	defer backend.Close()
	signer, _ := okapi.NewSigner([]byte("bench-secret-0123456789"))
	gw := httptest.NewServer(okapi.New(okapi.Config{Port: 1, DB: pool, Signer: signer,
		ModuleURL: func(catalog.Module) string { return backend.URL }}))
	defer gw.Close()
	uid := addUser(b, pool, tenant, "bench", "bench-pw", true)
	tok := signer.Sign(okapi.Claims{Type: "access", Tenant: tenant, Sub: "bench", UserID: uid,
		Iat: time.Now().Unix(), Exp: time.Now().Add(time.Hour).Unix()})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", gw.URL+"/users?query=barcode==x", nil)
			req.Header.Set("X-Okapi-Tenant", tenant)
			req.Header.Set("X-Okapi-Token", tok)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
}
