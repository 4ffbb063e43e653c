package modules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// circulation is mod-circulation: the business logic of check-out and
// check-in. It has no tables of its own; it reads and writes everything
// through the gateway (users, inventory, circulation storage, fees/fines,
// patron blocks), exactly the traffic pattern that makes mod-circulation and
// Okapi the busiest processes of a FOLIO CICO test.
type circulation struct {
	okapi *okapiClient
	refs  *refCache
	now   func() time.Time
}

type checkOutRequest struct {
	ItemBarcode      string          `json:"itemBarcode"`
	UserBarcode      string          `json:"userBarcode"`
	ProxyUserBarcode string          `json:"proxyUserBarcode"`
	ServicePointID   string          `json:"servicePointId"`
	LoanDate         string          `json:"loanDate"`
	OverrideBlocks   json.RawMessage `json:"overrideBlocks"`
}

// Statuses mod-circulation refuses to check out (CheckOutValidators:
// refuseWhenItemIsNotAllowedForCheckOut); "Checked out" has its own message.
// "Missing" is not among them: a Missing item that turns up at the desk is
// checked out (CIRC-688; mod-circulation's CheckOutByBarcodeTests
// canCheckOutMissingItem).
var notCheckoutable = map[string]bool{
	"Aged to lost": true, "Claimed returned": true, "Declared lost": true, "In process (non-requestable)": true,
	"Intellectual item": true, "Long missing": true, "Lost and paid": true, "Restricted": true,
	"Unavailable": true, "Unknown": true, "Withdrawn": true,
}

// patronBlockOverride is what a blocked patron's 422 tells the UI: the block
// may be overridden with this permission (mod-circulation's BlockOverrideError
// for manual and automated patron blocks alike).
func patronBlockOverride() *OverridableBlock {
	return &OverridableBlock{Name: "patronBlock", MissingPermissions: []string{"circulation.override-patron-block.post"}}
}

// checkOut is POST /circulation/check-out-by-barcode. The order of the checks
// is mod-circulation's (CheckOutByBarcodeResource.checkOut): service point,
// user, manual blocks, automated blocks, proxy, inactive user, item, item
// already checked out, item status, existing open loan, loan policy, item not
// loanable; then the loan is created, the item updated, the patron action
// session saved and the event published.
func (c *circulation) checkOut(w http.ResponseWriter, r *http.Request) {
	var req checkOutRequest
	if err := decodeBody(r, &req); err != nil {
		writeFailure(w, err)
		return
	}
	// Not cancelled by a client hanging up: a half-done check-out would leave a
	// loan without its item status (see check-in).
	loan, partial, err := c.doCheckOut(context.WithoutCancel(r.Context()), callerOf(r, c.okapi.base), req)
	if err != nil {
		writeFailure(w, err)
		return
	}
	w.Header().Set("Location", "/circulation/loans/"+str(loan, "id"))
	status := http.StatusCreated
	if partial {
		// mod-circulation answers 200 when the loan exists but a follow-up
		// (patron action session, event) failed.
		status = http.StatusOK
	}
	writeJSON(w, status, loan)
}

func (c *circulation) doCheckOut(ctx context.Context, cl caller, req checkOutRequest) (obj, bool, error) {
	now := c.now()
	if strings.TrimSpace(req.ServicePointID) == "" {
		return nil, false, invalid("Check out must be performed at a service point", "servicePointId", req.ServicePointID, "")
	}
	if !isUUID(req.ServicePointID) {
		return nil, false, invalid("Service point ID must be a UUID", "servicePointId", req.ServicePointID, "")
	}
	loanDate := now
	if req.LoanDate != "" {
		t, err := parseDateTime(req.LoanDate)
		if err != nil {
			return nil, false, invalid("loanDate is not a valid date-time (use ISO 8601, e.g. 2026-11-22T10:00:00.000Z)", "loanDate", req.LoanDate, "")
		}
		loanDate = t
	}

	// What the checks need is fetched concurrently, as mod-circulation
	// combines its user and item futures; the checks below still run in
	// mod-circulation's order, so the first failing check decides the answer.
	var user, item obj
	err := parallel(
		func() (err error) {
			if strings.TrimSpace(req.UserBarcode) != "" {
				user, err = c.findOne(ctx, cl, "/users", "users", "barcode=="+cqlString(req.UserBarcode))
			}
			return err
		},
		func() (err error) {
			if strings.TrimSpace(req.ItemBarcode) != "" {
				item, err = c.findOne(ctx, cl, "/item-storage/items", "items", "barcode=="+cqlString(req.ItemBarcode))
			}
			return err
		})
	if err != nil {
		return nil, false, err
	}
	if user == nil {
		return nil, false, invalid("Could not find user with matching barcode", "userBarcode", req.UserBarcode, "USER_BARCODE_NOT_FOUND")
	}
	userID := str(user, "id")

	var manual []string
	var auto struct {
		AutomatedPatronBlocks []obj `json:"automatedPatronBlocks"`
	}
	var view *itemView
	var open []obj
	fetches := []func() error{
		func() (err error) { manual, err = c.manualBlocks(ctx, cl, userID, now); return err },
		func() error { return c.okapi.get(ctx, cl, "/automated-patron-blocks/"+userID, &auto) },
	}
	if item != nil {
		fetches = append(fetches,
			func() (err error) { view, err = loadItemView(ctx, c.refs, cl, item); return err },
			func() (err error) { open, err = c.openLoans(ctx, cl, str(item, "id"), 1); return err })
	}
	if err := parallel(fetches...); err != nil {
		return nil, false, err
	}

	// Blocks and the inactive-user check are collected together, as
	// mod-circulation's overriding error handler does, so staff see every
	// reason at once.
	var errs []ValidationError
	if len(manual) > 0 {
		errs = append(errs, ValidationError{Message: "Patron blocked from borrowing",
			Parameters: []Param{{Key: "reason", Value: strings.Join(manual, ";")}}, Code: "USER_IS_BLOCKED_MANUALLY",
			OverridableBlock: patronBlockOverride()})
	}
	for _, b := range auto.AutomatedPatronBlocks {
		if boolean(b, "blockBorrowing", false) {
			errs = append(errs, ValidationError{Message: str(b, "message"), Parameters: []Param{},
				Code: "USER_IS_BLOCKED_AUTOMATICALLY", OverridableBlock: patronBlockOverride()})
		}
	}
	if req.ProxyUserBarcode != "" {
		proxy, err := c.findOne(ctx, cl, "/users", "users", "barcode=="+cqlString(req.ProxyUserBarcode))
		if err != nil {
			return nil, false, err
		}
		if proxy == nil {
			errs = append(errs, ValidationError{Message: "Could not find user with matching barcode",
				Parameters: []Param{{Key: "proxyUserBarcode", Value: req.ProxyUserBarcode}}, Code: "USER_BARCODE_NOT_FOUND"})
		}
	}
	if inactive(user, now) {
		errs = append(errs, ValidationError{Message: "Cannot check out to inactive user",
			Parameters: []Param{{Key: "userBarcode", Value: req.UserBarcode}}})
	}
	if len(errs) > 0 {
		return nil, false, &failure{status: http.StatusUnprocessableEntity, errs: errs}
	}

	if item == nil {
		return nil, false, invalid(fmt.Sprintf("No item with barcode %s could be found", req.ItemBarcode), "itemBarcode", req.ItemBarcode, "")
	}
	// The item checks are collected too: an item already checked out gets
	// both the status error and the open-loan one, as in FOLIO.
	status := str(item, "status.name")
	if status == "Checked out" {
		errs = append(errs, invalid("Item is already checked out", "itemBarcode", req.ItemBarcode, "").errs...)
	}
	if notCheckoutable[status] {
		errs = append(errs, invalid(fmt.Sprintf("%s (%s) (Barcode: %s) has the item status %s and cannot be checked out",
			view.title(), str(view.materialType, "name"), req.ItemBarcode, status), "itemBarcode", req.ItemBarcode, "").errs...)
	}
	itemID := str(item, "id")
	if len(open) > 0 {
		errs = append(errs, hasOpenLoan(req.ItemBarcode).errs...)
	}
	if len(errs) > 0 {
		return nil, false, &failure{status: http.StatusUnprocessableEntity, errs: errs}
	}

	pol, err := resolvePolicies(ctx, c.okapi, c.refs, cl)
	if err != nil {
		return nil, false, err
	}
	loanPolicy, err := c.refs.byID(ctx, cl, "/loan-policy-storage/loan-policies", pol.loan)
	if err != nil {
		return nil, false, err
	}
	if loanPolicy != nil && !boolean(loanPolicy, "loanable", true) {
		return nil, false, &failure{status: http.StatusUnprocessableEntity, errs: []ValidationError{{
			Message: "Item is not loanable", Parameters: []Param{{Key: "itemBarcode", Value: req.ItemBarcode},
				{Key: "loanPolicyId", Value: pol.loan}, {Key: "loanPolicyName", Value: str(loanPolicy, "name")}},
			OverridableBlock: &OverridableBlock{Name: "itemNotLoanableBlock",
				MissingPermissions: []string{"circulation.override-item-not-loanable-block.post"}}}}}
	}

	due := dueDate(loanPolicy, loanDate)
	loan := obj{
		"id": newUUID(), "userId": userID, "itemId": itemID,
		"status": obj{"name": "Open"}, "action": "checkedout", "itemStatus": "Checked out",
		"loanDate": folioTime(loanDate), "dueDate": folioTime(due),
		"checkoutServicePointId": req.ServicePointID,
		"loanPolicyId":           pol.loan,
	}
	if pol.overdue != "" {
		loan["overdueFinePolicyId"] = pol.overdue
	}
	if pol.lostItem != "" {
		loan["lostItemPolicyId"] = pol.lostItem
	}
	if g := str(user, "patronGroup"); g != "" {
		loan["patronGroupIdAtCheckout"] = g
	}
	if l := view.effectiveLocationID(); l != "" {
		loan["itemEffectiveLocationIdAtCheckOut"] = l
	}

	// The loan is written first: the storage's partial unique index on open
	// loans per item decides the race between two simultaneous check-outs, and
	// the loser must leave the item alone.
	var stored obj
	if err := c.okapi.do(ctx, cl, http.MethodPost, "/loan-storage/loans", loan, &stored); err != nil {
		var ue *upstreamError
		// The storage answers a violation of the open-loan unique index with
		// a 422 naming itemId: another check-out of this item won the race.
		if errors.As(err, &ue) && ue.status == http.StatusUnprocessableEntity && strings.Contains(ue.body, `"key":"itemId"`) {
			return nil, false, hasOpenLoan(req.ItemBarcode)
		}
		return nil, false, err
	}
	if stored == nil {
		stored = loan
	}
	item["status"] = obj{"name": "Checked out", "date": folioTime(now)}
	if err := c.okapi.do(ctx, cl, http.MethodPut, "/item-storage/items/"+itemID, item, nil); err != nil {
		if !c.itemSaved(ctx, cl, itemID, item) {
			// No half check-out: without the item update the loan must go too,
			// or the item would stay Available with an open loan on it.
			return nil, false, forwardConflict(c.undo(ctx, cl, err, http.MethodDelete, "/loan-storage/loans/"+str(stored, "id"), nil,
				"item "+req.ItemBarcode+" stays Available with an open loan: a check-in by barcode (folio-perf's teardown) or minifolio reset repairs it"))
		}
		slog.Warn("the item update answered an error but was saved; the check-out goes on", "item", itemID, "err", err)
	}

	session := obj{"id": newUUID(), "patronId": userID, "loanId": str(stored, "id"), "actionType": "Check-out"}
	event := obj{"userId": userID, "loanId": str(stored, "id"), "dueDate": str(stored, "dueDate")}
	partial := parallel(
		func() error {
			return c.okapi.do(ctx, cl, http.MethodPost, "/patron-action-session-storage/patron-action-sessions", session, nil)
		},
		func() error {
			return c.okapi.do(ctx, cl, http.MethodPost, "/automated-patron-blocks/handlers/item-checked-out", event, nil)
		}) != nil

	out, err := c.loanRepresentation(ctx, cl, stored, view, user, pol)
	return out, partial, err
}

// itemSaved reports whether storage holds the item as this request wrote it
// (status and status date). A failed PUT may have been saved all the same when
// only its answer was lost (an error after the commit, a reset connection);
// undoing the loan then would leave exactly the half state the undo is there
// to prevent. When the item cannot be read either, the write counts as lost.
// Not covered: a PUT still in flight that commits after this read (a client
// time-out), which is undone as before.
func (c *circulation) itemSaved(ctx context.Context, cl caller, itemID string, wrote obj) bool {
	var stored obj
	if err := c.okapi.get(context.WithoutCancel(ctx), cl, "/item-storage/items/"+itemID, &stored); err != nil {
		return false
	}
	return str(stored, "status.name") == str(wrote, "status.name") && str(stored, "status.date") == str(wrote, "status.date")
}

// undoWaits are the pauses before each attempt of an undo. The fault that failed the step often
// fails the undo too for a moment (a module restarting, PostgreSQL restarting): a few attempts
// over about a second ride that out instead of leaving a half-done state behind.
var undoWaits = []time.Duration{0, 200 * time.Millisecond, 800 * time.Millisecond}

// undo makes the call that takes back a step after the next one failed with
// err. If every attempt fails, the database is left half done (left says how,
// and what repairs it): that is logged and returned with err, never dropped.
func (c *circulation) undo(ctx context.Context, cl caller, err error, method, path string, body any, left string) error {
	var uerr error
	for _, wait := range undoWaits {
		time.Sleep(wait)
		if uerr = c.okapi.do(context.WithoutCancel(ctx), cl, method, path, body, nil); uerr == nil {
			return err
		}
	}
	slog.Error("undoing a half-done step failed: the database is left inconsistent", "undo", method+" "+path, "left", left, "cause", err, "err", uerr)
	return fmt.Errorf("%v; undoing it with %s %s failed too: %v (%s)", err, method, path, uerr, left)
}

// forwardConflict answers an item update that optimistic locking refused
// (the item changed since this request read it: a check-in and a check-out
// of the same item at once) with storage's 409 and text, as mod-circulation
// forwards a failed storage answer (ForwardOnFailure); any other error is
// returned as it is.
func forwardConflict(err error) error {
	var ue *upstreamError
	if errors.As(err, &ue) && ue.status == http.StatusConflict {
		return &failure{status: http.StatusConflict, text: ue.body}
	}
	return err
}

func hasOpenLoan(barcode string) *failure {
	return invalid("Cannot check out item that already has an open loan", "itemBarcode", barcode, "ITEM_HAS_OPEN_LOAN")
}

// inactive is mod-users' User.isInactive: not active, or expired.
func inactive(user obj, now time.Time) bool {
	if !boolean(user, "active", true) {
		return true
	}
	if e := str(user, "expirationDate"); e != "" {
		if t, err := parseDateTime(e); err == nil && t.Before(now) {
			return true
		}
	}
	return false
}

// manualBlocks returns the descriptions of the user's manual blocks that
// block borrowing and have not expired.
func (c *circulation) manualBlocks(ctx context.Context, cl caller, userID string, now time.Time) ([]string, error) {
	var res struct {
		Manualblocks []obj `json:"manualblocks"`
	}
	if err := c.okapi.get(ctx, cl, query("/manualblocks", "userId=="+userID, 1000), &res); err != nil {
		return nil, err
	}
	var out []string
	for _, b := range res.Manualblocks {
		if !boolean(b, "borrowing", false) {
			continue
		}
		if e := str(b, "expirationDate"); e != "" {
			if t, err := parseDateTime(e); err == nil && t.Before(now) {
				continue
			}
		}
		out = append(out, str(b, "desc"))
	}
	return out, nil
}

// findOne returns the first record of a CQL query, nil when there is none.
func (c *circulation) findOne(ctx context.Context, cl caller, path, key, cql string) (obj, error) {
	var res map[string]json.RawMessage
	if err := c.okapi.get(ctx, cl, query(path, cql, 1), &res); err != nil {
		return nil, err
	}
	var recs []obj
	if err := json.Unmarshal(res[key], &recs); err != nil {
		return nil, fmt.Errorf("GET %s: no %q array in the response", path, key)
	}
	if len(recs) == 0 {
		return nil, nil
	}
	return recs[0], nil
}

func (c *circulation) openLoans(ctx context.Context, cl caller, itemID string, limit int) ([]obj, error) {
	var res struct {
		Loans []obj `json:"loans"`
	}
	err := c.okapi.get(ctx, cl, query("/loan-storage/loans", `itemId=="`+itemID+`" and status.name=="Open"`, limit), &res)
	return res.Loans, err
}

// loanRepresentation is the loan as mod-circulation returns it: the storage
// record plus item, borrower, patron group and policy names.
func (c *circulation) loanRepresentation(ctx context.Context, cl caller, loan obj, view *itemView, user obj, pol policies) (obj, error) {
	out := obj{}
	for k, v := range loan {
		out[k] = v
	}
	var sp obj
	if id := str(view.item, "inTransitDestinationServicePointId"); id != "" {
		sp, _ = c.refs.byID(ctx, cl, "/service-points", id)
	}
	out["item"] = view.circulationSummary(sp)
	if user != nil {
		p := sub(user, "personal")
		b := obj{"firstName": str(p, "firstName"), "lastName": str(p, "lastName"), "barcode": str(user, "barcode")}
		if m := str(p, "middleName"); m != "" {
			b["middleName"] = m
		}
		// LoanRepresentation.additionalBorrowerProperties (v23.x): first,
		// last and middle name and barcode; nothing else (loan.json's
		// borrower allows no more).
		if g := str(user, "patronGroup"); g != "" {
			if grp, err := c.refs.byID(ctx, cl, "/groups", g); err == nil && grp != nil {
				out["patronGroupAtCheckout"] = obj{"id": g, "name": str(grp, "group")}
			}
		}
		out["borrower"] = b
	}
	named := func(field, collection, id string) {
		if id == "" {
			return
		}
		if p, err := c.refs.byID(ctx, cl, collection, id); err == nil && p != nil {
			out[field] = obj{"name": str(p, "name")}
		}
	}
	named("loanPolicy", "/loan-policy-storage/loan-policies", str(loan, "loanPolicyId"))
	named("overdueFinePolicy", "/overdue-fines-policies", str(loan, "overdueFinePolicyId"))
	named("lostItemPolicy", "/lost-item-fees-policies", str(loan, "lostItemPolicyId"))
	if id := str(loan, "checkoutServicePointId"); id != "" {
		if sp, err := c.refs.byID(ctx, cl, "/service-points", id); err == nil && sp != nil {
			out["checkoutServicePoint"] = servicePointSummary(sp)
		}
	}
	return out, nil
}

func servicePointSummary(sp obj) obj {
	return obj{"name": str(sp, "name"), "code": str(sp, "code"), "discoveryDisplayName": str(sp, "discoveryDisplayName"),
		"pickupLocation": boolean(sp, "pickupLocation", false)}
}
