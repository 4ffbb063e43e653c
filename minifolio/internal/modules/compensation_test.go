package modules

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// itemPutFault stands in front of the real storage modules. While armed, it
// fails PUT /item-storage/items/<id> with RMB's 500: before mod-inventory-storage
// sees it, or, with saved, after the module has stored the item (the answer is
// lost, as with a gateway time-out). With undoFails it also fails every attempt of
// mod-circulation's undo of the loan (DELETE or PUT /loan-storage/loans/<id>),
// with undoFailures only that many attempts. fired counts the failed item PUTs.
type itemPutFault struct {
	armed, saved, undoFails atomic.Bool
	fired, undoFailures     atomic.Int32
}

// failUndo reports whether this undo attempt fails.
func (f *itemPutFault) failUndo() bool {
	if f.undoFails.Load() {
		return true
	}
	for {
		n := f.undoFailures.Load()
		if n <= 0 {
			return false
		}
		if f.undoFailures.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

func (f *itemPutFault) wrap(module string, h http.Handler) http.Handler {
	switch module {
	case "mod-inventory-storage":
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if f.armed.Load() && r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/item-storage/items/") {
				f.fired.Add(1)
				if f.saved.Load() {
					h.ServeHTTP(httptest.NewRecorder(), r)
				}
				writeText(w, http.StatusInternalServerError, "Internal Server Error")
				return
			}
			h.ServeHTTP(w, r)
		})
	case "mod-circulation-storage":
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if f.armed.Load() && (r.Method == http.MethodDelete || r.Method == http.MethodPut) &&
				strings.HasPrefix(r.URL.Path, "/loan-storage/loans/") && f.fired.Load() > 0 && f.failUndo() {
				writeText(w, http.StatusInternalServerError, "Internal Server Error")
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	return h
}

// failOnce sends one request with the fault armed and fails the test unless
// the fault failed exactly one item PUT on its way.
func (f *itemPutFault) failOnce(t *testing.T, e *env, method, path string, body any) response {
	t.Helper()
	f.armed.Store(true)
	r := e.do(method, path, body)
	f.armed.Store(false)
	if n := f.fired.Load(); n != 1 {
		t.Fatalf("the fault failed %d item PUTs, want 1 (%s %s answered %d %s)", n, method, path, r.status, r.body)
	}
	return r
}

// row runs a one-row query and scans it into dst.
func row(t *testing.T, pool *pgxpool.Pool, sql string, args []any, dst ...any) {
	t.Helper()
	if err := pool.QueryRow(t.Context(), sql, args...).Scan(dst...); err != nil {
		t.Fatalf("%s %v: %v", sql, args, err)
	}
}

func itemStatusInDB(t *testing.T, pool *pgxpool.Pool, tenant, itemID string) string {
	t.Helper()
	var s string
	row(t, pool, `SELECT jsonb->'status'->>'name' FROM `+tenant+`_mod_inventory_storage.item WHERE id = $1`, []any{itemID}, &s)
	return s
}

// loanInDB is the stored loan without metadata.updatedDate, which every PUT
// restamps (createdDate and createdByUserId stay: CHECKIN_POOL selects loans
// by their creator).
func loanInDB(t *testing.T, pool *pgxpool.Pool, tenant, loanID string) obj {
	t.Helper()
	var doc []byte
	row(t, pool, `SELECT jsonb #- '{metadata,updatedDate}' FROM `+tenant+`_mod_circulation_storage.loan WHERE id = $1`, []any{loanID}, &doc)
	var o obj
	if err := json.Unmarshal(doc, &o); err != nil {
		t.Fatalf("loan %s: %v", loanID, err)
	}
	return o
}

// A check-out whose item update fails must not leave its loan behind: the
// client gets mod-circulation's 500, the item is still Available with no
// loan of any status, nothing follows the failed step, and the same
// check-out goes through once storage answers again.
func TestCheckOutDeletesTheLoanWhenTheItemUpdateFails(t *testing.T) {
	pool, tenant, f := newTenant(t)
	fault := &itemPutFault{}
	e := newEnvWrapped(t, pool, tenant, "fast", fault.wrap)
	const ib, ub = "it-030", "u-030"
	itemID, userID := f.itemIDs[ib], f.users[ub]
	loansOfItem := func() (all, open int) {
		t.Helper()
		row(t, pool, `SELECT count(*), count(*) FILTER (WHERE jsonb->'status'->>'name' = 'Open') FROM `+tenant+
			`_mod_circulation_storage.loan WHERE jsonb->>'itemId' = $1`, []any{itemID}, &all, &open)
		return all, open
	}

	r := fault.failOnce(t, e, "POST", "/circulation/check-out-by-barcode", checkOutBody(f, ib, ub))
	// writeFailure turns the *upstreamError into mod-circulation's
	// ServerErrorFailure: 500 with the failed call in the text.
	if want := "PUT /item-storage/items/" + itemID + " returned 500"; r.status != http.StatusInternalServerError ||
		!strings.Contains(string(r.body), want) {
		t.Fatalf("check-out with a failing item update: %d %q, want 500 with %q", r.status, r.body, want)
	}
	if all, open := loansOfItem(); all != 0 || open != 0 {
		t.Errorf("after the failed check-out %s has %d loans (%d open) in %s_mod_circulation_storage.loan, want none: the loan was not deleted",
			ib, all, open, tenant)
	}
	if s := itemStatusInDB(t, pool, tenant, itemID); s != "Available" {
		t.Errorf("after the failed check-out item %s is %q in the database, want Available", ib, s)
	}
	followUps := func() (sessions, events int) {
		t.Helper()
		row(t, pool, `SELECT count(*) FROM `+tenant+`_mod_circulation_storage.patron_action_session WHERE jsonb->>'patronId' = $1`, []any{userID}, &sessions)
		row(t, pool, `SELECT count(*) FROM `+tenant+`_mod_patron_blocks.item_checked_out_event WHERE jsonb->>'userId' = $1`, []any{userID}, &events)
		return sessions, events
	}
	if sessions, events := followUps(); sessions != 0 || events != 0 {
		t.Errorf("the failed check-out still wrote %d patron action sessions and %d item-checked-out events for %s, want 0 and 0", sessions, events, ub)
	}
	if t.Failed() {
		return
	}

	// The compensation left a consistent state: the same check-out succeeds.
	r = e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, ib, ub))
	if r.status != http.StatusCreated {
		t.Fatalf("check-out after the fault was removed: %d %s, want 201", r.status, r.body)
	}
	loanID := str(r.json(t), "id")
	if all, open := loansOfItem(); all != 1 || open != 1 {
		t.Errorf("after the second check-out %s has %d loans (%d open), want 1 open", ib, all, open)
	}
	if l := loanInDB(t, pool, tenant, loanID); str(l, "status.name") != "Open" || str(l, "userId") != userID {
		t.Errorf("stored loan %s after the second check-out: %v, want Open for %s", loanID, l, userID)
	}
	if s := itemStatusInDB(t, pool, tenant, itemID); s != "Checked out" {
		t.Errorf("after the second check-out item %s is %q in the database, want Checked out", ib, s)
	}
	if sessions, events := followUps(); sessions != 1 || events != 1 {
		t.Errorf("after the second check-out: %d patron action sessions and %d item-checked-out events for %s, want 1 and 1", sessions, events, ub)
	}
	if n := fault.fired.Load(); n != 1 {
		t.Errorf("the disarmed fault fired: %d failed item PUTs in all, want 1", n)
	}
}

// A check-in whose item update fails must reopen the loan it has just
// closed: the client gets mod-circulation's 500, the loan is stored exactly
// as before (Open, no returnDate), the item is still Checked out, and the
// same check-in goes through once storage answers again.
func TestCheckInReopensTheLoanWhenTheItemUpdateFails(t *testing.T) {
	pool, tenant, f := newTenant(t)
	fault := &itemPutFault{}
	e := newEnvWrapped(t, pool, tenant, "fast", fault.wrap)
	const ib, ub = "it-031", "u-031"
	itemID := f.itemIDs[ib]
	r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, ib, ub))
	if r.status != http.StatusCreated {
		t.Fatalf("check-out: %d %s", r.status, r.body)
	}
	loanID := str(r.json(t), "id")
	before := loanInDB(t, pool, tenant, loanID)
	openLoansOfItem := func() int {
		t.Helper()
		var n int
		row(t, pool, `SELECT count(*) FROM `+tenant+`_mod_circulation_storage.loan WHERE jsonb->>'itemId' = $1 AND jsonb->'status'->>'name' = 'Open'`,
			[]any{itemID}, &n)
		return n
	}
	checkInEvents := func() int {
		t.Helper()
		var n int
		row(t, pool, `SELECT count(*) FROM `+tenant+`_mod_patron_blocks.item_checked_in_event WHERE jsonb->>'loanId' = $1`, []any{loanID}, &n)
		return n
	}
	checkIn := map[string]any{"servicePointId": f.sp1, "checkInDate": "2026-11-22T11:00:00.000Z", "itemBarcode": ib}

	r = fault.failOnce(t, e, "POST", "/circulation/check-in-by-barcode", checkIn)
	if want := "PUT /item-storage/items/" + itemID + " returned 500"; r.status != http.StatusInternalServerError ||
		!strings.Contains(string(r.body), want) {
		t.Fatalf("check-in with a failing item update: %d %q, want 500 with %q", r.status, r.body, want)
	}
	after := loanInDB(t, pool, tenant, loanID)
	if str(after, "status.name") != "Open" {
		t.Errorf("after the failed check-in loan %s is %q in the database, want Open: the loan was not reopened (stored as %v)",
			loanID, str(after, "status.name"), after)
	} else if after["returnDate"] != nil || after["systemReturnDate"] != nil || after["checkinServicePointId"] != nil ||
		str(after, "action") != "checkedout" {
		t.Errorf("after the failed check-in loan %s is Open again but keeps the check-in's fields: %v, want action checkedout "+
			"and no returnDate, systemReturnDate or checkinServicePointId", loanID, after)
	} else if !reflect.DeepEqual(after, before) {
		t.Errorf("after the failed check-in loan %s is stored as\n  %v\nwant it as before the check-in\n  %v", loanID, after, before)
	}
	if n := openLoansOfItem(); n != 1 {
		t.Errorf("after the failed check-in %s has %d open loans, want 1", ib, n)
	}
	if s := itemStatusInDB(t, pool, tenant, itemID); s != "Checked out" {
		t.Errorf("after the failed check-in item %s is %q in the database, want Checked out", ib, s)
	}
	if n := checkInEvents(); n != 0 {
		t.Errorf("the failed check-in still wrote %d item-checked-in events, want 0", n)
	}
	if t.Failed() {
		return
	}

	// The compensation left a consistent state: the same check-in succeeds.
	r = e.do("POST", "/circulation/check-in-by-barcode", checkIn)
	ci := r.json(t)
	if r.status != http.StatusOK || str(ci, "loan.id") != loanID || str(ci, "loan.status.name") != "Closed" || str(ci, "item.status.name") != "Available" {
		t.Fatalf("check-in after the fault was removed: %d %s, want 200 closing loan %s", r.status, r.body, loanID)
	}
	if l := loanInDB(t, pool, tenant, loanID); str(l, "status.name") != "Closed" || str(l, "returnDate") == "" {
		t.Errorf("stored loan %s after the second check-in: %v, want Closed with a returnDate", loanID, l)
	}
	if n := openLoansOfItem(); n != 0 {
		t.Errorf("after the second check-in %s has %d open loans, want 0", ib, n)
	}
	if s := itemStatusInDB(t, pool, tenant, itemID); s != "Available" {
		t.Errorf("after the second check-in item %s is %q in the database, want Available", ib, s)
	}
	if n := checkInEvents(); n != 1 {
		t.Errorf("after the second check-in: %d item-checked-in events, want 1", n)
	}
	if n := fault.fired.Load(); n != 1 {
		t.Errorf("the disarmed fault fired: %d failed item PUTs in all, want 1", n)
	}
}

// When the item update was stored and only its answer was lost, undoing the
// loan would leave the item Checked out without a loan: mod-circulation reads
// the item back, finds its own write, and completes the check-out (201).
func TestCheckOutGoesOnWhenTheItemUpdateWasSavedButItsAnswerLost(t *testing.T) {
	pool, tenant, f := newTenant(t)
	fault := &itemPutFault{}
	fault.saved.Store(true)
	e := newEnvWrapped(t, pool, tenant, "fast", fault.wrap)
	const ib, ub = "it-032", "u-032"
	itemID := f.itemIDs[ib]

	r := fault.failOnce(t, e, "POST", "/circulation/check-out-by-barcode", checkOutBody(f, ib, ub))
	if r.status != http.StatusCreated {
		t.Fatalf("check-out whose item update was saved but answered 500: %d %s, want 201", r.status, r.body)
	}
	loanID := str(r.json(t), "id")
	if l := loanInDB(t, pool, tenant, loanID); str(l, "status.name") != "Open" || str(l, "itemId") != itemID {
		t.Errorf("stored loan %s: %v, want it Open for item %s", loanID, l, itemID)
	}
	if s := itemStatusInDB(t, pool, tenant, itemID); s != "Checked out" {
		t.Errorf("item %s is %q in the database, want Checked out", ib, s)
	}
}

// The same for check-in: the loan stays Closed, the item Available (200).
func TestCheckInGoesOnWhenTheItemUpdateWasSavedButItsAnswerLost(t *testing.T) {
	pool, tenant, f := newTenant(t)
	fault := &itemPutFault{}
	fault.saved.Store(true)
	e := newEnvWrapped(t, pool, tenant, "fast", fault.wrap)
	const ib, ub = "it-033", "u-033"
	itemID := f.itemIDs[ib]
	r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, ib, ub))
	if r.status != http.StatusCreated {
		t.Fatalf("check-out: %d %s", r.status, r.body)
	}
	loanID := str(r.json(t), "id")

	r = fault.failOnce(t, e, "POST", "/circulation/check-in-by-barcode", map[string]any{"servicePointId": f.sp1, "checkInDate": "2026-11-22T11:00:00.000Z", "itemBarcode": ib})
	if ci := r.json(t); r.status != http.StatusOK || str(ci, "loan.status.name") != "Closed" {
		t.Fatalf("check-in whose item update was saved but answered 500: %d %s, want 200 with the loan Closed", r.status, r.body)
	}
	if l := loanInDB(t, pool, tenant, loanID); str(l, "status.name") != "Closed" {
		t.Errorf("stored loan %s is %q, want Closed", loanID, str(l, "status.name"))
	}
	if s := itemStatusInDB(t, pool, tenant, itemID); s != "Available" {
		t.Errorf("item %s is %q in the database, want Available", ib, s)
	}
}

// When the undo fails too, the database is left half done: the client's 500
// names both failures instead of only the first.
func TestAFailedUndoIsReported(t *testing.T) {
	pool, tenant, f := newTenant(t)
	fault := &itemPutFault{}
	fault.undoFails.Store(true)
	e := newEnvWrapped(t, pool, tenant, "fast", fault.wrap)
	const ib, ub = "it-034", "u-034"

	r := fault.failOnce(t, e, "POST", "/circulation/check-out-by-barcode", checkOutBody(f, ib, ub))
	want := "undoing it with DELETE /loan-storage/loans/"
	if r.status != http.StatusInternalServerError || !strings.Contains(string(r.body), want) ||
		!strings.Contains(string(r.body), "PUT /item-storage/items/"+f.itemIDs[ib]+" returned 500") {
		t.Fatalf("check-out whose item update and loan undo both fail: %d %q, want 500 naming the item PUT and %q", r.status, r.body, want)
	}
}

// An undo that fails once (the fault still lasting a moment) is tried again:
// the check-out leaves no loan and the item Available, as if the undo had
// worked the first time.
func TestAnUndoThatFailsOnceIsRetried(t *testing.T) {
	pool, tenant, f := newTenant(t)
	fault := &itemPutFault{}
	fault.undoFailures.Store(1)
	e := newEnvWrapped(t, pool, tenant, "fast", fault.wrap)
	const ib, ub = "it-035", "u-035"
	itemID := f.itemIDs[ib]

	r := fault.failOnce(t, e, "POST", "/circulation/check-out-by-barcode", checkOutBody(f, ib, ub))
	if r.status != http.StatusInternalServerError || strings.Contains(string(r.body), "undoing it") {
		t.Fatalf("check-out whose undo failed once: %d %q, want 500 for the item update only (the retried undo worked)", r.status, r.body)
	}
	if n := fault.undoFailures.Load(); n != 0 {
		t.Fatalf("the undo was not attempted after its first failure (%d failures left)", n)
	}
	var loans int
	row(t, pool, `SELECT count(*) FROM `+tenant+`_mod_circulation_storage.loan WHERE jsonb->>'itemId' = $1`, []any{itemID}, &loans)
	if s := itemStatusInDB(t, pool, tenant, itemID); loans != 0 || s != "Available" {
		t.Errorf("after the retried undo %s has %d loans and is %q, want no loan and Available", ib, loans, s)
	}
}

// A check-in whose item update and every undo attempt fail leaves the item
// Checked out without an open loan, and says so. That state is one a check-in
// by barcode repairs (folio-perf's teardown lists the run's items in it; minifolio
// reset makes every item Available): the item comes back Available, with no
// loan to close, and can be checked out again.
func TestAFailedCheckInUndoLeavesAStateACheckInRepairs(t *testing.T) {
	pool, tenant, f := newTenant(t)
	fault := &itemPutFault{}
	fault.undoFails.Store(true)
	e := newEnvWrapped(t, pool, tenant, "fast", fault.wrap)
	const ib, ub = "it-036", "u-036"
	itemID := f.itemIDs[ib]
	if r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, ib, ub)); r.status != http.StatusCreated {
		t.Fatalf("check-out: %d %s", r.status, r.body)
	}
	openLoans := func() int {
		t.Helper()
		var n int
		row(t, pool, `SELECT count(*) FROM `+tenant+`_mod_circulation_storage.loan WHERE jsonb->>'itemId' = $1 AND jsonb->'status'->>'name' = 'Open'`, []any{itemID}, &n)
		return n
	}
	checkIn := map[string]any{"servicePointId": f.sp1, "checkInDate": "2026-11-22T11:00:00.000Z", "itemBarcode": ib}

	r := fault.failOnce(t, e, "POST", "/circulation/check-in-by-barcode", checkIn)
	if r.status != http.StatusInternalServerError || !strings.Contains(string(r.body), "undoing it with PUT /loan-storage/loans/") ||
		!strings.Contains(string(r.body), "stays Checked out without an open loan") {
		t.Fatalf("check-in whose item update and undo fail: %d %q, want 500 naming the undo and the state left", r.status, r.body)
	}
	if n, s := openLoans(), itemStatusInDB(t, pool, tenant, itemID); n != 0 || s != "Checked out" {
		t.Fatalf("after the failed undo %s has %d open loans and is %q, want the half state (0, Checked out) this test is about", ib, n, s)
	}

	r = e.do("POST", "/circulation/check-in-by-barcode", checkIn)
	if ci := r.json(t); r.status != http.StatusOK || ci["loan"] != nil || str(ci, "item.status.name") != "Available" {
		t.Fatalf("repairing check-in: %d %s, want 200 with the item Available and no loan", r.status, r.body)
	}
	if n, s := openLoans(), itemStatusInDB(t, pool, tenant, itemID); n != 0 || s != "Available" {
		t.Errorf("after the repairing check-in %s has %d open loans and is %q, want 0 and Available", ib, n, s)
	}
	if r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, ib, ub)); r.status != http.StatusCreated {
		t.Errorf("check-out after the repair: %d %s, want 201", r.status, r.body)
	}
}
