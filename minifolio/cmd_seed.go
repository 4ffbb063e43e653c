package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/folio-perf/folio-perf/minifolio/internal/seed"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

func cmdSeed(args []string, out io.Writer) error {
	fs := newFlags("seed")
	tenant := fs.String("tenant", "fs09000000", "tenant id")
	admin := fs.String("admin-user", "folio_admin", "operator username")
	pass := fs.String("admin-password", "", "operator password (default $MINIFOLIO_ADMIN_PASSWORD, else \"admin\"; local-only)")
	scale := fs.String("scale", "", "a preset of every size below ("+strings.Join(seed.PresetNames(), ", ")+"; docs/scale.md); a size flag given too wins")
	items := fs.Int("items", 1000, "items, spread in order over the holdings records")
	holdings := fs.Int("holdings", 0, "holdings records, spread in order over the instances (default: one per item)")
	instances := fs.Int("instances", 0, "instances (default: one per holdings record)")
	users := fs.Int("users", 100, "active patrons without blocks")
	loans := fs.Int("loans", 0, "open loans on the first N items (items \"Checked out\")")
	events := fs.Int("events-per-user", 0, "past loans per user: check-out/check-in event pairs (patron-block history)")
	eventUsers := fs.Int("event-users", 0, "how many users get that history (default: all)")
	closedLoans := fs.Int("closed-loans", 0, "closed loans of the past, spread over every patron and item, as a production FOLIO keeps them (reset keeps them)")
	authorities := fs.Int("authorities", 0, "MARC authority records (personal, corporate, topical, geographic headings with see-from references)")
	diskFree := fs.String("disk-free", "", "free space to assume on the database's disk instead of measuring it, e.g. 40GB (a database on another filesystem)")
	copyDir := fs.String("copy-dir", "", "write each bulk table's COPY stream (PostgreSQL binary format) into this directory instead of seeding (make bench-minifolio-seed's floor)")
	textSeed := fs.Int64("seed", 1, "seed of the bibliographic text (titles, contributors, subjects, headings from the wamerican word list): same seed, same data")
	force := fs.Bool("force", false, "drop the tenant if it exists and seed again")
	quiet := fs.Bool("quiet", false, "no progress lines")
	forceRemote := forceRemoteFlag(fs)
	db := dbFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	dsn, err := dbURL(*db)
	if err != nil {
		return err
	}
	pw := *pass
	if pw == "" {
		pw = os.Getenv("MINIFOLIO_ADMIN_PASSWORD")
	}
	if pw == "" {
		pw = "admin" // documented local-only default, as FOLIO's own dev setups
	}
	o := seed.Options{Tenant: *tenant, AdminUser: *admin, AdminPassword: pw, Items: *items, Holdings: *holdings, Instances: *instances,
		Users: *users, Loans: *loans, EventsPerUser: *events, EventUsers: *eventUsers, ClosedLoans: *closedLoans,
		Authorities: *authorities, TextSeed: *textSeed, Force: *force, CopyDir: *copyDir}
	if *scale != "" {
		p, err := seed.Preset(*scale)
		if err != nil {
			return fail(err.Error(), "pick a preset, or give the sizes with --items, --users ...")
		}
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		p.Apply(&o, given)
		o.Scale = p.Name
	}
	if *diskFree != "" {
		n, err := parseBytes(*diskFree)
		if err != nil {
			return fail(err.Error(), "give --disk-free as bytes or with a unit, e.g. 40GB or 500MB")
		}
		o.DiskFree = n
	}
	if !*quiet {
		o.Progress = out
	}
	if err := o.Validate(); err != nil {
		return fail(err.Error(), "correct the flags (minifolio seed -h)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	op := opSeed
	if *force {
		op = opSeedForce
	}
	g := guard{cmd: "seed", tenant: *tenant, op: op, forceRemote: *forceRemote}
	pool, err := g.open(ctx, dsn, 4) // parallel COPY and index builds
	if err != nil {
		return err
	}
	defer pool.Close()
	res, err := seed.Run(ctx, pool, o)
	switch {
	case errors.Is(err, seed.ErrExists):
		return fail(fmt.Sprintf("tenant %s has the schemas of a minifolio seed that did not finish", *tenant), "add --force to drop them and seed again")
	case errors.Is(err, seed.ErrDiskShort):
		return fail(err.Error(), "free space (drop a tenant you no longer need: minifolio drop --tenant <name>) or seed a smaller --scale")
	case errors.Is(err, seed.ErrNoDict):
		return fail(err.Error(), "apt-get install wamerican (make deps installs it)")
	case errors.Is(err, context.Canceled):
		return fail("interrupted; what was written has been dropped", "run the seed again")
	case err != nil:
		return err
	case res.Skipped:
		m := res.Seeded
		if m.Items != o.Items || m.Users != o.Users || m.Authorities != o.Authorities {
			// asked for other sizes than the tenant has: say so, not "nothing done" alone
			fmt.Fprintf(out, "tenant %s holds %d items, %d users, %d authorities, not the %d, %d, %d asked for: drop it (minifolio drop --tenant %s) or add --force to seed it again\n",
				*tenant, m.Items, m.Users, m.Authorities, o.Items, o.Users, o.Authorities, *tenant)
		}
		fmt.Fprintf(out, "tenant %s is already seeded (%d items, %d users, %d loans, %d authorities at %s); nothing done. Use --force to drop it and seed again.\n",
			*tenant, m.Items, m.Users, m.Loans, m.Authorities, m.At)
		return nil
	}
	m := res.Seeded
	if o.CopyDir != "" {
		fmt.Fprintf(out, "wrote the bulk tables' COPY streams to %s in %s; nothing was seeded\n", o.CopyDir, res.Took.Round(1e7))
		return nil
	}
	fmt.Fprintf(out, "seeded tenant %s: %d items (%d holdings, %d instances), %d authorities, %d users, %d open loans, %d closed loans, %d past loans per user for %d users in %s\n",
		*tenant, m.Items, m.Holdings, m.Instances, m.Authorities, m.Users, m.Loans, m.ClosedLoans, m.EventsPerUser, m.EventUsers, res.Took.Round(1e7))
	if !*quiet {
		fmt.Fprintf(out, "  operator %s (password from --admin-password / MINIFOLIO_ADMIN_PASSWORD, default \"admin\": local only)\n", *admin)
		if m.Items > 0 {
			fmt.Fprintf(out, "  items %s..%s (checked out: the first %d), Missing: %s..%s\n", seed.ItemBarcode(0), seed.ItemBarcode(m.Items-1),
				m.Loans, seed.MissingItemBarcode(0), seed.MissingItemBarcode(seed.SpecialUsers-1))
		}
		if m.Users > 0 {
			fmt.Fprintf(out, "  patrons %s..%s, inactive %s..%s, manually blocked %s..%s\n", seed.UserBarcode(0), seed.UserBarcode(m.Users-1),
				seed.InactiveUserBarcode(0), seed.InactiveUserBarcode(seed.SpecialUsers-1),
				seed.BlockedUserBarcode(0), seed.BlockedUserBarcode(seed.SpecialUsers-1))
		}
	}
	return nil
}

func cmdReset(args []string, out io.Writer) error {
	fs := newFlags("reset")
	tenant := fs.String("tenant", "fs09000000", "tenant id")
	keep := fs.Bool("keep-events", false, "keep the patron-block events of the truncated loans, as PTF's restore SQL does (the history then grows with every run)")
	forceRemote := forceRemoteFlag(fs)
	db := dbFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if !storage.ValidTenant(*tenant) {
		return fail(fmt.Sprintf("invalid --tenant %q", *tenant), "letters, digits and _, starting with a letter, at most 31")
	}
	dsn, err := dbURL(*db)
	if err != nil {
		return err
	}
	ctx := context.Background()
	pool, err := guard{cmd: "reset", tenant: *tenant, op: opReset, forceRemote: *forceRemote}.open(ctx, dsn, 2)
	if err != nil {
		return err
	}
	defer pool.Close()
	res, err := seed.Reset(ctx, pool, *tenant, seed.ResetOptions{KeepEvents: *keep})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "reset tenant %s: circulation tables truncated, %d items made Available, %d patron-block events of those loans removed\n",
		*tenant, res.ItemsMadeAvailable, res.EventsRemoved)
	return nil
}

func cmdDrop(args []string, out io.Writer) error {
	fs := newFlags("drop")
	tenant := fs.String("tenant", "", "tenant id to delete with all its schemas (required; only a tenant minifolio seeded)")
	forceRemote := forceRemoteFlag(fs)
	db := dbFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *tenant == "" || !storage.ValidTenant(*tenant) {
		return fail(fmt.Sprintf("invalid --tenant %q", *tenant), "name the tenant to drop, e.g. --tenant minifolio_bench")
	}
	dsn, err := dbURL(*db)
	if err != nil {
		return err
	}
	ctx := context.Background()
	pool, err := guard{cmd: "drop", tenant: *tenant, op: opDrop, forceRemote: *forceRemote}.open(ctx, dsn, 1)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := storage.DropTenant(ctx, pool, *tenant); err != nil {
		return err
	}
	fmt.Fprintf(out, "dropped tenant %s (its schemas and its registration, if any)\n", *tenant)
	return nil
}

// parseBytes reads a size: bytes, or a number with kB, MB, GB or TB
// (decimal, as df -H prints them).
func parseBytes(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range []struct {
		suffix string
		m      float64
	}{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.m
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return int64(v * mult), nil
}
