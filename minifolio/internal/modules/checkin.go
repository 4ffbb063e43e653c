package modules

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
)

type checkInRequest struct {
	ItemBarcode               string `json:"itemBarcode"`
	ServicePointID            string `json:"servicePointId"`
	CheckInDate               string `json:"checkInDate"`
	SessionID                 string `json:"sessionId"`
	ClaimedReturnedResolution string `json:"claimedReturnedResolution"`
}

// checkIn is POST /circulation/check-in-by-barcode: 200 with {loan?, item,
// staffSlipContext, inHouseUse}. An item without an open loan is still
// checked in (loan absent), which is why PTF can recycle its barcode list.
func (c *circulation) checkIn(w http.ResponseWriter, r *http.Request) {
	var req checkInRequest
	if err := decodeBody(r, &req); err != nil {
		writeFailure(w, err)
		return
	}
	// A client that hangs up (k6 stopped by Ctrl-C) must not cut a check-in in
	// half: the loan closed but the item still "Checked out". FOLIO finishes it too.
	out, err := c.doCheckIn(context.WithoutCancel(r.Context()), callerOf(r, c.okapi.base), req)
	if err != nil {
		writeFailure(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (c *circulation) doCheckIn(ctx context.Context, cl caller, req checkInRequest) (obj, error) {
	// CheckInByBarcodeRequest.from: every missing field is reported together.
	var errs []ValidationError
	if strings.TrimSpace(req.ItemBarcode) == "" {
		errs = append(errs, ValidationError{Message: "Checkin request must have an item barcode", Parameters: []Param{{Key: "itemBarcode", Value: ""}}})
	}
	if strings.TrimSpace(req.ServicePointID) == "" {
		errs = append(errs, ValidationError{Message: "Checkin request must have a service point id", Parameters: []Param{{Key: "servicePointId", Value: ""}}})
	} else if !isUUID(req.ServicePointID) {
		errs = append(errs, ValidationError{Message: "Service point ID must be a UUID", Parameters: []Param{{Key: "servicePointId", Value: req.ServicePointID}}})
	}
	if strings.TrimSpace(req.CheckInDate) == "" {
		errs = append(errs, ValidationError{Message: "Checkin request must have an check in date", Parameters: []Param{{Key: "checkInDate", Value: ""}}})
	}
	if len(errs) > 0 {
		return nil, &failure{status: http.StatusUnprocessableEntity, errs: errs}
	}
	checkInDate, err := parseDateTime(req.CheckInDate)
	if err != nil {
		return nil, invalid("checkInDate is not a valid date-time (use ISO 8601, e.g. 2026-11-22T10:00:00.000Z)", "checkInDate", req.CheckInDate, "")
	}
	if cl.userID == "" {
		return nil, invalid("No logged-in user present", "", "", "")
	}
	now := c.now()

	item, err := c.findOne(ctx, cl, "/item-storage/items", "items", "barcode=="+cqlString(req.ItemBarcode))
	if err != nil {
		return nil, err
	}
	if item == nil {
		return nil, invalid(fmt.Sprintf("No item with barcode %s exists", req.ItemBarcode), "itemBarcode", req.ItemBarcode, "ITEM_BARCODE_NOT_FOUND")
	}
	var view *itemView
	var open []obj
	if err := parallel(
		func() (err error) { view, err = loadItemView(ctx, c.refs, cl, item); return err },
		func() (err error) { open, err = c.openLoans(ctx, cl, str(item, "id"), 2); return err },
	); err != nil {
		return nil, err
	}
	if s := str(item, "status.name"); s == "Intellectual item" {
		return nil, invalid(fmt.Sprintf("%s (%s) (Barcode: %s) has the item status %s and cannot be checked in",
			view.title(), str(view.materialType, "name"), req.ItemBarcode, s), "itemBarcode", req.ItemBarcode, "")
	}
	itemID := str(item, "id")
	if len(open) > 1 {
		return nil, serverError("More than one open loan for item " + req.ItemBarcode)
	}

	// Where the item goes: home if this service point serves its location,
	// otherwise in transit to the location's primary service point.
	home := str(view.location, "primaryServicePoint")
	served := home == "" || home == req.ServicePointID
	for _, sp := range list(view.location, "servicePointIds") {
		if sp == req.ServicePointID {
			served = true
		}
	}
	var destination obj
	if served {
		item["status"] = obj{"name": "Available", "date": folioTime(now)}
		delete(item, "inTransitDestinationServicePointId")
	} else {
		item["status"] = obj{"name": "In transit", "date": folioTime(now)}
		item["inTransitDestinationServicePointId"] = home
		destination, _ = c.refs.byID(ctx, cl, "/service-points", home)
	}
	item["lastCheckIn"] = obj{"dateTime": folioTime(checkInDate), "servicePointId": req.ServicePointID, "staffMemberId": cl.userID}

	var loan, wasOpen obj
	if len(open) == 1 {
		loan = open[0]
		wasOpen = make(obj, len(loan)) // top-level copy: the fields below are replaced, not changed in place
		for k, v := range loan {
			wasOpen[k] = v
		}
		loan["status"] = obj{"name": "Closed"}
		loan["action"] = "checkedin"
		loan["returnDate"] = folioTime(checkInDate)
		loan["systemReturnDate"] = folioTime(now)
		loan["checkinServicePointId"] = req.ServicePointID
		loan["itemStatus"] = str(item, "status.name")
		// Closing the loan before the item changes keeps "at most one open
		// loan" true at every instant for a concurrent check-out.
		if err := c.okapi.do(ctx, cl, http.MethodPut, "/loan-storage/loans/"+str(loan, "id"), loan, nil); err != nil {
			return nil, err
		}
	}
	if err := c.okapi.do(ctx, cl, http.MethodPut, "/item-storage/items/"+itemID, item, nil); err != nil {
		if !c.itemSaved(ctx, cl, itemID, item) {
			// No half check-in (as check-out): without the item update the loan is
			// reopened, or the item would stay "Checked out" with no open loan.
			if wasOpen != nil {
				return nil, forwardConflict(c.undo(ctx, cl, err, http.MethodPut, "/loan-storage/loans/"+str(wasOpen, "id"), wasOpen,
					"item "+req.ItemBarcode+" stays Checked out without an open loan: a check-in by barcode (folio-perf's teardown finds it) or minifolio reset repairs it"))
			}
			return nil, forwardConflict(err)
		}
		slog.Warn("the item update answered an error but was saved; the check-in goes on", "item", itemID, "err", err)
	}

	out := obj{"inHouseUse": false}
	summary := view.circulationSummary(destination)
	out["item"] = summary
	fromSP, _ := c.refs.byID(ctx, cl, "/service-points", req.ServicePointID)
	slipItem := obj{}
	for k, v := range summary {
		slipItem[k] = v
	}
	slipItem["lastCheckedInDateTime"] = folioTime(checkInDate)
	if fromSP != nil {
		slipItem["fromServicePoint"] = str(fromSP, "name")
	}
	if destination != nil {
		slipItem["toServicePoint"] = str(destination, "name")
	}
	out["staffSlipContext"] = obj{"item": slipItem}

	if loan != nil {
		userID := str(loan, "userId")
		session := obj{"id": newUUID(), "patronId": userID, "loanId": str(loan, "id"), "actionType": "Check-in"}
		if req.SessionID != "" && isUUID(req.SessionID) {
			session["sessionId"] = req.SessionID
		}
		// Follow-ups are best effort, as in mod-circulation: the check-in has
		// happened once the loan and item are saved.
		var user obj
		_ = parallel(
			func() error {
				return c.okapi.do(ctx, cl, http.MethodPost, "/patron-action-session-storage/patron-action-sessions", session, nil)
			},
			func() error {
				return c.okapi.do(ctx, cl, http.MethodPost, "/automated-patron-blocks/handlers/item-checked-in",
					obj{"userId": userID, "loanId": str(loan, "id"), "returnDate": str(loan, "returnDate")}, nil)
			},
			func() (err error) { user, err = c.refs.byID(ctx, cl, "/users", userID); return err })
		pol := policies{loan: str(loan, "loanPolicyId"), overdue: str(loan, "overdueFinePolicyId"), lostItem: str(loan, "lostItemPolicyId")}
		rep, err := c.loanRepresentation(ctx, cl, loan, view, user, pol)
		if err != nil {
			return nil, err
		}
		out["loan"] = rep
	}
	return out, nil
}
