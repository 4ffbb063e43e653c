package eureka

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// tenants answers "is this tenant entitled?" for Kong's routes and the
// sidecar's TenantFilter. The entitled tenants are minifolio's registered ones
// (okapi.tenants, which `minifolio seed` fills): every tenant is entitled to
// every application of the profile. Answers are cached for tenantTTL, so a
// dropped tenant disappears within it.
type tenants struct {
	db  storage.DB
	log *slog.Logger
	mu  sync.RWMutex
	at  map[string]tenantState
}

type tenantState struct {
	ok bool
	at time.Time
}

const tenantTTL = 30 * time.Second

func (t *tenants) enabled(ctx context.Context, tenant string) bool {
	if !storage.ValidTenant(tenant) || t.db == nil {
		return false
	}
	t.mu.RLock()
	st, ok := t.at[tenant]
	t.mu.RUnlock()
	if ok && time.Since(st.at) < tenantTTL {
		return st.ok
	}
	var n int
	if err := t.db.QueryRow(ctx, `SELECT count(*) FROM okapi.tenants WHERE id = $1`, tenant).Scan(&n); err != nil {
		if !storage.IsUndefinedTable(err) && t.log != nil {
			t.log.Error("reading tenants", "err", err)
		}
		return false
	}
	t.mu.Lock()
	if t.at == nil || len(t.at) > 10000 {
		t.at = map[string]tenantState{}
	}
	t.at[tenant] = tenantState{ok: n > 0, at: time.Now()}
	t.mu.Unlock()
	return n > 0
}
