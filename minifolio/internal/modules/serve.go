// Package modules holds minifolio's FOLIO modules: each one's HTTP routes
// (generic RMB-like storage collections from package storage plus the
// module-specific business endpoints), the release-profile mechanisms that
// act inside a module (service time, patron-block rebuilds, dropped indexes,
// the leak) and the gateway client modules use to call each other.
package modules

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/eureka"
	"github.com/folio-perf/folio-perf/minifolio/internal/httpserve"
	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Config is what `minifolio serve --module <name>` passes to a module process.
type Config struct {
	Name     string // FOLIO module name from catalog.Modules
	Addr     string // listen address, e.g. 127.0.0.1:9139
	DB       string // PostgreSQL URL
	OkapiURL string // gateway URL; modules call each other through it with the caller's token
	Profile  string // release profile name (minifolio/profiles/<name>.json)
	// OpenSearchURL is mod-search's OpenSearch node; without it mod-search
	// answers 500 (the other modules ignore it).
	OpenSearchURL string
	// SearchTimeout bounds each search request to OpenSearch (default 20 s).
	SearchTimeout time.Duration
	// SearchPassthrough adds mod-search's pass-through route, the floor of
	// make bench-search (see passthrough in search.go). Never on by default:
	// it lets any logged-in caller send any request to OpenSearch.
	SearchPassthrough bool
	// SearchShards: primary shards of each index mod-search creates (0: one,
	// enough up to millions of instances on one node; docs/scale.md).
	SearchShards int
	// Keycloak is the Eureka profiles' token issuer (mod-login-keycloak only);
	// without it mod-login-keycloak answers every login with its 400.
	Keycloak *eureka.Keycloak
	// TokenTTL is the access-token lifespan mod-login-keycloak gives a
	// tenant's realm (default 600 s, mgr-tenants').
	TokenTTL time.Duration
	// SameSite of mod-login-keycloak's cookies (LOGIN_COOKIE_SAMESITE, default None).
	SameSite string
	// TokenHeader: mod-login-keycloak's X_OKAPI_TOKEN_HEADER_ENABLED.
	TokenHeader bool
	// clock of the profile's slowdown rules; nil: the real one (tests set theirs).
	clock *clock
}

// Serve runs one module until ctx is cancelled.
func Serve(ctx context.Context, cfg Config) error {
	prof, err := profile.Load(profile.Dir(), cfg.Profile)
	if err != nil {
		return err
	}
	var pool *pgxpool.Pool
	if m, ok := catalog.ByName(cfg.Name); ok && (len(storage.ForSchema(m.Schema)) > 0 || m.OpenSearch) {
		if pool, err = storage.Open(ctx, cfg.DB, 0); err != nil {
			return err
		}
		defer pool.Close()
		// A database seeded by an older minifolio may lack shared SQL
		// functions the CQL translation now calls (the full-text ones).
		if err := storage.EnsureGlobal(ctx, pool); err != nil {
			return err
		}
	}
	h, err := Handler(cfg, pool, prof)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("%s cannot listen on %s: %v", cfg.Name, cfg.Addr, err)
	}
	return httpserve.Until(ctx, httpserve.Server(h, 0), ln, "module "+cfg.Name, "profile", prof.Name)
}

// Handler builds one module's HTTP handler: its routes, GET /admin/health,
// and the profile's per-request mechanisms. pool may be nil for modules
// without tables (mod-circulation, mod-inventory). Tests mount it on
// httptest servers; Serve on a real port.
func Handler(cfg Config, pool *pgxpool.Pool, prof *profile.Profile) (http.Handler, error) {
	m, ok := catalog.ByName(cfg.Name)
	if !ok {
		var names []string
		for _, x := range catalog.Modules {
			names = append(names, x.Name)
		}
		return nil, fmt.Errorf("unknown module %q: use one of %s", cfg.Name, strings.Join(names, ", "))
	}
	tables := storage.ForSchema(m.Schema)
	if (len(tables) > 0 || m.OpenSearch) && pool == nil {
		return nil, fmt.Errorf("%s needs a database: pass --db or set MINIFOLIO_DB", cfg.Name)
	}
	if prof == nil {
		return nil, errors.New("no release profile")
	}
	okapi := newOkapiClient(cfg.OkapiURL)
	refs := newRefCache(okapi, time.Minute)
	now := time.Now
	mux := http.NewServeMux()
	mux.HandleFunc("GET /admin/health", func(w http.ResponseWriter, r *http.Request) { writeText(w, http.StatusOK, "OK") })

	var idx *indexProfile
	for _, t := range tables {
		if t.Path == "" || t.Module != m.Name {
			continue
		}
		if f := prof.Unindexed(m.Name, t.Name); len(f) > 0 {
			// The collection's table lacks the indexes, so storage.Find logs
			// RMB's "Doing … without index" warning for these fields.
			t = t.WithoutIndexes(f...)
		}
		(&storage.Collection{DB: pool, Table: t}).Mount(mux)
	}
	if len(tables) > 0 {
		idx = newIndexProfile(pool, m.Name, prof)
	}

	switch m.Name {
	case "mod-users":
		usersRoutes(mux)
	case "mod-circulation":
		(&circulation{okapi: okapi, refs: refs, now: now}).routes(mux)
	case "mod-inventory":
		(&inventory{okapi: okapi, refs: refs}).routes(mux)
	case "mod-patron-blocks":
		(&patronBlocks{db: pool, okapi: okapi, refs: refs, prof: prof, now: now}).routes(mux)
	case "mod-notes":
		(&notes{db: pool}).routes(mux)
	case "mod-circulation-storage":
		(&circulationRules{db: pool}).routes(mux)
	case "mod-users-bl":
		(&usersBL{okapi: okapi}).routes(mux)
	case "mod-users-keycloak":
		(&usersKeycloak{bl: &usersBL{okapi: okapi}}).routes(mux)
	case "mod-settings":
		(&modSettings{db: pool}).routes(mux)
	case "mod-login-keycloak":
		if cfg.Keycloak == nil {
			mux.HandleFunc("/authn/", func(w http.ResponseWriter, r *http.Request) {
				loginError(w, http.StatusBadRequest, "Failed to obtain a token", "ServiceException", "service_error",
					Param{Key: "cause", Value: "Keycloak is not configured: start the module with a Keycloak URL"})
			})
			break
		}
		sameSite := cfg.SameSite
		if sameSite == "" {
			sameSite = "None"
		}
		(&loginKeycloak{db: pool, kc: cfg.Keycloak, ttl: cfg.TokenTTL, sameSite: sameSite, header: cfg.TokenHeader,
			v4: prof.AtLeast("mod-login-keycloak", 4, 0, 0), now: time.Now}).routes(mux)
	case "mod-search":
		if cfg.OpenSearchURL == "" {
			mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
				searchError(w, http.StatusInternalServerError, "OpenSearch is not configured: start mod-search with --opensearch <url>",
					"SearchOperationException", "elasticsearch_error", "", "")
			})
			break
		}
		ms := newModSearch(context.Background(), cfg.OpenSearchURL, pool, cfg.SearchTimeout)
		ms.ix.Shards = cfg.SearchShards
		// mod-search 4.0 (Ramsons) replaced the instance reindex of the
		// legacy endpoint by instance-records/reindex/full.
		ms.v4 = prof.AtLeast("mod-search", 4, 0, 0)
		ms.routes(mux)
		if cfg.SearchPassthrough {
			(&passthrough{os: ms.os, timeout: ms.timeout}).routes(mux)
		}
	}

	var h http.Handler = mux
	if m.Name == "mod-circulation" || m.Name == "mod-inventory" {
		// Both answer through Vert.x's Json.encodePrettily with
		// "application/json; charset=utf-8" (their JsonHttpResponse /
		// JsonResponse), not RMB's compact JSON.
		h = storage.VertxJSONHandler(h)
	}
	if m.Name == "mod-inventory-storage" {
		h = newItemEvents(okapi).wrap(h)
	}
	if prof.Leak != nil && prof.Leak.Module == m.Name {
		h = (&leakyHistory{size: max(prof.Leak.BytesPerRequest, 8)}).wrap(h)
	}
	if prof.HasSlowdown(m.Name) {
		c := realClock
		if cfg.clock != nil {
			c = *cfg.clock
		}
		h = slowdown(m.Name, prof, c, h)
	}
	return withProfile(m.Name, prof, idx, h), nil
}

// withProfile applies the profile's service time (before the handler, so a
// module under lotus answers like a busier real deployment) and, on a
// tenant's first request, its index set. Health checks are never delayed.
func withProfile(module string, prof *profile.Profile, idx *indexProfile, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/admin/health" {
			next.ServeHTTP(w, r)
			return
		}
		// The tenant becomes part of SQL schema names: nothing but a valid
		// tenant id gets past this point, whoever calls the module.
		tenant := r.Header.Get("X-Okapi-Tenant")
		if tenant == "" {
			writeText(w, http.StatusBadRequest, "Missing header: X-Okapi-Tenant")
			return
		}
		if !storage.ValidTenant(tenant) {
			writeText(w, http.StatusBadRequest, "No such Tenant "+tenant)
			return
		}
		if idx != nil {
			if err := idx.apply(r.Context(), tenant); err != nil && !storage.IsUndefinedTable(err) {
				slog.Error("applying the profile's indexes", "module", module, "tenant", tenant, "err", err)
			}
		}
		if d := prof.Delay(module, r.Method, r.URL.Path, nil); d > 0 && !pause(r, d) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// indexProfile makes a tenant's indexes match the profile once per process,
// on the tenant's first request: only tenants this deployment serves are
// touched, never the other tenants of a shared database.
// missing-index drops the indexes on its fields; every other profile
// recreates indexes that any shipped profile may have dropped, so switching
// back from missing-index restores the release's normal plans.
type indexProfile struct {
	db     *pgxpool.Pool
	module string
	prof   *profile.Profile
	mu     sync.Mutex
	done   map[string]bool
	seen   sync.Map // tenant → true once applied: the lock-free fast path
}

func newIndexProfile(db *pgxpool.Pool, module string, prof *profile.Profile) *indexProfile {
	return &indexProfile{db: db, module: module, prof: prof, done: map[string]bool{}}
}

func (p *indexProfile) apply(ctx context.Context, tenant string) error {
	if _, ok := p.seen.Load(tenant); ok {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done[tenant] {
		return nil
	}
	// DROP/CREATE INDEX only on a tenant minifolio made: a module pointed
	// at another system's database (a real FOLIO's tenant, whose RMB index
	// names are the same) must not change its indexes.
	own, err := storage.ReadOwnership(ctx, p.db, tenant)
	if err != nil {
		return err
	}
	if !own.Ours() {
		slog.Warn("profile "+p.prof.Name+": indexes left alone: the tenant was not made by minifolio", "module", p.module, "tenant", tenant)
		p.done[tenant] = true
		p.seen.Store(tenant, true)
		return nil
	}
	m, _ := catalog.ByName(p.module)
	if err := storage.EnsureModuleTables(ctx, p.db, tenant, m.Schema); err != nil {
		return err
	}
	for _, t := range storage.ForSchema(m.Schema) {
		if f := p.prof.Unindexed(p.module, t.Name); len(f) > 0 {
			if err := storage.DropIndexes(ctx, p.db, tenant, t, f...); err != nil {
				return err
			}
			slog.Warn("profile "+p.prof.Name+": dropped indexes", "module", p.module, "tenant", tenant, "table", t.Name, "fields", f)
			continue
		}
		if droppable(p.module, t.Name) {
			missing, err := missingIndexes(ctx, p.db, tenant, t)
			if err != nil {
				return err
			}
			if missing {
				if err := storage.EnsureIndexes(ctx, p.db, tenant, t); err != nil {
					return err
				}
				slog.Info("recreated indexes dropped by an earlier profile", "module", p.module, "tenant", tenant, "table", t.Name)
			}
		}
	}
	p.done[tenant] = true
	p.seen.Store(tenant, true)
	return nil
}

// droppable: some shipped profile drops indexes of this table.
func droppable(module, table string) bool {
	dir := profile.Dir()
	for _, n := range profile.Names(dir) {
		if p, err := profile.Load(dir, n); err == nil && len(p.Unindexed(module, table)) > 0 {
			return true
		}
	}
	return false
}

// missingIndexes checks pg_indexes first: CREATE INDEX IF NOT EXISTS would
// take a SHARE lock on the table even when every index exists.
func missingIndexes(ctx context.Context, db *pgxpool.Pool, tenant string, t *storage.Table) (bool, error) {
	rows, err := db.Query(ctx, "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2",
		storage.SchemaName(tenant, t.Schema), t.Name)
	if err != nil {
		return false, err
	}
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return false, err
		}
		have[n] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, err
	}
	if len(have) == 0 {
		return false, nil // table absent: not this tenant's concern here
	}
	for _, ix := range t.Indexes {
		if !have[t.IndexName(ix)] {
			return true, nil
		}
	}
	return false, nil
}
