package seed_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/folio-perf/folio-perf/minifolio/internal/seed"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func TestSeedAndReset(t *testing.T) {
	pool := storagetest.Pool(t)
	ctx := context.Background()
	tenant := storagetest.TenantName("seedt")
	t.Cleanup(func() { _ = storage.DropTenant(context.Background(), pool, tenant) })
	o := seed.Options{Tenant: tenant, AdminUser: "folio_admin", AdminPassword: "admin",
		Items: 300, Users: 40, Loans: 25, EventsPerUser: 3, EventUsers: 4}
	res, err := seed.Run(ctx, pool, o)
	if err != nil || res.Skipped {
		t.Fatalf("seed: %v %+v", err, res)
	}
	inv, circ := tenant+"_mod_inventory_storage", tenant+"_mod_circulation_storage"
	// Counts: bulk rows plus the documented special records.
	checks := []struct {
		sql  string
		want int
	}{
		{"SELECT count(*) FROM " + inv + ".instance", 300},
		{"SELECT count(*) FROM " + inv + ".holdings_record", 300},
		{"SELECT count(*) FROM " + inv + ".item", 300 + seed.SpecialUsers},
		{"SELECT count(*) FROM " + inv + ".item WHERE jsonb->'status'->>'name' = 'Checked out'", 25},
		{"SELECT count(*) FROM " + inv + ".item WHERE jsonb->'status'->>'name' = 'Missing'", seed.SpecialUsers},
		{"SELECT count(*) FROM " + tenant + "_mod_users.users", 40 + 1 + 2*seed.SpecialUsers},
		{"SELECT count(*) FROM " + tenant + "_mod_users.users WHERE jsonb->>'active' = 'false'", seed.SpecialUsers},
		{"SELECT count(*) FROM " + tenant + "_mod_feesfines.manualblocks", seed.SpecialUsers},
		{"SELECT count(*) FROM " + circ + ".loan WHERE jsonb->'status'->>'name' = 'Open'", 25},
		{"SELECT count(*) FROM " + tenant + "_mod_patron_blocks.item_checked_out_event", 12},
		{"SELECT count(*) FROM " + tenant + "_mod_patron_blocks.item_checked_in_event", 12},
		{"SELECT count(*) FROM " + tenant + "_mod_login.auth_credentials", 1},
		{"SELECT count(*) FROM " + circ + ".circulation_rules WHERE jsonb->>'rulesAsText' LIKE '%fallback-policy: l %'", 1},
		// every open loan points at a checked-out item (FK column filled by the generated column)
		{"SELECT count(*) FROM " + circ + ".loan l JOIN " + inv + ".item i ON i.id = (l.jsonb->>'itemId')::uuid" +
			" WHERE i.jsonb->'status'->>'name' = 'Checked out' AND i.holdingsrecordid IS NOT NULL", 25},
		// seeded loans were made by the operator, so k6's CHECKIN_POOL=own takes them
		{"SELECT count(*) FROM " + circ + ".loan l JOIN " + tenant + "_mod_users.users u ON u.id::text = l.jsonb->'metadata'->>'createdByUserId'" +
			" WHERE u.jsonb->>'username' = 'folio_admin'", 25},
		// indexes were built after the COPY
		{"SELECT count(*) FROM pg_indexes WHERE schemaname = '" + inv + "' AND indexname = 'item_barcode_idx_unique'", 1},
		{"SELECT count(*) FROM pg_indexes WHERE schemaname = '" + circ + "' AND indexname = 'loan_itemid_idx_unique'", 1},
	}
	for _, c := range checks {
		if got := count(t, pool, c.sql); got != c.want {
			t.Errorf("%s = %d, want %d", c.sql, got, c.want)
		}
	}
	// Deterministic: the documented barcode has the derived id.
	if n := count(t, pool, "SELECT count(*) FROM "+inv+".item WHERE id = $1 AND jsonb->>'barcode' = $2",
		seed.IDString(tenant, "item", 7), seed.ItemBarcode(7)); n != 1 {
		t.Errorf("item 7 is not %s with its derived id", seed.ItemBarcode(7))
	}

	// Idempotent: a second run changes nothing.
	res, err = seed.Run(ctx, pool, o)
	if err != nil || !res.Skipped || res.Seeded.Items != 300 {
		t.Fatalf("second seed: %v %+v", err, res)
	}
	if n := count(t, pool, "SELECT count(*) FROM "+inv+".item"); n != 300+seed.SpecialUsers {
		t.Fatalf("second seed duplicated items: %d", n)
	}

	// A check-out's worth of circulation state (a user summary, the events of
	// a run's loan), then PTF's reset.
	pb := tenant + "_mod_patron_blocks"
	runEvents := func() {
		t.Helper()
		_, err := pool.Exec(ctx, "INSERT INTO "+pb+".user_summary (id, jsonb) VALUES (gen_random_uuid(), '{\"userId\":\"x\"}');"+
			"INSERT INTO "+pb+".item_checked_out_event (id, jsonb) SELECT gen_random_uuid(), jsonb_build_object('userId', 'x', 'loanId', id) FROM "+circ+".loan LIMIT 2;"+
			"INSERT INTO "+pb+".item_checked_in_event (id, jsonb) SELECT gen_random_uuid(), jsonb_build_object('userId', 'x', 'loanId', id) FROM "+circ+".loan LIMIT 1")
		if err != nil {
			t.Fatal(err)
		}
	}
	runEvents()
	rr, err := seed.Reset(ctx, pool, tenant, seed.ResetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rr.ItemsMadeAvailable != 25+seed.SpecialUsers || rr.EventsRemoved != 3 {
		t.Errorf("reset made %d items Available and removed %d events, want %d and 3 (the run's)", rr.ItemsMadeAvailable, rr.EventsRemoved, 25+seed.SpecialUsers)
	}
	for _, c := range []struct {
		sql  string
		want int
	}{
		{"SELECT count(*) FROM " + circ + ".loan", 0},
		{"SELECT count(*) FROM " + tenant + "_mod_patron_blocks.user_summary", 0},
		{"SELECT count(*) FROM " + inv + ".item WHERE jsonb->'status'->>'name' <> 'Available'", 0},
		{"SELECT count(*) FROM " + inv + ".item", 300 + seed.SpecialUsers},
		// the seeded patron-block history stays; the run's events went with its loans
		{"SELECT count(*) FROM " + pb + ".item_checked_out_event", 12},
		{"SELECT count(*) FROM " + pb + ".item_checked_in_event", 12},
		{"SELECT count(*) FROM " + tenant + "_mod_users.users", 40 + 1 + 2*seed.SpecialUsers},
	} {
		if got := count(t, pool, c.sql); got != c.want {
			t.Errorf("after reset: %s = %d, want %d", c.sql, got, c.want)
		}
	}

	// --keep-events is PTF's restore exactly: the run's events stay.
	if _, err := pool.Exec(ctx, "INSERT INTO "+circ+".loan (id, jsonb) VALUES (gen_random_uuid(), '{\"status\":{\"name\":\"Closed\"}}')"); err != nil {
		t.Fatal(err)
	}
	runEvents()
	if rr, err = seed.Reset(ctx, pool, tenant, seed.ResetOptions{KeepEvents: true}); err != nil || rr.EventsRemoved != 0 {
		t.Fatalf("reset keeping events: removed %d, %v", rr.EventsRemoved, err)
	}
	if got := count(t, pool, "SELECT count(*) FROM "+pb+".item_checked_out_event"); got != 13 {
		t.Errorf("after a reset keeping events: %d check-out events, want the 12 seeded and the run's 1", got)
	}

	// --force reseeds from scratch with the same ids.
	o.Force, o.Loans = true, 5
	if res, err = seed.Run(ctx, pool, o); err != nil || res.Skipped {
		t.Fatalf("forced seed: %v %+v", err, res)
	}
	if n := count(t, pool, "SELECT count(*) FROM "+circ+".loan"); n != 5 {
		t.Errorf("forced seed: %d loans, want 5", n)
	}
	if n := count(t, pool, "SELECT count(*) FROM "+inv+".item WHERE id = $1", seed.IDString(tenant, "item", 7)); n != 1 {
		t.Error("forced seed changed the ids")
	}
}

func TestSeedRefusesBadFlagsAndForeignTenants(t *testing.T) {
	pool := storagetest.Pool(t)
	ctx := context.Background()
	for _, o := range []seed.Options{
		{Tenant: "bad-name", AdminUser: "a", AdminPassword: "b"},
		{Tenant: "okname", AdminUser: "a", AdminPassword: "b", Items: 1, Loans: 2, Users: 1},
		{Tenant: "okname", AdminUser: "a", AdminPassword: "b", Items: 2, Loans: 1},
		{Tenant: "okname", AdminUser: "", AdminPassword: "b"},
	} {
		if _, err := seed.Run(ctx, pool, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	// A tenant created by someone else is not overwritten without --force.
	tenant := storagetest.Tenant(t, pool, "seedforeign", storage.DDLOptions{})
	_, err := seed.Run(ctx, pool, seed.Options{Tenant: tenant, AdminUser: "a", AdminPassword: "b", Items: 1})
	if err == nil {
		t.Fatal("seeding over an existing, unseeded tenant succeeded without --force")
	}
	// Nor is one that only exists as schemas (a real FOLIO's tenant: Okapi
	// keeps its own registry), and its data stays.
	unregistered := storagetest.TenantName("seedunreg")
	t.Cleanup(func() { _ = storage.DropTenant(context.Background(), pool, unregistered) })
	if _, err := pool.Exec(ctx, "CREATE SCHEMA "+unregistered+"_mod_users; CREATE TABLE "+unregistered+
		"_mod_users.users (id uuid primary key, jsonb jsonb); INSERT INTO "+unregistered+
		"_mod_users.users VALUES (gen_random_uuid(), '{}')"); err != nil {
		t.Fatal(err)
	}
	_, err = seed.Run(ctx, pool, seed.Options{Tenant: unregistered, AdminUser: "a", AdminPassword: "b", Items: 1})
	if !errors.Is(err, seed.ErrExists) {
		t.Fatalf("seeding over an unregistered tenant's schemas without --force: got %v, want ErrExists", err)
	}
	if n := count(t, pool, "SELECT count(*) FROM "+unregistered+"_mod_users.users"); n != 1 {
		t.Fatalf("the unregistered tenant's users table holds %d rows after the refused seed, want 1", n)
	}
	if _, err := seed.Reset(ctx, pool, "nosuchtenant", seed.ResetOptions{}); err == nil {
		t.Error("reset of an unknown tenant succeeded")
	}
}

// A preset-shaped seed: instances, holdings and items in the report's
// proportions, and closed loans of the past, which reset keeps while it
// removes the run's loans and their events.
func TestSeedProportionsAndClosedLoans(t *testing.T) {
	pool := storagetest.Pool(t)
	ctx := context.Background()
	tenant := storagetest.TenantName("seedhist")
	t.Cleanup(func() { _ = storage.DropTenant(context.Background(), pool, tenant) })
	o := seed.Options{Tenant: tenant, AdminUser: "folio_admin", AdminPassword: "admin",
		Instances: 73, Holdings: 78, Items: 89, Users: 20, Loans: 4, ClosedLoans: 30, EventsPerUser: 6, EventUsers: 3}
	if _, err := seed.Run(ctx, pool, o); err != nil {
		t.Fatal(err)
	}
	inv, circ, pb := tenant+"_mod_inventory_storage", tenant+"_mod_circulation_storage", tenant+"_mod_patron_blocks"
	for _, c := range []struct {
		sql  string
		want int
	}{
		{"SELECT count(*) FROM " + inv + ".instance", 73},
		{"SELECT count(*) FROM " + inv + ".holdings_record", 78},
		// every holdings record belongs to an instance, every instance has one
		{"SELECT count(DISTINCT h.instanceid) FROM " + inv + ".holdings_record h JOIN " + inv + ".instance i ON i.id = h.instanceid", 73},
		{"SELECT count(DISTINCT it.holdingsrecordid) FROM " + inv + ".item it JOIN " + inv + ".holdings_record h ON h.id = it.holdingsrecordid", 78},
		{"SELECT count(*) FROM " + circ + ".loan WHERE jsonb->'status'->>'name' = 'Closed'", 30},
		// closed loans of many patrons and items, all of them real ones
		{"SELECT count(DISTINCT (l.jsonb->>'userId')) FROM " + circ + ".loan l JOIN " + tenant + "_mod_users.users u ON u.id::text = l.jsonb->>'userId'" +
			" WHERE l.jsonb->'status'->>'name' = 'Closed'", 20},
		{"SELECT count(*) FROM " + circ + ".loan l JOIN " + inv + ".item i ON i.id::text = l.jsonb->>'itemId' WHERE l.jsonb->'status'->>'name' = 'Closed'", 30},
		{"SELECT count(*) FROM " + pb + ".item_checked_out_event", 18},
		// the primary keys built after the COPY
		{"SELECT count(*) FROM pg_constraint WHERE contype = 'p' AND conrelid = '" + inv + ".item'::regclass", 1},
	} {
		if got := count(t, pool, c.sql); got != c.want {
			t.Errorf("%s = %d, want %d", c.sql, got, c.want)
		}
	}
	// A run's loan and its events; reset removes them, not the past.
	if _, err := pool.Exec(ctx, "INSERT INTO "+circ+".loan (id, jsonb) VALUES ('00000000-0000-4000-8000-000000000001', '{\"status\":{\"name\":\"Closed\"}}');"+
		"INSERT INTO "+pb+".item_checked_out_event (id, jsonb) VALUES (gen_random_uuid(), '{\"loanId\":\"00000000-0000-4000-8000-000000000001\"}')"); err != nil {
		t.Fatal(err)
	}
	rr, err := seed.Reset(ctx, pool, tenant, seed.ResetOptions{})
	if err != nil || rr.EventsRemoved != 1 {
		t.Fatalf("reset: %+v %v", rr, err)
	}
	if rr.ItemsMadeAvailable != 4+seed.SpecialUsers {
		t.Errorf("reset made %d items Available, want the 4 loaned and the %d missing ones", rr.ItemsMadeAvailable, seed.SpecialUsers)
	}
	for _, c := range []struct {
		sql  string
		want int
	}{
		{"SELECT count(*) FROM " + circ + ".loan", 30},
		{"SELECT count(*) FROM " + circ + ".loan WHERE jsonb->'metadata'->>'createdByUserId' = '" + seed.HistoryUserID(tenant) + "'", 30},
		{"SELECT count(*) FROM " + pb + ".item_checked_out_event", 18},
		{"SELECT count(*) FROM " + inv + ".item WHERE jsonb->'status'->>'name' <> 'Available'", 0},
	} {
		if got := count(t, pool, c.sql); got != c.want {
			t.Errorf("after reset: %s = %d, want %d", c.sql, got, c.want)
		}
	}
}

// A seed the disk cannot hold is refused before anything is written,
// with the figures (a small free space given as DiskFree, as --disk-free).
func TestSeedRefusesWhatTheDiskCannotHold(t *testing.T) {
	pool := storagetest.Pool(t)
	ctx := context.Background()
	tenant := storagetest.TenantName("seeddisk")
	t.Cleanup(func() { _ = storage.DropTenant(context.Background(), pool, tenant) })
	o := seed.Options{Tenant: tenant, AdminUser: "a", AdminPassword: "b", Items: 50, Users: 5, DiskFree: 100e6}
	_, err := seed.Run(ctx, pool, o)
	if !errors.Is(err, seed.ErrDiskShort) || !strings.Contains(err.Error(), "has 100 MB free") ||
		!strings.Contains(err.Error(), "needs about "+seed.HumanBytes(o.Estimate())) {
		t.Fatalf("got %v", err)
	}
	if n := count(t, pool, "SELECT count(*) FROM pg_namespace WHERE starts_with(nspname, $1)", tenant+"_"); n != 0 {
		t.Errorf("the refused seed created %d schemas", n)
	}
	// with the space, the same seed goes through
	o.DiskFree = o.Estimate()
	if _, err := seed.Run(ctx, pool, o); err != nil {
		t.Fatal(err)
	}
}
