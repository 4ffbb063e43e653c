package modules

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// itemHold holds the first item update whose status is `status` at
// mod-inventory-storage, so a test can run another request in between: the
// interleaving of a check-in and a check-out of one item that a busy desk
// produces by chance, made certain.
type itemHold struct {
	mu       sync.Mutex
	status   string        // armed for this status ("" disarmed)
	arrived  chan struct{} // closed when the held update has arrived
	released chan struct{} // close to let it through
}

func (h *itemHold) arm(status string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.status, h.arrived, h.released = status, make(chan struct{}), make(chan struct{})
}

func (h *itemHold) wrap(module string, next http.Handler) http.Handler {
	if module != "mod-inventory-storage" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/item-storage/items/") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var item struct {
				Status struct{ Name string } `json:"status"`
			}
			_ = json.Unmarshal(body, &item)
			h.mu.Lock()
			held := h.status != "" && item.Status.Name == h.status
			arrived, released := h.arrived, h.released
			if held {
				h.status = ""
			}
			h.mu.Unlock()
			if held {
				close(arrived)
				<-released
			}
		}
		next.ServeHTTP(w, r)
	})
}

// A check-in and a check-out of the same item used to write back the whole
// item each had read, so the later write undid the earlier: the item stayed
// Available with an open loan, or Checked out with none. Items lock
// optimistically (_version, as mod-inventory-storage's since Lotus): the
// stale write is refused with 409 and its request undone, and the item
// agrees with its loans whichever request comes second.
func TestCheckInRacingCheckOutKeepsItemAndLoanInStep(t *testing.T) {
	pool, tenant, f := newTenant(t)
	hold := &itemHold{}
	e := newEnvWrapped(t, pool, tenant, "fast", hold.wrap)
	checkIn := func(barcode string) response {
		return e.do("POST", "/circulation/check-in-by-barcode", map[string]any{"servicePointId": f.sp1,
			"checkInDate": "2026-11-22T11:00:00.000Z", "itemBarcode": barcode})
	}
	for _, c := range []struct {
		name   string
		held   string // the status whose item update waits for the other request
		first  func(barcode string) response
		second func(barcode string) response
		// what the held request answers, and what the item then is
		heldStatus int
		itemStatus string
		openLoans  int
	}{
		{"a check-out lands while a check-in of the Available item is in flight", "Available",
			checkIn, func(b string) response {
				return e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, b, "u-001"))
			},
			409, "Checked out", 1},
		{"a check-in lands while a check-out is in flight", "Checked out",
			func(b string) response {
				return e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, b, "u-002"))
			}, checkIn,
			409, "Available", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			barcode := f.items[len(f.items)-1]
			f.items = f.items[:len(f.items)-1]
			hold.arm(c.held)
			firstDone := make(chan response, 1)
			go func() { firstDone <- c.first(barcode) }()
			select {
			case <-hold.arrived:
			case r := <-firstDone:
				t.Fatalf("the first request finished without its item update being held: %d %s", r.status, r.body)
			case <-time.After(30 * time.Second):
				t.Fatal("the first request's item update never arrived")
			}
			if r := c.second(barcode); r.status/100 != 2 {
				t.Fatalf("the second request: %d %s", r.status, r.body)
			}
			close(hold.released)
			r := <-firstDone
			if r.status != c.heldStatus {
				t.Errorf("the held request answered %d %s, want %d", r.status, r.body, c.heldStatus)
			}
			assertItemAndLoans(t, pool, tenant, f.itemIDs[barcode], c.itemStatus, c.openLoans)
		})
	}

	// And without a hold: check-ins and check-outs of the same items at once,
	// on the real PostgreSQL, never leave an item disagreeing with its loans.
	var wg sync.WaitGroup
	items := f.items[:20]
	for round := 0; round < 3; round++ {
		for i, barcode := range items {
			wg.Add(2)
			go func() {
				defer wg.Done()
				e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, barcode, fmt.Sprintf("u-%03d", 10+i)))
			}()
			go func() { defer wg.Done(); checkIn(barcode) }()
		}
		wg.Wait()
	}
	for _, barcode := range items {
		var status string
		if err := pool.QueryRow(context.Background(), "SELECT jsonb->'status'->>'name' FROM "+
			storage.MustLookup("mod_inventory_storage", "item").QualifiedName(tenant)+" WHERE id = $1", f.itemIDs[barcode]).Scan(&status); err != nil {
			t.Fatal(err)
		}
		want := 0
		if status == "Checked out" {
			want = 1
		}
		assertItemAndLoans(t, pool, tenant, f.itemIDs[barcode], status, want)
	}
}

func assertItemAndLoans(t *testing.T, db storage.DB, tenant, itemID, wantStatus string, wantOpen int) {
	t.Helper()
	var status string
	var open int
	err := db.QueryRow(context.Background(), "SELECT i.jsonb->'status'->>'name', (SELECT count(*) FROM "+
		storage.MustLookup("mod_circulation_storage", "loan").QualifiedName(tenant)+
		" l WHERE l.jsonb->>'itemId' = i.id::text AND l.jsonb->'status'->>'name' = 'Open') FROM "+
		storage.MustLookup("mod_inventory_storage", "item").QualifiedName(tenant)+" i WHERE i.id = $1", itemID).Scan(&status, &open)
	if err != nil {
		t.Fatal(err)
	}
	if status != wantStatus || open != wantOpen {
		t.Errorf("item %s is %q with %d open loans, want %q with %d", itemID, status, open, wantStatus, wantOpen)
	}
}
