package main

import (
	"context"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
)

func TestTenantOpAllowed(t *testing.T) {
	var (
		nothing  = storage.Ownership{}
		seeded   = storage.Ownership{Registered: true, Seeded: true, Schemas: []string{"t_mod_users"}}
		oldSeed  = storage.Ownership{Registered: true, Seeded: true, Schemas: []string{"t_mod_users"}, Foreign: []string{"t_mod_users"}}
		unmarked = storage.Ownership{Registered: true, Schemas: []string{"t_mod_users"}}
		debris   = storage.Ownership{Schemas: []string{"t_mod_users"}}
		foreign  = storage.Ownership{Schemas: []string{"t_mod_users"}, Foreign: []string{"t_mod_users"}}
	)
	ok := ""
	for _, c := range []struct {
		name string
		op   tenantOp
		st   storage.Ownership
		want string // "" allowed, else part of the refusal
	}{
		{"seed a new tenant", opSeed, nothing, ok},
		{"seed a seeded tenant (seed.Run skips it)", opSeed, seeded, ok},
		{"seed over a seed's debris (seed.Run asks for --force)", opSeed, debris, ok},
		{"seed a registered tenant without the marker", opSeed, unmarked, "carries no minifolio seed marker"},
		{"seed over another program's schemas", opSeed, foreign, "minifolio did not create (t_mod_users)"},
		{"seed --force a seeded tenant", opSeedForce, seeded, ok},
		{"seed --force a tenant seeded before schemas were marked", opSeedForce, oldSeed, ok},
		{"seed --force over a seed's debris", opSeedForce, debris, ok},
		{"seed --force a new tenant", opSeedForce, nothing, ok},
		{"seed --force a registered tenant without the marker", opSeedForce, unmarked, "minifolio drops only what it made"},
		{"seed --force over another program's schemas", opSeedForce, foreign, "minifolio drops only what it made"},
		{"drop a seeded tenant", opDrop, seeded, ok},
		{"drop a seed's debris", opDrop, debris, ok},
		{"drop what is not there", opDrop, nothing, ok},
		{"drop a registered tenant without the marker", opDrop, unmarked, "carries no minifolio seed marker"},
		{"drop another program's schemas", opDrop, foreign, "DROP SCHEMA"},
		{"reset a seeded tenant", opReset, seeded, ok},
		{"reset an unknown tenant", opReset, nothing, "no tenant t in this database"},
		{"reset a seed's debris", opReset, debris, "no tenant t in this database"},
		{"reset a registered tenant without the marker", opReset, unmarked, "minifolio resets only what its seed made"},
	} {
		err := c.op.allowed("t", c.st)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused (%v), want allowed", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Fix:")):
			t.Errorf("%s: got %v, want a refusal with its fix containing %q", c.name, err, c.want)
		}
	}
}

func TestDBIsLocal(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		dsn   string
		local bool
		host  string
	}{
		{"postgres://folio:pw@127.0.0.1:55432/folio", true, "127.0.0.1"},
		{"postgres://folio:pw@127.8.9.10/folio", true, "127.8.9.10"},
		{"postgres://folio:pw@localhost/folio", true, "localhost"},
		{"postgres://folio:pw@[::1]:5432/folio", true, "::1"},
		{"host=/var/run/postgresql dbname=folio", true, "/var/run/postgresql"},
		{"postgres://folio:pw@192.0.2.10:5432/folio", false, "192.0.2.10"},
		{"postgres://folio:pw@folio-db.invalid/folio", false, "folio-db.invalid"},
		{"postgres://folio:pw@127.0.0.1,192.0.2.10/folio", false, "192.0.2.10"}, // every fallback host counts
	} {
		host, local, err := dbIsLocal(ctx, c.dsn)
		if err != nil || local != c.local || host != c.host {
			t.Errorf("dbIsLocal(%q) = %q, %v, %v; want %q, %v", c.dsn, host, local, err, c.host, c.local)
		}
	}
	if _, _, err := dbIsLocal(ctx, "postgres://folio:S3cretPw@127.0.0.1:notaport/folio"); err == nil || strings.Contains(err.Error(), "S3cretPw") {
		t.Errorf("a URL that does not parse: %v (want an error without the password)", err)
	}
}

// TestGuardOnForeignDatabase is the mistake the guard exists for: MINIFOLIO_DB
// points at another system's database (here a fresh one holding a tenant
// "diku" as a real FOLIO would), and seed --force, drop and reset must
// leave it exactly as it was: no DROP, no TRUNCATE, not even minifolio's
// global DDL (extensions, okapi.tenants, public.f_unaccent).
func TestGuardOnForeignDatabase(t *testing.T) {
	dsn := storagetest.DSN(t)
	admin := storagetest.Pool(t)
	ctx := context.Background()
	dbName := strings.ToLower(storagetest.TenantName("fp_guard"))
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+dbName); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)") })
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + dbName
	foreignDSN := u.String()
	conn, err := pgx.Connect(ctx, foreignDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(ctx, `CREATE SCHEMA diku_mod_users;
		CREATE TABLE diku_mod_users.users (id uuid PRIMARY KEY, jsonb jsonb NOT NULL);
		INSERT INTO diku_mod_users.users VALUES ('0e6f4a2c-0b1e-4a8a-9a57-1c2d3e4f5a6b', '{"username":"diku_admin"}')`); err != nil {
		t.Fatal(err)
	}
	untouched := func(when string, wantOkapi bool) {
		t.Helper()
		var users int
		var okapiSchema, unaccent, fn bool
		err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM diku_mod_users.users),
			EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'okapi'),
			EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'unaccent'),
			EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'f_unaccent')`).Scan(&users, &okapiSchema, &unaccent, &fn)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if users != 1 || okapiSchema != wantOkapi || unaccent || fn {
			t.Fatalf("%s: the foreign database changed (users rows %d, okapi schema %v, unaccent %v, f_unaccent %v)",
				when, users, okapiSchema, unaccent, fn)
		}
	}
	bin := buildBinary(t)
	env := []string{"MINIFOLIO_DB=" + foreignDSN}
	refused := func(want string, args ...string) {
		t.Helper()
		r := runBin(t, bin, env, args...)
		if r.code != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "Fix:") ||
			strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Fatalf("%v: exit %d, stderr %q; want exit 1 and one line containing %q and its fix", args, r.code, r.stderr, want)
		}
	}

	refused("minifolio drops only what it made", "drop", "--tenant", "diku")
	untouched("after drop", false)
	refused("minifolio drops only what it made", "seed", "--tenant", "diku", "--force", "--items", "1", "--users", "1", "--quiet")
	untouched("after seed --force", false)
	refused("minifolio did not create (diku_mod_users)", "seed", "--tenant", "diku", "--items", "1", "--users", "1", "--quiet")
	untouched("after seed", false)
	refused("no tenant diku in this database", "reset", "--tenant", "diku")
	untouched("after reset", false)

	// Registered in a tenant table of that name but not by a minifolio seed.
	if _, err := conn.Exec(ctx, `CREATE SCHEMA okapi; CREATE TABLE okapi.tenants (id text PRIMARY KEY, jsonb jsonb NOT NULL);
		INSERT INTO okapi.tenants VALUES ('diku', '{"id":"diku"}')`); err != nil {
		t.Fatal(err)
	}
	refused("carries no minifolio seed marker", "reset", "--tenant", "diku")
	refused("carries no minifolio seed marker", "drop", "--tenant", "diku")
	refused("carries no minifolio seed marker", "seed", "--tenant", "diku", "--force", "--items", "1", "--users", "1", "--quiet")
	untouched("after the registered tenant's refusals", true)
}

// TestGuardSeedDebris: a seed killed before it registered its tenant leaves
// schemas that minifolio marked as its own; seed --force and drop clear
// them (the guard must not lock the user out of their own debris).
func TestGuardSeedDebris(t *testing.T) {
	dsn := storagetest.DSN(t)
	pool := storagetest.Pool(t)
	ctx := context.Background()
	tenant := storagetest.TenantName("debris")
	t.Cleanup(func() { _ = storage.DropTenant(context.Background(), pool, tenant) })
	bin := buildBinary(t)
	env := []string{"MINIFOLIO_DB=" + dsn}
	if r := runBin(t, bin, env, "seed", "--tenant", tenant, "--items", "3", "--users", "2", "--quiet"); r.code != 0 {
		t.Fatalf("seed: %+v", r)
	}
	unregister := func() {
		t.Helper()
		if _, err := pool.Exec(ctx, `DELETE FROM okapi.tenants WHERE id = $1`, tenant); err != nil {
			t.Fatal(err)
		}
	}
	unregister()
	if r := runBin(t, bin, env, "seed", "--tenant", tenant, "--items", "3", "--users", "2", "--quiet"); r.code != 1 ||
		!strings.Contains(r.stderr, "did not finish. Fix: add --force") {
		t.Fatalf("seed over debris without --force: %+v", r)
	}
	if r := runBin(t, bin, env, "seed", "--tenant", tenant, "--force", "--items", "3", "--users", "2", "--quiet"); r.code != 0 {
		t.Fatalf("seed --force over debris: %+v", r)
	}
	unregister()
	if r := runBin(t, bin, env, "drop", "--tenant", tenant); r.code != 0 {
		t.Fatalf("drop of debris: %+v", r)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname = ANY($1)`, storage.TenantSchemas(tenant)).Scan(&n); err != nil || n != 0 {
		t.Fatalf("drop left %d schemas (%v)", n, err)
	}
}

// TestGuardRemoteDatabase: a database host that is not a loopback address
// is refused before minifolio connects to it; --force-remote lets it try.
// The "remote" database is a listener on an address of this machine that
// is not loopback, which counts every connection made to it.
func TestGuardRemoteDatabase(t *testing.T) {
	var ip net.IP
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			ip = n.IP
			break
		}
	}
	if ip == nil {
		t.Skip("this machine has no non-loopback IPv4 address to listen on")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	bin := buildBinary(t)
	env := []string{"MINIFOLIO_DB=postgres://folio:S3cretRemotePw@" + ln.Addr().String() + "/folio?sslmode=disable&connect_timeout=5"}
	for _, args := range [][]string{
		{"seed", "--quiet"}, {"seed", "--force", "--quiet"}, {"reset"}, {"drop", "--tenant", "fs09000000"},
	} {
		r := runBin(t, bin, env, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "host "+ip.String()+" is not a loopback address") ||
			!strings.Contains(r.stderr, "Fix: point MINIFOLIO_DB at 127.0.0.1, or add --force-remote") ||
			strings.Contains(r.stderr, "S3cretRemotePw") {
			t.Errorf("%v: exit %d, stderr %q; want the one-line refusal without the password", args, r.code, r.stderr)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the refused commands connected %d times to the remote database", n)
	}
	r := runBin(t, bin, env, "drop", "--tenant", "fs09000000", "--force-remote")
	if r.code != 1 || !strings.Contains(r.stderr, "cannot reach PostgreSQL") || conns.Load() == 0 {
		t.Fatalf("--force-remote: exit %d, stderr %q, %d connections; want it to try the database", r.code, r.stderr, conns.Load())
	}
}
