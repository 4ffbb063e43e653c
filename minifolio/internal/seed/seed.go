// Package seed loads a deterministic FOLIO data set into a tenant (reference
// data, instances/holdings/items, users, optional open loans and patron-block
// event history) through PostgreSQL COPY, and restores the pre-test state
// with PTF's reset SQL (perf-testing checkin-checkout-db-restore.sql).
//
// The big tables load in parallel transactions; the tenant is registered in
// okapi.tenants (with a "seeded" marker) only as the last step, and a failed
// or interrupted seed drops what it wrote. So the gateway never serves a
// half-seeded tenant, and schemas of an unregistered tenant are debris the
// next seed removes.
package seed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/credentials"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options are the flags of `minifolio seed`.
type Options struct {
	Tenant        string
	AdminUser     string
	AdminPassword string // local-only operator password; never logged
	Items         int    // items, each with its own holdings record and instance
	Users         int    // active patrons without blocks (usr0000000…)
	Loans         int    // open loans on the first Loans items, items "Checked out"
	EventsPerUser int    // item_checked_out/in event pairs per user (patron-block history)
	EventUsers    int    // how many users get that history (0: all)
	Authorities   int    // MARC authority records (mod-search's authority index)
	TextSeed      int64  // seed of the bibliographic text: same seed, same data set
	// Words is the vocabulary of titles, names, subjects and headings; nil
	// loads the wamerican word list (DictPath) when there is text to write.
	Words    []string
	Force    bool // drop an existing tenant and seed again
	Progress io.Writer
}

// Result says what a seed did.
type Result struct {
	Skipped bool // the tenant was already seeded (and Force was not set)
	Seeded  Marker
	Took    time.Duration
}

// Marker is stored in okapi.tenants.jsonb.seeded once a seed committed.
type Marker struct {
	Items         int    `json:"items"`
	Users         int    `json:"users"`
	Loans         int    `json:"loans"`
	EventsPerUser int    `json:"eventsPerUser"`
	EventUsers    int    `json:"eventUsers"`
	Authorities   int    `json:"authorities"`
	TextSeed      int64  `json:"textSeed"`
	AdminUser     string `json:"adminUser"`
	At            string `json:"at"`
}

// Validate reports a flag combination that cannot be seeded.
func (o Options) Validate() error {
	switch {
	case !storage.ValidTenant(o.Tenant):
		return fmt.Errorf("invalid --tenant %q: letters, digits and _, starting with a letter, at most 31", o.Tenant)
	case o.AdminUser == "" || o.AdminPassword == "":
		return errors.New("the operator needs --admin-user and --admin-password (or MINIFOLIO_ADMIN_PASSWORD)")
	case o.Items < 0 || o.Users < 0 || o.Loans < 0 || o.EventsPerUser < 0 || o.EventUsers < 0 || o.Authorities < 0:
		return errors.New("--items, --users, --loans, --events-per-user and --authorities must not be negative")
	case o.Loans > o.Items:
		return fmt.Errorf("--loans %d is more than --items %d: every loan needs its own item", o.Loans, o.Items)
	case o.Loans > 0 && o.Users == 0:
		return errors.New("--loans needs at least one user (--users)")
	case o.EventsPerUser > 0 && o.Users == 0:
		return errors.New("--events-per-user needs at least one user (--users)")
	}
	return nil
}

// SeededMarker returns the marker of a seeded tenant (ok=false when the
// tenant is not registered or was not seeded).
func SeededMarker(ctx context.Context, db storage.DB, tenant string) (m Marker, registered, ok bool, err error) {
	var raw []byte
	err = db.QueryRow(ctx, `SELECT jsonb->'seeded' FROM okapi.tenants WHERE id = $1`, tenant).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) || storage.IsUndefinedTable(err) {
		return m, false, false, nil
	}
	if err != nil {
		return m, false, false, err
	}
	if len(raw) == 0 || string(raw) == "null" {
		return m, true, false, nil
	}
	return m, true, json.Unmarshal(raw, &m) == nil, nil
}

// ErrExists: the tenant is registered but was not made by a seed.
var ErrExists = errors.New("exists")

// Run seeds a tenant. An already seeded tenant is left alone (Result.Skipped)
// unless Force, which drops it first.
func Run(ctx context.Context, pool *pgxpool.Pool, o Options) (Result, error) {
	start := time.Now()
	if err := o.Validate(); err != nil {
		return Result{}, err
	}
	if err := storage.EnsureGlobal(ctx, pool); err != nil {
		return Result{}, err
	}
	m, registered, seeded, err := SeededMarker(ctx, pool, o.Tenant)
	if err != nil {
		return Result{}, err
	}
	if seeded && !o.Force {
		return Result{Skipped: true, Seeded: m}, nil
	}
	if registered && !seeded && !o.Force {
		return Result{}, fmt.Errorf("tenant %s %w but was not created by seed: %w", o.Tenant, ErrExists, errors.New("use --force to drop it and seed again"))
	}
	g := newGen(o)
	if g.words == nil && (o.Items > 0 || o.Authorities > 0) {
		// Before anything is dropped: a missing word list changes nothing.
		if g.words, err = LoadVocabulary(DictPath); err != nil {
			return Result{}, err
		}
	}
	if registered {
		g.progress("dropping tenant %s (--force)", o.Tenant)
		if err := storage.DropTenant(ctx, pool, o.Tenant); err != nil {
			return Result{}, err
		}
	} else {
		// Schemas of a tenant minifolio never registered may be the debris of
		// a seed that died before registering it, or a real FOLIO's tenant
		// (Okapi keeps its own registry): never drop those without --force.
		var found bool
		if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE starts_with(nspname, $1))`,
			o.Tenant+"_").Scan(&found); err != nil {
			return Result{}, err
		}
		if found && !o.Force {
			return Result{}, fmt.Errorf("tenant %s %w (its schemas are in the database) but was not created by seed: %w", o.Tenant, ErrExists, errors.New("use --force to drop it and seed again"))
		}
		if err := storage.DropTenant(ctx, pool, o.Tenant); err != nil {
			return Result{}, err
		}
	}
	// The tenant is registered only once everything is loaded and indexed;
	// a failure before that drops what was written, so no half-seeded
	// tenant is ever served.
	if err := g.load(ctx, pool); err != nil {
		if derr := storage.DropTenant(context.WithoutCancel(ctx), pool, o.Tenant); derr != nil {
			err = fmt.Errorf("%w (and cleaning up failed: %v)", err, derr)
		}
		return Result{}, err
	}
	m = Marker{Items: o.Items, Users: o.Users, Loans: o.Loans, EventsPerUser: o.EventsPerUser,
		EventUsers: g.eventUsers, Authorities: o.Authorities, TextSeed: o.TextSeed, AdminUser: o.AdminUser, At: time.Now().UTC().Format(time.RFC3339)}
	mb, _ := json.Marshal(m)
	_, err = pool.Exec(ctx, `INSERT INTO okapi.tenants (id, jsonb) VALUES ($1, jsonb_build_object('id', $1::text, 'name', $1::text, 'seeded', $2::jsonb))
		ON CONFLICT (id) DO UPDATE SET jsonb = EXCLUDED.jsonb`, o.Tenant, mb)
	if err != nil {
		_ = storage.DropTenant(context.WithoutCancel(ctx), pool, o.Tenant)
		return Result{}, err
	}
	return Result{Seeded: m, Took: time.Since(start)}, nil
}

// parallelism: concurrent COPY / CREATE INDEX connections. The server parses
// jsonb and sorts index keys on its own cores; two or three streams keep a
// small machine busy without thrashing it.
const parallelism = 3

// load creates the schemas, COPYs the data and builds the indexes, the big
// tables in parallel, each job in its own transaction.
func (g *gen) load(ctx context.Context, pool *pgxpool.Pool) error {
	if err := storage.CreateSchemas(ctx, pool, g.t, storage.DDLOptions{NoIndexes: true, NoRegister: true}); err != nil {
		return err
	}
	inTx := func(f func(pgx.Tx) error) func() error {
		return func() error {
			return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				for _, s := range []string{"SET LOCAL maintenance_work_mem = '256MB'", "SET LOCAL synchronous_commit = off"} {
					if _, err := tx.Exec(ctx, s); err != nil {
						return err
					}
				}
				return f(tx)
			})
		}
	}
	// Indexes after COPY: building each once is far cheaper than
	// maintaining it row by row.
	jobs := []func() error{
		inTx(func(tx pgx.Tx) error { return g.items(ctx, tx) }),
		inTx(func(tx pgx.Tx) error { return g.holdings(ctx, tx) }),
		inTx(func(tx pgx.Tx) error { return g.instances(ctx, tx) }),
		inTx(func(tx pgx.Tx) error { return g.authorities(ctx, tx) }),
		inTx(func(tx pgx.Tx) error {
			if err := g.reference(ctx, tx); err != nil {
				return err
			}
			return g.usersAndHistory(ctx, tx)
		}),
	}
	if err := runAll(ctx, jobs); err != nil {
		return err
	}
	g.progress("creating indexes")
	start := time.Now()
	jobs = nil
	for _, s := range storage.AllIndexDDL(g.t, storage.DDLOptions{}) {
		jobs = append(jobs, inTx(func(tx pgx.Tx) error { _, err := tx.Exec(ctx, s); return err }))
	}
	if err := runAll(ctx, jobs); err != nil {
		return err
	}
	g.progress("indexes built in %s; analyzing", time.Since(start).Round(time.Millisecond))
	jobs = nil
	for _, t := range []*storage.Table{itemT, holdingsT, instanceT, authorityT, usersT, loanT} {
		jobs = append(jobs, func() error { _, err := pool.Exec(ctx, "ANALYZE "+t.QualifiedName(g.t)); return err })
	}
	return runAll(ctx, jobs)
}

// runAll runs jobs, at most parallelism at a time, and returns the first error.
func runAll(ctx context.Context, jobs []func() error) error {
	sem := make(chan struct{}, parallelism)
	errs := make(chan error, len(jobs))
	for _, j := range jobs {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- j()
		}()
	}
	var first error
	for range jobs {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// ResetResult says what Reset changed.
type ResetResult struct {
	ItemsMadeAvailable int64
	EventsRemoved      int64 // patron-block events of the truncated loans
}

// ResetOptions: KeepEvents leaves mod-patron-blocks' event tables alone, as
// PTF's restore SQL does.
type ResetOptions struct {
	KeepEvents bool
}

// ResetTruncates are the tables PTF's restore SQL truncates (schema suffix, table).
var ResetTruncates = [][2]string{
	{"mod_patron_blocks", "user_summary"},
	{"mod_feesfines", "accounts"},
	{"mod_circulation_storage", "loan"},
	{"mod_circulation_storage", "audit_loan"},
	{"mod_circulation_storage", "request"},
	{"mod_circulation_storage", "patron_action_session"},
	{"mod_feesfines", "feefines"},
	{"mod_circulation_storage", "scheduled_notice"},
	{"mod_notify", "notify_data"},
}

// Reset is PTF's checkin-checkout-db-restore.sql for a tenant: truncate the
// circulation tables, then every item back to Available. One transaction.
//
// Unlike PTF's SQL it also deletes the patron-block events of the loans it
// truncates (unless KeepEvents): those are the events the runs since the
// last reset made, so the history goes back to what the seed wrote
// (--events-per-user). Otherwise every run would start with the history of
// all the runs before it, and under juniper-patron-blocks, whose cost grows
// with that history, no two runs would be comparable.
func Reset(ctx context.Context, pool *pgxpool.Pool, tenant string, o ResetOptions) (ResetResult, error) {
	var res ResetResult
	if !storage.ValidTenant(tenant) {
		return res, fmt.Errorf("invalid --tenant %q", tenant)
	}
	_, registered, _, err := SeededMarker(ctx, pool, tenant)
	if err != nil {
		return res, err
	}
	if !registered {
		return res, fmt.Errorf("no tenant %s in this database: seed it first (minifolio seed --tenant %s)", tenant, tenant)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if !o.KeepEvents {
			loans := storage.SchemaName(tenant, "mod_circulation_storage") + ".loan"
			for _, t := range storage.ForSchema("mod_patron_blocks") {
				if !strings.HasSuffix(t.Name, "_event") {
					continue
				}
				tag, err := tx.Exec(ctx, "DELETE FROM "+t.QualifiedName(tenant)+" e WHERE EXISTS (SELECT 1 FROM "+loans+
					" l WHERE l.id::text = e.jsonb->>'loanId')")
				if err != nil {
					return err
				}
				res.EventsRemoved += tag.RowsAffected()
			}
		}
		var names []string
		for _, t := range ResetTruncates {
			names = append(names, storage.SchemaName(tenant, t[0])+"."+t[1])
		}
		if _, err := tx.Exec(ctx, "TRUNCATE "+strings.Join(names, ", ")); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "UPDATE "+itemT.QualifiedName(tenant)+
			` SET jsonb = jsonb_set(jsonb, '{status,name}', '"Available"') WHERE jsonb->'status'->>'name' != 'Available'`)
		res.ItemsMadeAvailable = tag.RowsAffected()
		return err
	})
	return res, err
}

// adminCredentials builds the auth_credentials jsonb for the operator.
func adminCredentials(userID, password string) ([]byte, error) {
	rec, err := credentials.New(userID, password)
	if err != nil {
		return nil, err
	}
	return json.Marshal(rec)
}
