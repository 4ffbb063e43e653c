package modules

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/folio-perf/folio-perf/minifolio/internal/okapi"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// A page of /circulation/loans embeds every loan's item. One `id==… or …`
// query naming 2,000 items is longer than the gateway lets through
// (okapi.MaxHeaderBytes: 431, a 500 to the client); mod-circulation asks
// for 50 ids per query, and so does minifolio: the page answers 200 with
// each loan's own item.
func TestCirculationLoansPageOfThousandsOfLoans(t *testing.T) {
	pool, tenant, f := newTenant(t)
	e := newEnv(t, pool, tenant, "fast")
	const n = 2000
	// Go's server lets up to two 4 KiB buffers through beyond MaxHeaderBytes.
	if n*len("id%3D%3D00000000-0000-0000-0000-000000000000+or+") <= okapi.MaxHeaderBytes+8<<10 {
		t.Fatalf("%d loans do not make a lookup longer than the gateway's limit: raise n", n)
	}
	ctx := context.Background()
	item, loan := storage.MustLookup("mod_inventory_storage", "item").QualifiedName(tenant),
		storage.MustLookup("mod_circulation_storage", "loan").QualifiedName(tenant)
	uid := f.users["u-059"]
	if _, err := pool.Exec(ctx, `WITH src AS (SELECT jsonb FROM `+item+` WHERE jsonb->>'barcode' = 'it-000'),
		ids AS (SELECT gen_random_uuid() AS id, g FROM generate_series(1, $1::int) g)
		INSERT INTO `+item+` (id, jsonb) SELECT ids.id, src.jsonb || jsonb_build_object('id', ids.id, 'barcode', 'bulk-' || ids.g,
			'status', jsonb_build_object('name', 'Checked out')) FROM src, ids`, n); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO `+loan+` (id, jsonb)
		SELECT i.lid, jsonb_build_object('id', i.lid, 'userId', $1::text, 'itemId', i.id, 'status', jsonb_build_object('name', 'Open'),
			'action', 'checkedout', 'loanDate', '2026-11-20T10:00:00.000Z', 'dueDate', '2026-12-11T10:00:00.000Z')
		FROM (SELECT gen_random_uuid() AS lid, id FROM `+item+` WHERE jsonb->>'barcode' LIKE 'bulk-%') i`, uid); err != nil {
		t.Fatal(err)
	}
	r := e.do("GET", "/circulation/loans?limit=5000&query="+q("userId=="+uid+" and status.name<>Closed"), nil)
	if r.status != 200 {
		t.Fatalf("GET /circulation/loans with %d loans: %d %.300s", n, r.status, r.body)
	}
	var page struct {
		Loans []struct {
			ItemID string `json:"itemId"`
			Item   struct {
				Barcode string `json:"barcode"`
			} `json:"item"`
		} `json:"loans"`
		Total int `json:"totalRecords"`
	}
	if err := json.Unmarshal(r.body, &page); err != nil {
		t.Fatal(err)
	}
	if page.Total != n || len(page.Loans) != n {
		t.Fatalf("got %d loans (totalRecords %d), want %d", len(page.Loans), page.Total, n)
	}
	var barcodes map[string]string
	rows, err := pool.Query(ctx, `SELECT id::text, jsonb->>'barcode' FROM `+item+` WHERE jsonb->>'barcode' LIKE 'bulk-%'`)
	if err != nil {
		t.Fatal(err)
	}
	barcodes = map[string]string{}
	for rows.Next() {
		var id, bc string
		if err := rows.Scan(&id, &bc); err != nil {
			t.Fatal(err)
		}
		barcodes[id] = bc
	}
	rows.Close()
	for _, l := range page.Loans {
		if l.Item.Barcode == "" || l.Item.Barcode != barcodes[l.ItemID] {
			t.Fatalf("loan of item %s carries item barcode %q, want %q", l.ItemID, l.Item.Barcode, barcodes[l.ItemID])
		}
	}
}
