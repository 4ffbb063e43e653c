// Package storagetest gives DB tests a real PostgreSQL (FP_PG_DSN, from the
// stack) and a throw-away tenant each, so tests of different packages and
// engineers never share rows.
package storagetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DSN returns FP_PG_DSN. When it is unset the test is skipped, unless
// FP_REQUIRE_STACK is set (make test), where a missing database is a failure.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("FP_PG_DSN")
	if dsn == "" {
		if os.Getenv("FP_REQUIRE_STACK") != "" {
			t.Fatal("FP_PG_DSN is not set but FP_REQUIRE_STACK is: start the stack (make stack-up) and export FP_PG_DSN")
		}
		t.Skip("FP_PG_DSN not set (make stack-up, then export FP_PG_DSN=postgres://folio:folio@127.0.0.1:55432/folio?sslmode=disable)")
	}
	return dsn
}

// Pool opens a small pool on FP_PG_DSN, closed when the test ends.
func Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	p, err := storage.Open(context.Background(), DSN(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// TenantName is a fresh tenant id: prefix + random hex (valid, ≤ 31 chars).
func TenantName(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	p := strings.ToLower(prefix)
	if len(p) > 20 {
		p = p[:20]
	}
	return p + "_" + hex.EncodeToString(b)
}

// Tenant creates a fresh tenant with every table and index and drops it when
// the test ends (kept when MINIFOLIO_KEEP_TEST_TENANTS is set, for debugging).
func Tenant(t testing.TB, pool *pgxpool.Pool, prefix string, opt storage.DDLOptions) string {
	t.Helper()
	name := TenantName(prefix)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := storage.CreateTenant(ctx, pool, name, opt); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if os.Getenv("MINIFOLIO_KEEP_TEST_TENANTS") != "" {
			return
		}
		if err := storage.DropTenant(context.Background(), pool, name); err != nil {
			t.Logf("dropping tenant %s: %v", name, err)
		}
	})
	return name
}
