package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/cql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DB is what the record functions need: a *pgxpool.Pool, a *pgxpool.Conn or a
// pgx.Tx, so a module can run several of them in one transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// TxBeginner is a DB that can start a transaction (pool or tx).
type TxBeginner interface {
	DB
	Begin(ctx context.Context) (pgx.Tx, error)
}

// ErrNotFound is returned when no record has the id; its text is RMB's 404 body.
//
//lint:ignore ST1005 the text is the 404 body FOLIO clients see, capital and all
var ErrNotFound = errors.New("Not found")

// Open connects a pool. maxConns ≤ 0 takes $MINIFOLIO_DB_POOL or 8: ten
// module processes share one PostgreSQL, so each keeps a small pool.
func Open(ctx context.Context, dsn string, maxConns int) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx's message may quote the URL, password included: keep only the cause.
		return nil, errors.New("invalid database URL (expected postgres://user:password@host:port/db)")
	}
	if maxConns <= 0 {
		maxConns = 8
		if v, err := strconv.Atoi(os.Getenv("MINIFOLIO_DB_POOL")); err == nil && v > 0 {
			maxConns = v
		}
	}
	cfg.MaxConns = int32(maxConns)
	cfg.MaxConnIdleTime = 5 * time.Minute
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("cannot reach PostgreSQL at %s:%d: %s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, pgErrText(err))
	}
	return pool, nil
}

// pgErrText strips pgx's connection prefix, which repeats host and user.
func pgErrText(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// IsUniqueViolation reports a unique-index violation and the index name
// (e.g. "loan_itemid_idx_unique": an item already has an open loan).
func IsUniqueViolation(err error) (index string, ok bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return pe.ConstraintName, true
	}
	return "", false
}

// IsUndefinedTable reports a missing schema/table (tenant not created).
func IsUndefinedTable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "42P01" || pe.Code == "3F000")
}

// Get returns the jsonb of one record, or ErrNotFound.
func Get(ctx context.Context, db DB, tenant string, t *Table, id string) (json.RawMessage, error) {
	var doc []byte
	err := db.QueryRow(ctx, "SELECT jsonb FROM "+t.QualifiedName(tenant)+" WHERE id = $1", id).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	return doc, err
}

// GetForUpdate is Get with a row lock (FOR UPDATE), inside a transaction.
func GetForUpdate(ctx context.Context, tx pgx.Tx, tenant string, t *Table, id string) (json.RawMessage, error) {
	var doc []byte
	err := tx.QueryRow(ctx, "SELECT jsonb FROM "+t.QualifiedName(tenant)+" WHERE id = $1 FOR UPDATE", id).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	return doc, err
}

// Insert stores doc (a JSON object whose "id" equals id).
func Insert(ctx context.Context, db DB, tenant string, t *Table, id string, doc []byte) error {
	value := "$2"
	if t.Locking != LockingOff {
		value = `jsonb_set($2::jsonb, '{_version}', '1')` // RMB's trigger on INSERT
	}
	_, err := db.Exec(ctx, "INSERT INTO "+t.QualifiedName(tenant)+" (id, jsonb) VALUES ($1, "+value+")", id, doc)
	return err
}

// Update replaces the jsonb of id; ErrNotFound when there is no such record.
// On a table with optimistic locking the record is replaced only while its
// stored _version is the one doc carries (absent matches absent: records
// written before locking have none), and the stored _version goes up by
// one, all in one UPDATE: of two writers that read the same version the
// second waits for the first's row lock and then no longer matches. It then
// gets a *ConflictError with RMB's message.
func Update(ctx context.Context, db DB, tenant string, t *Table, id string, doc []byte) error {
	if t.Locking == LockingOff {
		tag, err := db.Exec(ctx, "UPDATE "+t.QualifiedName(tenant)+" SET jsonb = $2 WHERE id = $1", id, doc)
		if err == nil && tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return err
	}
	matches := `jsonb->'_version' IS NOT DISTINCT FROM $2::jsonb->'_version'`
	if t.Locking == LockingFailUnlessSuppressed {
		matches = "(" + matches + ` OR $2::jsonb->'_version' = '-1')`
	}
	tag, err := db.Exec(ctx, "UPDATE "+t.QualifiedName(tenant)+
		` SET jsonb = jsonb_set($2::jsonb, '{_version}', to_jsonb(COALESCE(((jsonb->>'_version')::numeric + 1) % 2147483648, 1)))
		WHERE id = $1 AND `+matches, id, doc)
	if err != nil || tag.RowsAffected() > 0 {
		return err
	}
	var stored, requested *string
	err = db.QueryRow(ctx, "SELECT jsonb->>'_version', $2::jsonb->>'_version' FROM "+t.QualifiedName(tenant)+" WHERE id = $1",
		id, doc).Scan(&stored, &requested)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	// RMB's trigger prints a missing _version as PostgreSQL prints NULL.
	text := func(v *string) string {
		if v == nil {
			return "<NULL>"
		}
		return *v
	}
	return &ConflictError{Msg: fmt.Sprintf("Cannot update record %s because it has been changed (optimistic locking): Stored _version is %s, _version of request is %s",
		id, text(stored), text(requested))}
}

// ConflictError is an update refused by optimistic locking: the record
// changed since the client read it (RMB's 23F09, answered 409).
type ConflictError struct{ Msg string }

func (e *ConflictError) Error() string { return e.Msg }

// Delete removes id; ErrNotFound when there is no such record.
func Delete(ctx context.Context, db DB, tenant string, t *Table, id string) error {
	tag, err := db.Exec(ctx, "DELETE FROM "+t.QualifiedName(tenant)+" WHERE id = $1", id)
	if err == nil && tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return err
}

// Page is one page of a collection GET.
type Page struct {
	Records []json.RawMessage
	Total   int
}

// exactCountLimit is RMB's exactCount (default 1000, schema.json's
// "exactCount").
const exactCountLimit = 1000

// Find runs a CQL query (RMB semantics, via package cql) and returns one page.
// Fields without an index are logged with RMB's WARN line, because the
// missing-index profile and its tests look for it in module logs.
// A *QueryError means the client sent bad CQL (400).
func Find(ctx context.Context, db DB, tenant string, t *Table, cqlQuery string, limit, offset int) (Page, error) {
	tr, err := translate(t, cqlQuery)
	if err != nil {
		return Page{}, &QueryError{Msg: rmbQueryMessage(t, cqlQuery, err)}
	}
	for _, f := range tr.Unindexed {
		slog.Warn("Doing "+tr.Search[f]+" without index for "+f, "table", t.Name, "cql", cqlQuery)
	}
	return FindWhere(ctx, db, tenant, t, tr.Where, tr.OrderBy, tr.Args, limit, offset)
}

// rmbQueryMessage is RMB's 400 text for a query CQL2PgJSON refuses: the
// exception chain as Java prints it (PgUtil answers with the
// CQLQueryValidationException's message, the toString of its cause):
// "org.folio.cql2pgjson.exception.QueryValidationException:
// org.z3950.zing.cql.CQLParseException: <msg>" for a syntax error, without
// the CQLParseException part for a query that parses but cannot be
// translated. mod-users adds ": <query>".
func rmbQueryMessage(t *Table, q string, err error) string {
	msg := err.Error()
	var ce *cql.Error
	if errors.As(err, &ce) && ce.Syntax {
		msg = "org.z3950.zing.cql.CQLParseException: " + msg
	}
	msg = "org.folio.cql2pgjson.exception.QueryValidationException: " + msg
	if t.Module == "mod-users" {
		msg += ": " + q
	}
	return msg
}

// QueryError is a client error in a query (bad CQL); its message goes to the
// client as RMB's 400 text/plain body.
type QueryError struct{ Msg string }

func (e *QueryError) Error() string { return e.Msg }

// FindWhere is Find for SQL written by a module: where is a boolean SQL
// expression on the table's columns (use $1.. for args), orderBy may be "".
func FindWhere(ctx context.Context, db DB, tenant string, t *Table, where, orderBy string, args []any, limit, offset int) (Page, error) {
	filtered := where != ""
	if where == "" {
		where = "true"
	}
	from := " FROM " + t.QualifiedName(tenant) + " WHERE " + where
	q := "SELECT jsonb" + from
	if orderBy != "" {
		q += " ORDER BY " + orderBy
	}
	n := len(args)
	q += fmt.Sprintf(" LIMIT $%d OFFSET $%d", n+1, n+2)
	rows, err := db.Query(ctx, q, append(append([]any{}, args...), limit, offset)...)
	if err != nil {
		return Page{}, err
	}
	recs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (json.RawMessage, error) {
		var b []byte
		err := r.Scan(&b)
		return b, err
	})
	if err != nil {
		return Page{}, err
	}
	p := Page{Records: recs}
	if recs == nil {
		p.Records = []json.RawMessage{}
	}
	// RMB runs its count query for every page, then overrides it when the
	// page proves the total (totalRecordsFor): a page that is not full, or
	// an empty first page, needs no count.
	if limit > 0 && len(recs) < limit && (len(recs) > 0 || offset == 0) {
		p.Total = offset + len(recs)
		return p, nil
	}
	count, err := rmbCount(ctx, db, from, args, filtered, limit)
	if err != nil {
		return Page{}, err
	}
	p.Total = totalRecordsFor(len(recs), count, offset, limit)
	return p, nil
}

// rmbCount is the count RMB's PostgresClient asks PostgreSQL for
// (raml-module-builder, PostgresClient.buildQueryHelper, v33–v35): limit=0
// is an exact count; so is a GET without a filter (the count query has no
// WHERE); a filtered GET (a CQL query, even cql.allRecords=1, or a module's
// criteria) calls the count_estimate SQL function of RMB's
// templates/db_scripts/general_functions.ftl, mirrored step by step here.
func rmbCount(ctx context.Context, db DB, from string, args []any, filtered bool, limit int) (int, error) {
	var n int
	if limit == 0 || !filtered {
		err := db.QueryRow(ctx, "SELECT count(*)"+from, args...).Scan(&n)
		return n, err
	}
	// count_estimate(query):
	// 1. the planner's estimate; above 4 × exactCount it is the answer.
	est, err := estimate(ctx, db, "SELECT jsonb"+from, args)
	if err != nil {
		return 0, err
	}
	if est > 4*exactCountLimit {
		return est, nil
	}
	// 2. an exact count of at most exactCount rows; below it, exact.
	err = db.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM (SELECT 1%s LIMIT %d) x", from, exactCountLimit), args...).Scan(&n)
	if err != nil {
		return 0, err
	}
	if n < exactCountLimit {
		return n, nil
	}
	// 3. at least exactCount rows: the estimate, but never below exactCount.
	return max(est, exactCountLimit), nil
}

// totalRecordsFor is RMB's PostgresClient.getTotalRecords: the count,
// corrected by what the page proves. An empty page past the end gives
// min(offset, count), so a count above the real total (an estimate) makes
// totalRecords the offset, as in FOLIO.
func totalRecordsFor(got, count, offset, limit int) int {
	switch {
	case limit == 0:
		return count
	case got == 0:
		return min(offset, count)
	case got == limit:
		return max(offset+limit, count)
	}
	return offset + got
}

// estimate is the planner's row estimate, as RMB's totalRecords beyond its
// exact-count limit.
func estimate(ctx context.Context, db DB, q string, args []any) (int, error) {
	var plan []byte
	if err := db.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+q, args...).Scan(&plan); err != nil {
		return 0, err
	}
	var p []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal(plan, &p); err != nil || len(p) == 0 {
		return 0, fmt.Errorf("reading plan estimate: %v", err)
	}
	return int(p[0].Plan.Rows), nil
}
