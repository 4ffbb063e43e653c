package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/folio-perf/folio-perf/minifolio/internal/cql"
	"github.com/jackc/pgx/v5"
)

// TenantsTable is where the gateway keeps enabled tenants (Okapi's tenant
// registry; Okapi proper keeps it in its own database).
const TenantsTable = "okapi.tenants"

// RefreshTokensTable returns mod-authtoken's refresh-token table of a tenant:
// single use is enforced by flipping is_revoked in one UPDATE.
func RefreshTokensTable(tenant string) string {
	return SchemaName(tenant, "mod_authtoken") + ".refresh_tokens"
}

// globalDDL creates what every tenant shares. f_unaccent lives in public so
// that index expressions and query expressions resolve to the same function
// whatever the search_path (RMB creates one per schema; one is enough here).
var globalDDL = []string{
	`CREATE EXTENSION IF NOT EXISTS unaccent`,
	`CREATE EXTENSION IF NOT EXISTS pg_trgm`,
	cql.UnaccentFunctionSQL,
	cql.FullTextFunctionsSQL,
	`CREATE SCHEMA IF NOT EXISTS okapi`,
	`CREATE TABLE IF NOT EXISTS okapi.tenants (id text PRIMARY KEY, jsonb jsonb NOT NULL)`,
}

// TableDDL returns the CREATE SCHEMA/TABLE statements of one tenant, without
// secondary indexes (IndexDDL), so a bulk load can COPY first and index after.
func TableDDL(tenant string) []string {
	var out []string
	for _, s := range Schemas() {
		out = append(out, createSchemaSQL(SchemaName(tenant, s)))
	}
	for _, t := range Tables {
		out = append(out, tableDDL(tenant, t)...)
	}
	auth := SchemaName(tenant, "mod_authtoken")
	out = append(out, createSchemaSQL(auth),
		"CREATE TABLE IF NOT EXISTS "+RefreshTokensTable(tenant)+
			" (id uuid PRIMARY KEY, user_id uuid NOT NULL, is_revoked boolean NOT NULL DEFAULT false, expires_at bigint NOT NULL)")
	return out
}

// SchemaComment marks a schema minifolio created: the CLI drops or
// re-seeds an unregistered tenant's schemas only when every one carries it
// (the debris of a seed killed before it registered the tenant), never a
// schema some other program (a real FOLIO's module) made.
const SchemaComment = "created by minifolio"

// createSchemaSQL creates a schema and marks it as minifolio's, but only
// when it does not exist yet: an existing schema keeps its owner's comment,
// so minifolio never claims what it did not create.
func createSchemaSQL(schema string) string {
	return `DO $do$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = '` + schema + `') THEN
    CREATE SCHEMA ` + schema + `;
    COMMENT ON SCHEMA ` + schema + ` IS '` + SchemaComment + `';
  END IF;
EXCEPTION WHEN duplicate_schema OR unique_violation THEN NULL;
END $do$`
}

// TenantSchemas are the schemas of a tenant (every module's and
// mod-authtoken's): what DropTenant drops.
func TenantSchemas(tenant string) []string {
	var out []string
	for _, s := range append(Schemas(), "mod_authtoken") {
		out = append(out, SchemaName(tenant, s))
	}
	return out
}

// tableDDL is the CREATE TABLE of one table.
func tableDDL(tenant string, t *Table) []string {
	cols := []string{"id uuid PRIMARY KEY", "jsonb jsonb NOT NULL"}
	for _, f := range t.FKs {
		// RMB fills FK columns with a trigger; a stored generated column
		// gives the same layout and survives raw (id, jsonb) inserts.
		cols = append(cols, fmt.Sprintf("%s uuid GENERATED ALWAYS AS ((jsonb->>'%s')::uuid) STORED",
			f.Column(), f.Field))
	}
	return []string{fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (%s)", t.QualifiedName(tenant), strings.Join(cols, ", "))}
}

// IndexDDL returns the CREATE INDEX statements of t for a tenant. Each index
// is on FieldExpr(field), the expression the CQL translator emits, so that
// PostgreSQL can match queries to it; FK fields also get an index on their column.
func IndexDDL(tenant string, t *Table) []string {
	var out []string
	q := t.QualifiedName(tenant)
	for _, ix := range t.Indexes {
		u := ""
		if ix.Unique {
			u = "UNIQUE "
		}
		where := ""
		if ix.Where != "" {
			where = " WHERE " + ix.Where
		}
		// text_pattern_ops serves both = and the LIKE of right truncation (abc*).
		out = append(out, fmt.Sprintf("CREATE %sINDEX IF NOT EXISTS %s ON %s ((%s) text_pattern_ops)%s",
			u, t.IndexName(ix), q, FieldExpr(ix.Field), where))
	}
	for _, f := range t.FKs {
		out = append(out, fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s_%s_idx ON %s (%s)", t.Name, f.Column(), q, f.Column()))
	}
	return out
}

// DDLOptions tunes CreateTenant.
type DDLOptions struct {
	// WithoutIndexes lists jsonb fields per table ("<schema>.<table>" →
	// fields) whose indexes are not created (the missing-index profile).
	WithoutIndexes map[string][]string
	// NoIndexes skips every secondary index (bulk loads add them after COPY
	// with CreateIndexes or AllIndexDDL).
	NoIndexes bool
	// NoRegister leaves the tenant out of okapi.tenants (a bulk load
	// registers it once the data is complete).
	NoRegister bool
}

// AllIndexDDL is every CREATE INDEX statement of a tenant, biggest tables'
// first, for callers that build them in parallel.
func AllIndexDDL(tenant string, opt DDLOptions) []string {
	var out []string
	for _, t := range Tables {
		tt := t
		if f := opt.WithoutIndexes[t.ID()]; len(f) > 0 {
			tt = t.WithoutIndexes(f...)
		}
		out = append(out, IndexDDL(tenant, tt)...)
	}
	return out
}

// ID is "<schema>.<table>", the key of DDLOptions.WithoutIndexes.
func (t *Table) ID() string { return t.Schema + "." + t.Name }

// EnsureGlobal creates (idempotently) what all tenants share: extensions,
// public.f_unaccent and okapi.tenants. Concurrent callers are serialised with
// an advisory lock held only for this short transaction: CREATE EXTENSION and
// CREATE FUNCTION race otherwise.
func EnsureGlobal(ctx context.Context, db TxBeginner) error {
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7130001)`); err != nil {
			return err
		}
		for _, s := range globalDDL {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("creating shared objects: %w (statement: %.80s)", err, s)
			}
		}
		return nil
	})
}

// CreateSchemas creates (idempotently) every schema, table and, unless
// opt.NoIndexes, index of a tenant, and registers the tenant. It needs
// EnsureGlobal first; inside a caller's transaction nothing is visible
// (or left behind) until that transaction commits.
func CreateSchemas(ctx context.Context, db DB, tenant string, opt DDLOptions) error {
	if !ValidTenant(tenant) {
		return fmt.Errorf("invalid tenant id %q: use letters, digits and _ (start with a letter, at most 31)", tenant)
	}
	stmts := TableDDL(tenant)
	for _, s := range stmts {
		if _, err := db.Exec(ctx, s); err != nil {
			return fmt.Errorf("creating tenant %s: %w (statement: %.120s)", tenant, err, s)
		}
	}
	if !opt.NoIndexes {
		if err := CreateIndexes(ctx, db, tenant, opt); err != nil {
			return err
		}
	}
	if opt.NoRegister {
		return nil
	}
	return Register(ctx, db, tenant)
}

// Register enables a tenant at the gateway (a row in okapi.tenants).
func Register(ctx context.Context, db DB, tenant string) error {
	_, err := db.Exec(ctx, `INSERT INTO okapi.tenants (id, jsonb) VALUES ($1, jsonb_build_object('id', $1::text, 'name', $1::text))
		ON CONFLICT (id) DO NOTHING`, tenant)
	return err
}

// CreateTenant is EnsureGlobal, then CreateSchemas in a transaction of its own.
func CreateTenant(ctx context.Context, db TxBeginner, tenant string, opt DDLOptions) error {
	if !ValidTenant(tenant) {
		return fmt.Errorf("invalid tenant id %q: use letters, digits and _ (start with a letter, at most 31)", tenant)
	}
	if err := EnsureGlobal(ctx, db); err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error { return CreateSchemas(ctx, tx, tenant, opt) })
}

// CreateIndexes creates every secondary index of a tenant (after a bulk load).
func CreateIndexes(ctx context.Context, db DB, tenant string, opt DDLOptions) error {
	for _, s := range AllIndexDDL(tenant, opt) {
		if _, err := db.Exec(ctx, s); err != nil {
			return fmt.Errorf("creating index: %w (statement: %.120s)", err, s)
		}
	}
	return nil
}

// DropIndexes drops the non-partial indexes on fields of t (a profile that
// reproduces a release without them). The opposite is EnsureIndexes.
func DropIndexes(ctx context.Context, db DB, tenant string, t *Table, fields ...string) error {
	drop := map[string]bool{}
	for _, f := range fields {
		drop[f] = true
	}
	for _, ix := range t.Indexes {
		if drop[ix.Field] && ix.Where == "" {
			if _, err := db.Exec(ctx, "DROP INDEX IF EXISTS "+SchemaName(tenant, t.Schema)+"."+t.IndexName(ix)); err != nil {
				return err
			}
		}
	}
	return nil
}

// EnsureIndexes (re)creates every declared index of t.
func EnsureIndexes(ctx context.Context, db DB, tenant string, t *Table) error {
	for _, s := range IndexDDL(tenant, t) {
		if _, err := db.Exec(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// DropTenant removes every schema of a tenant and its registration (tests).
func DropTenant(ctx context.Context, db DB, tenant string) error {
	if !ValidTenant(tenant) {
		return fmt.Errorf("invalid tenant id %q", tenant)
	}
	for _, s := range TenantSchemas(tenant) {
		if _, err := db.Exec(ctx, "DROP SCHEMA IF EXISTS "+s+" CASCADE"); err != nil {
			return err
		}
	}
	_, err := db.Exec(ctx, `DELETE FROM okapi.tenants WHERE id = $1`, tenant)
	if IsUndefinedTable(err) {
		return nil // no tenant registry yet: nothing to unregister
	}
	return err
}

// Tenants lists the registered tenants.
func Tenants(ctx context.Context, db DB) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT id FROM okapi.tenants ORDER BY id`)
	if err != nil {
		if IsUndefinedTable(err) {
			return nil, nil
		}
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Ownership is what a database holds of a tenant and who made it, read
// without changing anything (no table is created to answer).
type Ownership struct {
	Registered bool     // a row in okapi.tenants
	Seeded     bool     // that row carries the marker a finished minifolio seed writes
	Schemas    []string // the tenant's schemas that exist
	Foreign    []string // of those, the ones minifolio did not create
}

// Ours: minifolio made this tenant: a seed finished it, or minifolio
// created every schema of it that exists (a tenant of the tests, or the
// debris of a seed killed before it registered the tenant).
func (o Ownership) Ours() bool {
	return o.Seeded || (len(o.Schemas) > 0 && len(o.Foreign) == 0)
}

// ReadOwnership reads a tenant's Ownership.
func ReadOwnership(ctx context.Context, db DB, tenant string) (Ownership, error) {
	var o Ownership
	err := db.QueryRow(ctx, `SELECT true, coalesce(jsonb_typeof(jsonb->'seeded') = 'object', false) FROM okapi.tenants WHERE id = $1`,
		tenant).Scan(&o.Registered, &o.Seeded)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) && !IsUndefinedTable(err) {
		return o, err
	}
	rows, err := db.Query(ctx, `SELECT nspname, coalesce(obj_description(oid, 'pg_namespace'), '') = $2
		FROM pg_namespace WHERE nspname = ANY($1) ORDER BY nspname`, TenantSchemas(tenant), SchemaComment)
	if err != nil {
		return o, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var ours bool
		if err := rows.Scan(&name, &ours); err != nil {
			return o, err
		}
		o.Schemas = append(o.Schemas, name)
		if !ours {
			o.Foreign = append(o.Foreign, name)
		}
	}
	return o, rows.Err()
}

// EnsureModuleTables creates the tables (and their indexes) of one module
// schema that a tenant seeded by an older minifolio lacks, e.g. a table added
// for a newer release's API. It touches only tenants whose schema exists, so a
// request for a dropped tenant never brings its schema back.
func EnsureModuleTables(ctx context.Context, db DB, tenant, schema string) error {
	if !ValidTenant(tenant) {
		return fmt.Errorf("invalid tenant id %q", tenant)
	}
	var exists bool
	if err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`,
		SchemaName(tenant, schema)).Scan(&exists); err != nil || !exists {
		return err
	}
	for _, t := range Tables {
		if t.Schema != schema {
			continue
		}
		var have bool
		if err := db.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, t.QualifiedName(tenant)).Scan(&have); err != nil {
			return err
		}
		if have {
			continue
		}
		for _, s := range tableDDL(tenant, t) {
			if _, err := db.Exec(ctx, s); err != nil {
				return fmt.Errorf("creating %s: %w", t.QualifiedName(tenant), err)
			}
		}
		for _, s := range IndexDDL(tenant, t) {
			if _, err := db.Exec(ctx, s); err != nil {
				return fmt.Errorf("indexing %s: %w", t.QualifiedName(tenant), err)
			}
		}
	}
	return nil
}
