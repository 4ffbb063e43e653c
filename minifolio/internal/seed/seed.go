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
	Items         int    // items, spread in order over the holdings records
	Holdings      int    // holdings records, spread in order over the instances (0: one per item)
	Instances     int    // instances (0: one per holdings record)
	Users         int    // active patrons without blocks (usr0000000…)
	Loans         int    // open loans on the first Loans items, items "Checked out"
	EventsPerUser int    // past loans per patron: item_checked_out/in event pairs (patron-block history)
	EventUsers    int    // how many users get that history (0: all)
	// ClosedLoans are loans of the past, spread over every patron and item,
	// as a production FOLIO keeps them (reset keeps them too).
	ClosedLoans int
	Authorities int    // MARC authority records (mod-search's authority index)
	Scale       string // the preset the sizes came from, if any (recorded in the marker)
	// DiskFree, when > 0, is the free space to assume on the database's disk
	// instead of measuring it (a database on another filesystem; tests).
	DiskFree int64
	// CopyDir, when set, makes the seed write each bulk table's COPY stream
	// into that directory instead of loading anything (the bench's floor).
	CopyDir  string
	TextSeed int64 // seed of the bibliographic text: same seed, same data set
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
	Scale         string `json:"scale,omitempty"`
	Instances     int    `json:"instances"`
	Holdings      int    `json:"holdings"`
	Items         int    `json:"items"`
	Users         int    `json:"users"`
	Loans         int    `json:"loans"`
	EventsPerUser int    `json:"eventsPerUser"`
	EventUsers    int    `json:"eventUsers"`
	ClosedLoans   int    `json:"closedLoans,omitempty"`
	Authorities   int    `json:"authorities"`
	TextSeed      int64  `json:"textSeed"`
	AdminUser     string `json:"adminUser"`
	At            string `json:"at"`
}

// Validate reports a flag combination that cannot be seeded.
func (o Options) Validate() error {
	in, ho, it := o.inventory()
	switch {
	case !storage.ValidTenant(o.Tenant):
		return fmt.Errorf("invalid --tenant %q: letters, digits and _, starting with a letter, at most 31", o.Tenant)
	case o.AdminUser == "" || o.AdminPassword == "":
		return errors.New("the operator needs --admin-user and --admin-password (or MINIFOLIO_ADMIN_PASSWORD)")
	case o.Items < 0 || o.Holdings < 0 || o.Instances < 0 || o.Users < 0 || o.Loans < 0 || o.ClosedLoans < 0 || o.EventsPerUser < 0 || o.EventUsers < 0 || o.Authorities < 0:
		return errors.New("--items, --holdings, --instances, --users, --loans, --closed-loans, --events-per-user and --authorities must not be negative")
	case o.ClosedLoans > 0 && (o.Users == 0 || it == 0):
		return errors.New("--closed-loans needs users and items (--users, --items)")
	case ho > it:
		return fmt.Errorf("--holdings %d is more than --items %d: every holdings record needs an item", ho, it)
	case in > ho:
		return fmt.Errorf("--instances %d is more than --holdings %d: every instance needs a holdings record", in, ho)
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
	if o.CopyDir != "" {
		return writeCopyDir(ctx, o, start)
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
	// Before anything is dropped too: a seed the disk cannot hold is
	// refused with the figures, not discovered full halfway.
	if err := g.checkDisk(ctx, pool); err != nil {
		return Result{}, err
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
	in, ho, _ := o.inventory()
	m = Marker{Scale: o.Scale, Instances: in, Holdings: ho, Items: o.Items, Users: o.Users, Loans: o.Loans, EventsPerUser: o.EventsPerUser,
		EventUsers: g.eventUsers, ClosedLoans: o.ClosedLoans, Authorities: o.Authorities, TextSeed: o.TextSeed, AdminUser: o.AdminUser, At: time.Now().UTC().Format(time.RFC3339)}
	mb, _ := json.Marshal(m)
	_, err = pool.Exec(ctx, `INSERT INTO okapi.tenants (id, jsonb) VALUES ($1, jsonb_build_object('id', $1::text, 'name', $1::text, 'seeded', $2::jsonb))
		ON CONFLICT (id) DO UPDATE SET jsonb = EXCLUDED.jsonb`, o.Tenant, mb)
	if err != nil {
		_ = storage.DropTenant(context.WithoutCancel(ctx), pool, o.Tenant)
		return Result{}, err
	}
	return Result{Seeded: m, Took: time.Since(start)}, nil
}

// writeCopyDir is Run with Options.CopyDir: the bulk tables' COPY streams
// written to files, nothing sent to a database.
func writeCopyDir(ctx context.Context, o Options, start time.Time) (Result, error) {
	g := newGen(o)
	if g.words == nil && (o.Items > 0 || o.Authorities > 0) {
		var err error
		if g.words, err = LoadVocabulary(DictPath); err != nil {
			return Result{}, err
		}
	}
	if err := g.writeFiles(ctx, o.CopyDir); err != nil {
		return Result{}, err
	}
	return Result{Took: time.Since(start)}, nil
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
	m, registered, _, err := SeededMarker(ctx, pool, tenant)
	if err != nil {
		return res, err
	}
	if !registered {
		return res, fmt.Errorf("no tenant %s in this database: seed it first (minifolio seed --tenant %s)", tenant, tenant)
	}
	loans := loanT.QualifiedName(tenant)
	// The loans reset removes: all of them, as PTF's SQL, except the
	// seeded closed loans (ClosedLoans), which stay as a production
	// FOLIO's old loans would.
	runLoans := "true"
	if m.ClosedLoans > 0 {
		runLoans = "l.jsonb->'metadata'->>'createdByUserId' IS DISTINCT FROM '" + HistoryUserID(tenant) + "'"
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if !o.KeepEvents {
			for _, t := range storage.ForSchema("mod_patron_blocks") {
				if !strings.HasSuffix(t.Name, "_event") {
					continue
				}
				tag, err := tx.Exec(ctx, "DELETE FROM "+t.QualifiedName(tenant)+" e WHERE EXISTS (SELECT 1 FROM "+loans+
					" l WHERE l.id::text = e.jsonb->>'loanId' AND "+runLoans+")")
				if err != nil {
					return err
				}
				res.EventsRemoved += tag.RowsAffected()
			}
		}
		var names []string
		for _, t := range ResetTruncates {
			if m.ClosedLoans > 0 && t == [2]string{loanT.Schema, loanT.Name} {
				if _, err := tx.Exec(ctx, "DELETE FROM "+loans+" l WHERE "+runLoans); err != nil {
					return err
				}
				continue
			}
			names = append(names, storage.SchemaName(tenant, t[0])+"."+t[1])
		}
		if _, err := tx.Exec(ctx, "TRUNCATE "+strings.Join(names, ", ")); err != nil {
			return err
		}
		// Through the status index (its pattern operators: the index is
		// text_pattern_ops): a full scan of millions of items would make
		// every reset of a large tenant take a minute.
		status := storage.FieldExpr("status.name")
		tag, err := tx.Exec(ctx, "UPDATE "+itemT.QualifiedName(tenant)+
			` SET jsonb = jsonb_set(jsonb, '{status,name}', '"Available"') WHERE (`+status+` ~<~ 'available' OR `+status+
			` ~>~ 'available') AND jsonb->'status'->>'name' != 'Available'`)
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
