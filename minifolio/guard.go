package main

// The guard of the commands that write to a database (seed, reset, drop):
// they run only on a database on this machine (unless --force-remote), and
// they drop, truncate or re-seed only a tenant minifolio made. Both checks
// run before the first statement that changes anything, so a mistaken
// MINIFOLIO_DB (a real FOLIO's database, whose tenant may well be called
// diku or fs09000000) is left exactly as it was.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// tenantOp is what a command is about to do to a tenant.
type tenantOp int

const (
	opSeed      tenantOp = iota // create it (no --force): refused on a tenant that exists
	opSeedForce                 // drop it if it exists, then create it
	opReset                     // truncate its circulation tables
	opDrop                      // drop every schema of it
)

// guard is the check at the top of seed, reset and drop: the database must
// be local (or --force-remote), and the tenant must be minifolio's for the
// operation. It opens the pool only after the first check and returns it
// only after the second.
type guard struct {
	cmd         string // for messages: "seed", "reset", "drop"
	tenant      string
	op          tenantOp
	forceRemote bool
}

// forceRemoteFlag registers --force-remote on a command that the guard protects.
func forceRemoteFlag(fs interface {
	Bool(string, bool, string) *bool
}) *bool {
	return fs.Bool("force-remote", false,
		"allow a database that is not on this machine (MINIFOLIO_DB's host is not loopback): only for a disposable minifolio database")
}

// open checks the database's host, connects, and checks the tenant; on any
// refusal nothing has been written.
func (g guard) open(ctx context.Context, dsn string, conns int) (*pgxpool.Pool, error) {
	if !g.forceRemote {
		host, local, err := dbIsLocal(ctx, dsn)
		if err != nil {
			return nil, fail("cannot read the database URL: "+err.Error(), "correct --db / MINIFOLIO_DB")
		}
		if !local {
			return nil, fail(fmt.Sprintf("the database host %s is not a loopback address: minifolio %s writes only to a database on this machine",
				host, g.cmd), "point MINIFOLIO_DB at 127.0.0.1, or add --force-remote if that database is a disposable minifolio one")
		}
	}
	pool, err := openDB(ctx, dsn, conns)
	if err != nil {
		return nil, err
	}
	st, err := storage.ReadOwnership(ctx, pool, g.tenant)
	if err == nil {
		err = g.op.allowed(g.tenant, st)
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// allowed decides from the tenant's state alone (pure: unit-tested).
// A seeded tenant is minifolio's; so is an unregistered one whose every
// schema minifolio created (a seed killed before it registered the tenant).
// Anything else may be another program's data: refused, whatever the flags.
func (op tenantOp) allowed(tenant string, st storage.Ownership) error {
	notOurs := ""
	switch {
	case st.Seeded:
		// minifolio's own marker; schemas of a seed older than their
		// comment have none, and are minifolio's all the same.
	case st.Registered:
		notOurs = fmt.Sprintf("tenant %s is registered but carries no minifolio seed marker", tenant)
	case len(st.Foreign) > 0:
		notOurs = fmt.Sprintf("tenant %s has schemas minifolio did not create (%s)", tenant, strings.Join(st.Foreign, ", "))
	}
	switch op {
	case opReset:
		if !st.Registered {
			return fail(fmt.Sprintf("no tenant %s in this database", tenant), fmt.Sprintf("seed it first (minifolio seed --tenant %s)", tenant))
		}
		if notOurs != "" {
			return fail(notOurs+": minifolio resets only what its seed made", "check MINIFOLIO_DB and --tenant; reset another system's data with its own tools")
		}
	case opDrop, opSeedForce:
		if notOurs != "" {
			return fail(notOurs+": minifolio drops only what it made",
				"check MINIFOLIO_DB and --tenant; if that data really is disposable, drop it yourself (DROP SCHEMA … CASCADE)")
		}
	case opSeed:
		if notOurs != "" {
			return fail(notOurs, "seed another --tenant, or check MINIFOLIO_DB")
		}
		// What remains (a seeded tenant, a seed's debris) seed.Run handles:
		// it skips the one and asks for --force to replace the other.
	}
	return nil
}

// dbIsLocal reports whether every host the URL names is this machine: a
// Unix socket, localhost, a loopback address, or a name that resolves
// only to loopback addresses. host is what to name in a message (never
// the password).
func dbIsLocal(ctx context.Context, dsn string) (host string, local bool, err error) {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return "", false, errors.New(redactParseError(err))
	}
	hosts := []string{cfg.Host}
	for _, f := range cfg.Fallbacks {
		hosts = append(hosts, f.Host)
	}
	for _, h := range hosts {
		if !hostIsLocal(ctx, h) {
			return h, false, nil
		}
	}
	return cfg.Host, true, nil
}

func hostIsLocal(ctx context.Context, h string) bool {
	if strings.HasPrefix(h, "/") || strings.EqualFold(h, "localhost") {
		return true // a Unix socket directory is on this machine by definition
	}
	if ip := net.ParseIP(strings.Trim(h, "[]")); ip != nil {
		return ip.IsLoopback()
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, h)
	if err != nil || len(addrs) == 0 {
		return false
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return false
		}
	}
	return true
}

// redactParseError keeps pgconn's reason but not the URL it quotes, which
// may carry a password.
func redactParseError(err error) string {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) && pe.Unwrap() != nil {
		return pe.Unwrap().Error()
	}
	return "it does not parse as a PostgreSQL URL"
}
