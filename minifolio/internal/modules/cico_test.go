package modules

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func checkOutBody(f *fixture, item, user string) map[string]any {
	return map[string]any{"itemBarcode": item, "userBarcode": user, "servicePointId": f.sp1,
		"loanDate": "2026-11-22T10:00:00Z", "id": newUUID()}
}

func q(cql string) string { return url.QueryEscape(cql) }

// The Orchid plan's check-out and check-in transactions (folio-org/perf-testing :
// workflows-scripts/circulation/check-in-check-out/Orchid/*.jmx) replayed request by request: each answers with FOLIO's status and
// the envelope the script extracts from.
func TestOrchidCheckOutAndCheckInSequences(t *testing.T) {
	pool, tenant, f := newTenant(t)
	e := newEnv(t, pool, tenant, "fast")
	ub, ib := "u-000", "it-000"
	uid := f.users[ub]

	envelope := func(path, key string) obj {
		t.Helper()
		r := e.do("GET", path, nil)
		if r.status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
		o := r.json(t)
		if _, ok := o[key].([]any); !ok {
			t.Fatalf("GET %s: no %q array in %s", path, key, r.body)
		}
		if key != "automatedPatronBlocks" {
			if _, ok := o["totalRecords"].(float64); !ok {
				t.Fatalf("GET %s: totalRecords is not a number in %s", path, r.body)
			}
		}
		return o
	}
	// check-out
	cfg := envelope("/configurations/entries?query="+q("(module==CHECKOUT and configName==other_settings)"), "configs")
	if cfg["totalRecords"].(float64) != 1 {
		t.Errorf("configurations/entries: totalRecords %v, want 1", cfg["totalRecords"])
	}
	envelope("/configurations/entries?query="+q("(module==USERS and configName==profile_pictures)"), "configs")
	envelope("/groups", "usergroups")
	users := envelope("/users?query="+q(fmt.Sprintf(`(barcode=="%s" OR externalSystemId=="%s" OR id=="%s" OR username=="%s")`, ub, ub, ub, ub)), "users")
	u0 := users["users"].([]any)[0].(map[string]any)
	if u0["id"] != uid || u0["patronGroup"] != f.group {
		t.Fatalf("users lookup returned %v", u0)
	}
	envelope("/groups?query="+q("(id=="+f.group+")"), "usergroups")
	envelope("/accounts?query="+q("(userId=="+uid+" and status.name<>Closed)")+"&limit=100", "accounts")
	envelope("/circulation/loans?query="+q("(userId=="+uid+" and status.name<>Closed)")+"&limit=1", "loans")
	envelope("/circulation/requests?query="+q(`(requesterId==`+uid+` and status=="Open")`)+"&limit=100", "requests")
	envelope("/proxiesfor?query="+q("query=(userId=="+uid+")")+"&limit=80", "proxiesFor")
	envelope("/proxiesfor?query="+q("query=(proxyUserId=="+uid+")")+"&limit=80", "proxiesFor")
	notes := envelope("/note-links/domain/users/type/user/id/"+uid+"?limit=10000&order=desc&status=assigned", "notes")
	if notes["totalRecords"].(float64) != 1 {
		t.Errorf("note-links: %v notes, want the user's 1", notes["totalRecords"])
	}
	envelope("/manualblocks?query="+q("userId=="+uid), "manualblocks")
	envelope("/automated-patron-blocks/"+uid+"?limit=100", "automatedPatronBlocks")
	envelope("/circulation/requests?query="+q(`(requesterId==`+uid+` and pickupServicePointId=`+f.sp1+` and status=="Open - Awaiting pickup")`), "requests")
	items := envelope("/inventory/items?query="+q(`barcode=="`+ib+`"`)+"&limit=40", "items")
	it := items["items"].([]any)[0].(map[string]any)
	if it["id"] != f.itemIDs[ib] || str(it, "status.name") != "Available" || str(it, "materialType.name") != "book" ||
		str(it, "permanentLoanType.name") != "Can circulate" || it["title"] != "A semantic web primer" {
		t.Fatalf("inventory item lacks mod-inventory's fields: %v", it)
	}
	// mod-inventory's item.json: locations as {id, name}, isBoundWith, and
	// none of the storage's *LocationId fields (its schema forbids them).
	if str(it, "permanentLocation.id") != f.location || str(it, "permanentLocation.name") == "" ||
		str(it, "effectiveLocation.id") != f.location || it["isBoundWith"] != false {
		t.Errorf("inventory item's locations are not mod-inventory's: %v", it)
	}
	for _, k := range []string{"permanentLocationId", "effectiveLocationId", "temporaryLocationId", "materialTypeId"} {
		if _, has := it[k]; has {
			t.Errorf("inventory item has %s, which mod-inventory's item.json forbids", k)
		}
	}

	r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, ib, ub))
	if r.status != 201 {
		t.Fatalf("check-out: %d %s", r.status, r.body)
	}
	loan := r.json(t)
	if strings.Contains(string(r.body), `"errors"`) || loan["userId"] != uid || str(loan, "status.name") != "Open" ||
		loan["action"] != "checkedout" || loan["itemId"] != f.itemIDs[ib] || loan["loanPolicyId"] != f.loanPolicy ||
		loan["lostItemPolicyId"] != f.lostPolicy || loan["overdueFinePolicyId"] != f.overduePolicy {
		t.Fatalf("check-out loan: %s", r.body)
	}
	if r.header.Get("Location") != "/circulation/loans/"+str(loan, "id") {
		t.Errorf("Location %q", r.header.Get("Location"))
	}
	if str(loan, "item.barcode") != ib || str(loan, "item.title") != "A semantic web primer" || str(loan, "item.status.name") != "Checked out" ||
		str(loan, "item.location.name") != "Main Library" || str(loan, "item.materialType.name") != "book" ||
		str(loan, "borrower.barcode") != ub || str(loan, "loanPolicy.name") != "Example Loan Policy" ||
		str(loan, "patronGroupAtCheckout.name") != "undergrad" || !strings.HasPrefix(str(loan, "dueDate"), "2026-12-13T10:00:00") {
		t.Fatalf("check-out loan lacks FOLIO's joined fields: %s", r.body)
	}
	open := envelope("/circulation/loans?query="+q("(userId=="+uid+" and status.name<>Closed)")+"&limit=1", "loans")
	if open["totalRecords"].(float64) != 1 || str(open["loans"].([]any)[0].(map[string]any), "item.barcode") != ib {
		t.Fatalf("circulation/loans after check-out: %v", open)
	}
	envelope("/automated-patron-blocks/"+uid+"?limit=100", "automatedPatronBlocks")
	envelope("/circulation/requests?query="+q(`(requesterId==`+uid+` and status=="Open")`)+"&limit=100", "requests")

	// check-in, at the item's home service point
	envelope("/groups", "usergroups")
	envelope("/users", "users")
	envelope("/staff-slips-storage/staff-slips?limit=1000", "staffSlips")
	sps := envelope("/service-points?limit=1000", "servicepoints")
	if sps["totalRecords"].(float64) != 2 {
		t.Errorf("service points: %v", sps["totalRecords"])
	}
	envelope("/configurations/entries?query="+q("(module=CHECKOUT and configName=other_settings)"), "configs")
	envelope("/inventory/items?query="+q(`barcode=="`+ib+`"`)+"&limit=1000", "items")
	r = e.do("POST", "/circulation/check-in-by-barcode", map[string]any{"servicePointId": f.sp1, "checkInDate": "2026-11-22T11:00:00.000Z",
		"itemBarcode": ib, "id": newUUID()})
	if r.status != 200 {
		t.Fatalf("check-in: %d %s", r.status, r.body)
	}
	ci := r.json(t)
	if str(ci, "loan.id") != str(loan, "id") || str(ci, "loan.status.name") != "Closed" || str(ci, "loan.action") != "checkedin" ||
		str(ci, "loan.userId") != uid || str(ci, "loan.lostItemPolicyId") != f.lostPolicy || str(ci, "loan.checkinServicePointId") != f.sp1 ||
		str(ci, "loan.returnDate") == "" || str(ci, "item.status.name") != "Available" || str(ci, "staffSlipContext.item.title") == "" ||
		ci["inHouseUse"] != false {
		t.Fatalf("check-in response: %s", r.body)
	}
	loanID := str(ci, "loan.id")
	envelope("/circulation/requests?query="+q(`(itemId==`+f.itemIDs[ib]+` and (status=="Open - Awaiting pickup" or status=="Open - Awaiting delivery"))`), "requests")
	envelope("/accounts?query="+q(`loanId=="`+loanID+`"`), "accounts")
	lost := envelope("/lost-item-fees-policies?query="+q("id=="+f.lostPolicy), "lostItemFeePolicies")
	if lost["totalRecords"].(float64) != 1 {
		t.Errorf("lost-item-fees-policies: %v", lost["totalRecords"])
	}
	envelope("/accounts?query="+q(`(userId==`+uid+` and itemId==`+f.itemIDs[ib]+`) AND (status.name=="Open" OR status.name=="Closed")`), "accounts")
	envelope("/accounts?query="+q(`(userId==`+uid+` and itemId==`+f.itemIDs[ib]+` and loanId==`+loanID+`) and status.name=="Open"`), "accounts")

	// the database agrees: no open loan, the item is Available, one
	// check-out and one check-in session and event
	var openLoans, sessions, outEvents, inEvents int
	var itemStatus string
	db := func(sql string, dst any, args ...any) {
		t.Helper()
		if err := pool.QueryRow(t.Context(), sql, args...).Scan(dst); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	db(`SELECT count(*) FROM `+tenant+`_mod_circulation_storage.loan WHERE jsonb->'status'->>'name' = 'Open'`, &openLoans)
	db(`SELECT jsonb->'status'->>'name' FROM `+tenant+`_mod_inventory_storage.item WHERE id = $1`, &itemStatus, f.itemIDs[ib])
	db(`SELECT count(*) FROM `+tenant+`_mod_circulation_storage.patron_action_session WHERE jsonb->>'loanId' = $1`, &sessions, loanID)
	db(`SELECT count(*) FROM `+tenant+`_mod_patron_blocks.item_checked_out_event WHERE jsonb->>'loanId' = $1`, &outEvents, loanID)
	db(`SELECT count(*) FROM `+tenant+`_mod_patron_blocks.item_checked_in_event WHERE jsonb->>'loanId' = $1`, &inEvents, loanID)
	if openLoans != 0 || itemStatus != "Available" || sessions != 2 || outEvents != 1 || inEvents != 1 {
		t.Fatalf("after check-in: open loans %d, item %q, sessions %d, events out/in %d/%d", openLoans, itemStatus, sessions, outEvents, inEvents)
	}
}

func TestCheckInAwayFromHomeAndWithoutLoan(t *testing.T) {
	pool, tenant, f := newTenant(t)
	e := newEnv(t, pool, tenant, "fast")
	if r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, "it-001", "u-001")); r.status != 201 {
		t.Fatalf("check-out: %d %s", r.status, r.body)
	}
	r := e.do("POST", "/circulation/check-in-by-barcode", map[string]any{"servicePointId": f.sp2, "checkInDate": "2026-11-22T11:00:00Z", "itemBarcode": "it-001"})
	ci := r.json(t)
	if r.status != 200 || str(ci, "item.status.name") != "In transit" || str(ci, "item.inTransitDestinationServicePointId") != f.sp1 ||
		str(ci, "item.inTransitDestinationServicePoint.name") != "Circ Desk 1" || str(ci, "staffSlipContext.item.toServicePoint") != "Circ Desk 1" ||
		str(ci, "loan.status.name") != "Closed" {
		t.Fatalf("check-in at the other desk: %d %s", r.status, r.body)
	}
	// No open loan any more: still 200, item processed, loan absent (mod-circulation :
	// ramls/check-in-by-barcode-response.json).
	r = e.do("POST", "/circulation/check-in-by-barcode", map[string]any{"servicePointId": f.sp1, "checkInDate": "2026-11-22T12:00:00Z", "itemBarcode": "it-001"})
	ci = r.json(t)
	if _, has := ci["loan"]; r.status != 200 || has || str(ci, "item.status.name") != "Available" {
		t.Fatalf("check-in without a loan: %d %s", r.status, r.body)
	}
	// Checked in at home, the item can go out again.
	if r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, "it-001", "u-002")); r.status != 201 {
		t.Fatalf("second check-out: %d %s", r.status, r.body)
	}
}

type wantError struct {
	status       int
	message, key string
	value, code  string
}

func assertError(t *testing.T, name string, r response, w wantError) {
	t.Helper()
	if r.status != w.status {
		t.Errorf("%s: status %d, want %d (%s)", name, r.status, w.status, r.body)
		return
	}
	if w.status != 422 {
		if !strings.Contains(string(r.body), w.message) {
			t.Errorf("%s: body %q lacks %q", name, r.body, w.message)
		}
		return
	}
	errs, _ := r.json(t)["errors"].([]any)
	for _, x := range errs {
		e := x.(map[string]any)
		if e["message"] != w.message {
			continue
		}
		if w.code != "" && e["code"] != w.code {
			t.Errorf("%s: code %v, want %s", name, e["code"], w.code)
		}
		params, ok := e["parameters"].([]any)
		if !ok {
			t.Errorf("%s: parameters is not an array: %s", name, r.body)
			return
		}
		if w.key == "" {
			return
		}
		for _, p := range params {
			pm := p.(map[string]any)
			if pm["key"] == w.key && (w.value == "" || pm["value"] == w.value) {
				return
			}
		}
		t.Errorf("%s: no parameter %s=%q in %s", name, w.key, w.value, r.body)
		return
	}
	t.Errorf("%s: no error with message %q in %s", name, w.message, r.body)
}

func TestCheckOutValidationErrorsAreFolios(t *testing.T) {
	pool, tenant, f := newTenant(t)
	e := newEnv(t, pool, tenant, "fast")
	if r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, "it-010", "u-010")); r.status != 201 {
		t.Fatalf("setup check-out: %d %s", r.status, r.body)
	}
	// u-limited may hold two items: the third is refused by the automated block.
	for _, it := range []string{"it-011", "it-012"} {
		if r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, it, "u-limited")); r.status != 201 {
			t.Fatalf("limited check-out %s: %d %s", it, r.status, r.body)
		}
	}
	noSP := checkOutBody(f, "it-020", "u-020")
	delete(noSP, "servicePointId")
	cases := []struct {
		name string
		body any
		want wantError
	}{
		{"unknown user", checkOutBody(f, "it-020", "nobody"), wantError{422, "Could not find user with matching barcode", "userBarcode", "nobody", "USER_BARCODE_NOT_FOUND"}},
		{"unknown item", checkOutBody(f, "no-such-item", "u-020"), wantError{422, "No item with barcode no-such-item could be found", "itemBarcode", "no-such-item", ""}},
		{"inactive user", checkOutBody(f, "it-020", "u-inactive"), wantError{422, "Cannot check out to inactive user", "userBarcode", "u-inactive", ""}},
		{"already checked out", checkOutBody(f, "it-010", "u-020"), wantError{422, "Item is already checked out", "itemBarcode", "it-010", ""}},
		{"manual block", checkOutBody(f, "it-020", "u-manual"), wantError{422, "Patron blocked from borrowing", "reason", "Lost library card;Unpaid invoice", "USER_IS_BLOCKED_MANUALLY"}},
		{"automated block", checkOutBody(f, "it-020", "u-limited"), wantError{422, "Patron has reached maximum allowed number of items charged out", "", "", "USER_IS_BLOCKED_AUTOMATICALLY"}},
		{"no service point", noSP, wantError{422, "Check out must be performed at a service point", "servicePointId", "", ""}},
		{"already checked out: the open loan too", checkOutBody(f, "it-010", "u-020"), wantError{422, "Cannot check out item that already has an open loan", "itemBarcode", "it-010", "ITEM_HAS_OPEN_LOAN"}},
		{"withdrawn item status", checkOutBody(f, "it-withdrawn", "u-020"), wantError{422, "A semantic web primer (book) (Barcode: it-withdrawn) has the item status Withdrawn and cannot be checked out", "itemBarcode", "it-withdrawn", ""}},
		{"empty user barcode", checkOutBody(f, "it-020", ""), wantError{422, "Could not find user with matching barcode", "userBarcode", "", "USER_BARCODE_NOT_FOUND"}},
		{"empty item barcode", checkOutBody(f, "", "u-020"), wantError{422, "No item with barcode  could be found", "itemBarcode", "", ""}},
		{"malformed JSON", `{"itemBarcode": "it-020",`, wantError{400, "Json content error", "", "", ""}},
		{"JSON array", `[]`, wantError{400, "Json content error", "", "", ""}},
	}
	for _, c := range cases {
		assertError(t, c.name, e.do("POST", "/circulation/check-out-by-barcode", c.body), c.want)
	}
	// none of the refused check-outs changed anything
	var loans int
	var status string
	pool.QueryRow(t.Context(), `SELECT count(*) FROM `+tenant+`_mod_circulation_storage.loan`).Scan(&loans)
	pool.QueryRow(t.Context(), `SELECT jsonb->'status'->>'name' FROM `+tenant+`_mod_inventory_storage.item WHERE jsonb->>'barcode' = 'it-020'`).Scan(&status)
	if loans != 3 || status != "Available" {
		t.Fatalf("refused check-outs wrote: %d loans (want 3), it-020 %q", loans, status)
	}
	// manual and automated blocks carry overridableBlock, as mod-circulation's BlockOverrideError
	for _, u := range []string{"u-limited", "u-manual"} {
		r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, "it-020", u))
		var got struct {
			Errors []ValidationError `json:"errors"`
		}
		if err := json.Unmarshal(r.body, &got); err != nil || len(got.Errors) != 1 || got.Errors[0].OverridableBlock == nil ||
			got.Errors[0].OverridableBlock.Name != "patronBlock" ||
			strings.Join(got.Errors[0].OverridableBlock.MissingPermissions, ",") != "circulation.override-patron-block.post" {
			t.Errorf("%s: block without patronBlock overridableBlock: %s", u, r.body)
		}
	}
	// an item already checked out: both errors, status first (FOLIO collects them)
	r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, "it-010", "u-020"))
	var both struct {
		Errors []ValidationError `json:"errors"`
	}
	if err := json.Unmarshal(r.body, &both); err != nil || len(both.Errors) != 2 ||
		both.Errors[0].Message != "Item is already checked out" || both.Errors[1].Code != "ITEM_HAS_OPEN_LOAN" {
		t.Errorf("already checked out: want the status error then ITEM_HAS_OPEN_LOAN, got %s", r.body)
	}
	// a Missing item is checked out (CIRC-688): 201 with an open loan, item Checked out
	if r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, "it-missing", "u-020")); r.status != 201 ||
		str(r.json(t), "status.name") != "Open" {
		t.Errorf("check-out of a Missing item: %d %s, want 201 with a loan", r.status, r.body)
	}
	pool.QueryRow(t.Context(), `SELECT jsonb->'status'->>'name' FROM `+tenant+`_mod_inventory_storage.item WHERE jsonb->>'barcode' = 'it-missing'`).Scan(&status)
	if status != "Checked out" {
		t.Errorf("Missing item after check-out: %q, want Checked out", status)
	}
	// wrong content type and a huge body: FOLIO's status, a clear message
	assertError(t, "xml body", e.do("POST", "/circulation/check-out-by-barcode", "<x/>", "Content-Type", "application/xml"),
		wantError{status: 400, message: "Content-Type must be application/json"})
	huge := `{"itemBarcode":"` + strings.Repeat("x", 2<<20) + `"}`
	assertError(t, "huge body", e.do("POST", "/circulation/check-out-by-barcode", huge), wantError{status: 413, message: "larger than 1 MiB"})
}

func TestCheckInValidationErrorsAreFolios(t *testing.T) {
	pool, tenant, f := newTenant(t)
	e := newEnv(t, pool, tenant, "fast")
	assertError(t, "unknown item", e.do("POST", "/circulation/check-in-by-barcode",
		map[string]any{"servicePointId": f.sp1, "checkInDate": "2026-11-22T11:00:00Z", "itemBarcode": "nope"}),
		wantError{422, "No item with barcode nope exists", "itemBarcode", "nope", "ITEM_BARCODE_NOT_FOUND"})
	r := e.do("POST", "/circulation/check-in-by-barcode", map[string]any{"id": newUUID()})
	for _, w := range []wantError{
		{422, "Checkin request must have an item barcode", "itemBarcode", "", ""},
		{422, "Checkin request must have a service point id", "servicePointId", "", ""},
		{422, "Checkin request must have an check in date", "checkInDate", "", ""},
	} {
		assertError(t, "empty check-in", r, w)
	}
	assertError(t, "no logged-in user", e.do("POST", "/circulation/check-in-by-barcode",
		map[string]any{"servicePointId": f.sp1, "checkInDate": "2026-11-22T11:00:00Z", "itemBarcode": "it-000"}, "X-No-User", "1"),
		wantError{422, "No logged-in user present", "", "", ""})
	assertError(t, "bad patron id", e.do("GET", "/automated-patron-blocks/not-a-uuid", nil),
		wantError{status: 400, message: "'userId' parameter is incorrect"})
}

// Two check-outs of one item race; the open-loan unique index lets exactly
// one win and the loser gets FOLIO's 422, never a 500.
func TestConcurrentCheckOutsOfTheSameItems(t *testing.T) {
	pool, tenant, f := newTenant(t)
	e := newEnv(t, pool, tenant, "fast")
	const n, items = 50, 10
	type result struct {
		status int
		body   string
	}
	res := make([]result, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, f.items[i%items], fmt.Sprintf("u-%03d", i)))
			res[i] = result{r.status, string(r.body)}
		}(i)
	}
	close(start)
	wg.Wait()
	created, refused, raced := 0, 0, 0
	for i, r := range res {
		switch {
		case r.status == 201:
			created++
		case r.status == 422 && strings.Contains(r.body, "Item is already checked out"):
			refused++
		case r.status == 422 && strings.Contains(r.body, "Cannot check out item that already has an open loan"):
			// lost the race at the unique index (or saw the winner's loan)
			refused++
			raced++
		default:
			t.Errorf("check-out %d: %d %s", i, r.status, r.body)
		}
	}
	t.Logf("%d created, %d refused (%d of them at the open-loan check or index)", created, refused, raced)
	var loans, perItemMax, checkedOut int
	pool.QueryRow(t.Context(), `SELECT count(*), coalesce(max(c), 0) FROM (SELECT count(*) c FROM `+tenant+
		`_mod_circulation_storage.loan WHERE jsonb->'status'->>'name' = 'Open' GROUP BY jsonb->>'itemId') s`).Scan(&loans, &perItemMax)
	pool.QueryRow(t.Context(), `SELECT count(*) FROM `+tenant+`_mod_inventory_storage.item WHERE jsonb->'status'->>'name' = 'Checked out'`).Scan(&checkedOut)
	if created != items || refused != n-items || loans != items || perItemMax != 1 || checkedOut != items {
		t.Fatalf("created %d, refused %d, items with open loans %d (max %d per item), items checked out %d; want %d, %d, %d, 1, %d",
			created, refused, loans, perItemMax, checkedOut, items, n-items, items, items)
	}
}

// Bad queries and parameters on the business modules' GETs get the storage's
// 400 text, never a 500; note-links filters as mod-notes does.
func TestBusinessGetsPassBadInputBackAndFilterNotes(t *testing.T) {
	pool, tenant, f := newTenant(t)
	e := newEnv(t, pool, tenant, "fast")
	for _, path := range []string{
		"/circulation/loans?query=" + q("(userId==") + "&limit=1",
		"/circulation/requests?query=" + q("status==\"Open"),
		"/inventory/items?query=" + q("barcode==") + "&limit=40",
		"/inventory/items?limit=-1",
		"/circulation/loans/not-a-uuid",
		"/note-links/domain/users/type/user/id/" + f.users["u-000"] + "?order=sideways",
		"/note-links/domain/users/type/user/id/" + f.users["u-000"] + "?status=maybe",
	} {
		r := e.do("GET", path, nil)
		if r.status != 400 || len(r.body) == 0 || strings.Contains(string(r.body), "goroutine") {
			t.Errorf("GET %s: %d %q, want 400 with a message", path, r.status, r.body)
		}
	}
	count := func(user, status string) float64 {
		r := e.do("GET", "/note-links/domain/users/type/user/id/"+user+"?status="+status, nil)
		if r.status != 200 {
			t.Fatalf("note-links: %d %s", r.status, r.body)
		}
		return r.json(t)["totalRecords"].(float64)
	}
	if a, u, all := count(f.users["u-001"], "assigned"), count(f.users["u-001"], "unassigned"), count(f.users["u-001"], "all"); a != 0 || u != 1 || all != 1 {
		t.Errorf("note-links for a user without notes: assigned %v, unassigned %v, all %v; want 0, 1, 1", a, u, all)
	}
	if a := count(f.users["u-000"], "assigned"); a != 1 {
		t.Errorf("note-links for the noted user: %v, want 1", a)
	}
	body := checkOutBody(f, "it-050", "u-050")
	body["loanDate"] = "yesterday"
	assertError(t, "bad loanDate", e.do("POST", "/circulation/check-out-by-barcode", body),
		wantError{422, "loanDate is not a valid date-time (use ISO 8601, e.g. 2026-11-22T10:00:00.000Z)", "loanDate", "yesterday", ""})
	body = checkOutBody(f, "it-050", "u-050")
	body["servicePointId"] = "desk-1"
	assertError(t, "bad service point id", e.do("POST", "/circulation/check-out-by-barcode", body),
		wantError{422, "Service point ID must be a UUID", "servicePointId", "desk-1", ""})
}

// Business answers carry their Content-Length: a body over 2 KB without one
// goes out chunked, and the gateway's ReverseProxy then writes every chunk to
// the client separately. Check-out's loan and check-in's answer are that big.
func TestBusinessAnswersCarryContentLength(t *testing.T) {
	pool, tenant, f := newTenant(t)
	e := newEnv(t, pool, tenant, "fast")
	for _, r := range []response{
		e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, "it-035", "u-035")),
		e.do("POST", "/circulation/check-in-by-barcode", map[string]any{"servicePointId": f.sp1, "checkInDate": "2026-11-22T11:00:00.000Z", "itemBarcode": "it-035"}),
		e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, "no-such-item", "u-035")),
	} {
		if got := r.header.Get("Content-Length"); got != strconv.Itoa(len(r.body)) || r.header.Get("Transfer-Encoding") != "" {
			t.Errorf("%d answer of %d bytes: Content-Length %q, Transfer-Encoding %q; want %d and none",
				r.status, len(r.body), got, r.header.Get("Transfer-Encoding"), len(r.body))
		}
	}
}
