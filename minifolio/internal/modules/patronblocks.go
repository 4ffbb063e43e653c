package modules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// patronBlocks is mod-patron-blocks. Circulation publishes check-out and
// check-in events to it (FOLIO: through mod-pubsub; here: POST to its event
// handlers through the gateway); it stores each event and keeps a per-user
// summary of open loans, from which GET /automated-patron-blocks/{userId}
// computes the blocks against the patron group's limits.
type patronBlocks struct {
	db       *pgxpool.Pool
	okapi    *okapiClient
	refs     *refCache
	prof     *profile.Profile
	now      func() time.Time
	settings pageCache
}

// pageCache keeps query results for a minute, keyed by tenant and query.
type pageCache struct {
	mu sync.Mutex
	m  map[string]cachedPage
}

type cachedPage struct {
	page    storage.Page
	expires time.Time
}

func (c *pageCache) get(key string, load func() (storage.Page, error)) (storage.Page, error) {
	now := time.Now()
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.page, nil
	}
	p, err := load()
	if err != nil {
		return p, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) > 10000 {
		c.m = map[string]cachedPage{}
	}
	c.m[key] = cachedPage{page: p, expires: now.Add(time.Minute)}
	c.mu.Unlock()
	return p, nil
}

var (
	userSummaryT  = storage.MustLookup("mod_patron_blocks", "user_summary")
	checkedOutT   = storage.MustLookup("mod_patron_blocks", "item_checked_out_event")
	checkedInT    = storage.MustLookup("mod_patron_blocks", "item_checked_in_event")
	blockLimitsT  = storage.MustLookup("mod_patron_blocks", "patron_block_limits")
	blockConditsT = storage.MustLookup("mod_patron_blocks", "patron_block_conditions")
	userIDEquals  = storage.FieldExpr("userId") + " = lower(f_unaccent($1))"
	groupIDEquals = storage.FieldExpr("patronGroupId") + " = lower(f_unaccent($1))"
)

// Condition ids of mod-patron-blocks' reference data (patron-block-conditions).
const (
	condItemsChargedOut = "3d7c52dc-c732-4223-8bf8-e5917801386f"
	condLostItems       = "72b67965-5b73-4840-bc0b-be8f3f6e047e"
	condOverdueItems    = "584fbd4f-6a34-4730-a6ca-73a6a6a9d845"
	condFeeFineBalance  = "cf7a0d5f-a327-4ca1-aa9e-dc55ec006b8a"
)

func (p *patronBlocks) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /automated-patron-blocks/{userId}", p.get)
	mux.HandleFunc("POST /automated-patron-blocks/handlers/item-checked-out", p.itemCheckedOut)
	mux.HandleFunc("POST /automated-patron-blocks/handlers/item-checked-in", p.itemCheckedIn)
}

// openLoan is one entry of user_summary.openLoans.
type openLoan struct {
	LoanID              string `json:"loanId"`
	DueDate             string `json:"dueDate,omitempty"`
	Recall              bool   `json:"recall"`
	ItemLost            bool   `json:"itemLost"`
	ItemClaimedReturned bool   `json:"itemClaimedReturned"`
	GracePeriod         *obj   `json:"gracePeriod,omitempty"`
}

type userSummary struct {
	ID            string     `json:"id"`
	UserID        string     `json:"userId"`
	OpenLoans     []openLoan `json:"openLoans"`
	OpenFeesFines []struct {
		Balance float64 `json:"balance"`
	} `json:"openFeesFines"`
}

type loanEvent struct {
	ID         string `json:"id"`
	UserID     string `json:"userId"`
	LoanID     string `json:"loanId"`
	DueDate    string `json:"dueDate,omitempty"`
	ReturnDate string `json:"returnDate,omitempty"`
}

func (p *patronBlocks) get(w http.ResponseWriter, r *http.Request) {
	userID := r.PathValue("userId")
	if !isUUID(userID) {
		writeText(w, http.StatusBadRequest, fmt.Sprintf(
			"\n 'userId' parameter is incorrect. parameter value {%s} is not valid: must match \"^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[1-5][a-fA-F0-9]{3}-[89abAB][a-fA-F0-9]{3}-[a-fA-F0-9]{12}$\"", userID))
		return
	}
	tenant := r.Header.Get("X-Okapi-Tenant")
	ctx := r.Context()
	var sum *userSummary
	var err error
	if p.prof.PatronBlocks.Mode == "events" {
		sum, err = p.rebuildSummary(ctx, tenant, userID)
	} else {
		sum, err = p.readSummary(ctx, tenant, userID)
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	blocks := []obj{}
	if sum != nil && (len(sum.OpenLoans) > 0 || len(sum.OpenFeesFines) > 0) {
		blocks, err = p.evaluate(ctx, callerOf(r, p.okapi.base), tenant, userID, sum)
		if err != nil {
			p.fail(w, r, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, obj{"automatedPatronBlocks": blocks})
}

func (p *patronBlocks) fail(w http.ResponseWriter, r *http.Request, err error) {
	if ue, ok := err.(*upstreamError); ok {
		writeText(w, http.StatusInternalServerError, ue.Error())
		return
	}
	storage.WriteStorageError(w, r, nil, userSummaryT, err)
}

// readSummary is the maintained user_summary row (nil when the user never
// borrowed).
func (p *patronBlocks) readSummary(ctx context.Context, tenant, userID string) (*userSummary, error) {
	var doc []byte
	err := p.db.QueryRow(ctx, "SELECT jsonb FROM "+userSummaryT.QualifiedName(tenant)+" WHERE "+userIDEquals+" LIMIT 1", userID).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s userSummary
	if err := json.Unmarshal(doc, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// rebuildSummary is the Juniper behaviour: every GET re-reads all of the
// user's check-out and check-in events (each query LIMIT eventLimit, as in
// the slow query of the Juniper report), replays them into a summary and
// writes the summary back. Cost grows with the user's history, and
// concurrent GETs for one user queue on the summary row.
func (p *patronBlocks) rebuildSummary(ctx context.Context, tenant, userID string) (*userSummary, error) {
	limit := p.prof.PatronBlocks.EventLimit
	outs, err := storage.FindWhere(ctx, p.db, tenant, checkedOutT, userIDEquals, "", []any{userID}, limit, 0)
	if err != nil {
		return nil, err
	}
	ins, err := storage.FindWhere(ctx, p.db, tenant, checkedInT, userIDEquals, "", []any{userID}, limit, 0)
	if err != nil {
		return nil, err
	}
	if len(outs.Records) == 0 {
		return nil, nil
	}
	open := map[string]string{}
	for _, raw := range outs.Records {
		var e loanEvent
		if json.Unmarshal(raw, &e) == nil && e.LoanID != "" {
			open[e.LoanID] = e.DueDate
		}
	}
	for _, raw := range ins.Records {
		var e loanEvent
		if json.Unmarshal(raw, &e) == nil {
			delete(open, e.LoanID)
		}
	}
	var sum *userSummary
	err = p.withSummary(ctx, tenant, userID, nil, func(s *userSummary) bool {
		s.OpenLoans = s.OpenLoans[:0]
		for id, due := range open {
			s.OpenLoans = append(s.OpenLoans, openLoan{LoanID: id, DueDate: due})
		}
		sort.Slice(s.OpenLoans, func(i, j int) bool { return s.OpenLoans[i].LoanID < s.OpenLoans[j].LoanID })
		sum = s
		return true
	})
	return sum, err
}

// withSummary runs change on the user's summary inside a transaction that
// holds a per-user advisory lock, then stores it when change returns true.
// The lock serialises check-out and check-in events of one patron, which
// the summary's read-modify-write needs.
func (p *patronBlocks) withSummary(ctx context.Context, tenant, userID string, before func(pgx.Tx) error, change func(*userSummary) bool) error {
	return pgx.BeginFunc(ctx, p.db, func(tx pgx.Tx) error {
		if before != nil {
			if err := before(tx); err != nil {
				return err
			}
		}
		h := fnv.New64a()
		h.Write([]byte(tenant + "/" + userID))
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(h.Sum64())); err != nil {
			return err
		}
		// The row id is read from the column: summaries loaded by other tools
		// may lack "id" inside the jsonb.
		var rowID string
		var doc []byte
		err := tx.QueryRow(ctx, "SELECT id::text, jsonb FROM "+userSummaryT.QualifiedName(tenant)+" WHERE "+userIDEquals+" LIMIT 1",
			userID).Scan(&rowID, &doc)
		exists := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		s := &userSummary{UserID: userID, OpenLoans: []openLoan{}}
		if exists {
			if err := json.Unmarshal(doc, s); err != nil {
				return err
			}
		}
		s.ID = rowID
		if !exists {
			s.ID = newUUID()
		}
		if !change(s) {
			return nil
		}
		if s.OpenLoans == nil {
			s.OpenLoans = []openLoan{}
		}
		doc, err = json.Marshal(s)
		if err != nil {
			return err
		}
		if exists {
			return storage.Update(ctx, tx, tenant, userSummaryT, s.ID, doc)
		}
		return storage.Insert(ctx, tx, tenant, userSummaryT, s.ID, doc)
	})
}

// evaluate applies the patron group's limits to the summary, as
// mod-patron-blocks' PatronBlocksService does for the conditions the CICO
// workflow can trigger.
func (p *patronBlocks) evaluate(ctx context.Context, cl caller, tenant, userID string, sum *userSummary) ([]obj, error) {
	// The patron group changes rarely; like the other reference lookups it
	// is cached for a minute instead of costing a gateway call per GET.
	user, err := p.refs.byID(ctx, cl, "/users", userID)
	if err != nil {
		return nil, err
	}
	group := str(user, "patronGroup")
	if group == "" {
		return []obj{}, nil
	}
	// Limits and conditions are library settings: read at most once a minute
	// per tenant and group, not on each of the three GETs per check-out.
	limits, err := p.settings.get(tenant+" limits "+group, func() (storage.Page, error) {
		return storage.FindWhere(ctx, p.db, tenant, blockLimitsT, groupIDEquals, "", []any{group}, 100, 0)
	})
	if err != nil || len(limits.Records) == 0 {
		return []obj{}, err
	}
	conds, err := p.settings.get(tenant+" conditions", func() (storage.Page, error) {
		return storage.FindWhere(ctx, p.db, tenant, blockConditsT, "", "", nil, 100, 0)
	})
	if err != nil {
		return nil, err
	}
	condByID := map[string]obj{}
	for _, raw := range conds.Records {
		var c obj
		if json.Unmarshal(raw, &c) == nil {
			condByID[str(c, "id")] = c
		}
	}
	now := p.now()
	overdue, lost := 0, 0
	for _, l := range sum.OpenLoans {
		if l.ItemLost {
			lost++
		}
		if t, err := parseDateTime(l.DueDate); err == nil && t.Before(now) {
			overdue++
		}
	}
	balance := 0.0
	for _, f := range sum.OpenFeesFines {
		balance += f.Balance
	}
	blocks := []obj{}
	for _, raw := range limits.Records {
		var lim obj
		if json.Unmarshal(raw, &lim) != nil {
			continue
		}
		value := number(lim["value"])
		cid := str(lim, "conditionId")
		var exceeded bool
		switch cid {
		case condItemsChargedOut:
			// at the maximum the patron may not take one more item
			exceeded = float64(len(sum.OpenLoans)) >= value
		case condOverdueItems:
			exceeded = float64(overdue) > value
		case condLostItems:
			exceeded = float64(lost) > value
		case condFeeFineBalance:
			exceeded = balance > value
		}
		c := condByID[cid]
		if !exceeded || c == nil {
			continue
		}
		msg := str(c, "message")
		if msg == "" {
			msg = str(c, "name")
		}
		blocks = append(blocks, obj{"patronBlockConditionId": cid, "blockBorrowing": boolean(c, "blockBorrowing", false),
			"blockRenewals": boolean(c, "blockRenewals", false), "blockRequests": boolean(c, "blockRequests", false), "message": msg})
	}
	return blocks, nil
}

func number(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case string:
		f, _ := strconv.ParseFloat(n, 64)
		return f
	}
	return 0
}

func (p *patronBlocks) readEvent(w http.ResponseWriter, r *http.Request) (*loanEvent, bool) {
	var e loanEvent
	if err := decodeBody(r, &e); err != nil {
		writeFailure(w, err)
		return nil, false
	}
	var errs []ValidationError
	for _, f := range []struct{ key, v string }{{"userId", e.UserID}, {"loanId", e.LoanID}} {
		if !isUUID(f.v) {
			errs = append(errs, ValidationError{Message: "must be a UUID", Parameters: []Param{{Key: f.key, Value: f.v}}})
		}
	}
	if len(errs) > 0 {
		writeJSON(w, http.StatusUnprocessableEntity, obj{"errors": errs})
		return nil, false
	}
	e.ID = newUUID()
	return &e, true
}

// itemCheckedOut stores the event and adds the loan to the user's summary,
// in one transaction so a failed request leaves neither.
func (p *patronBlocks) itemCheckedOut(w http.ResponseWriter, r *http.Request) {
	e, ok := p.readEvent(w, r)
	if !ok {
		return
	}
	p.applyEvent(w, r, checkedOutT, e, func(s *userSummary) bool {
		for _, l := range s.OpenLoans {
			if l.LoanID == e.LoanID {
				return false
			}
		}
		s.OpenLoans = append(s.OpenLoans, openLoan{LoanID: e.LoanID, DueDate: e.DueDate})
		return true
	})
}

func (p *patronBlocks) itemCheckedIn(w http.ResponseWriter, r *http.Request) {
	e, ok := p.readEvent(w, r)
	if !ok {
		return
	}
	p.applyEvent(w, r, checkedInT, e, func(s *userSummary) bool {
		for i, l := range s.OpenLoans {
			if l.LoanID == e.LoanID {
				s.OpenLoans = append(s.OpenLoans[:i], s.OpenLoans[i+1:]...)
				return true
			}
		}
		return false
	})
}

func (p *patronBlocks) applyEvent(w http.ResponseWriter, r *http.Request, t *storage.Table, e *loanEvent, change func(*userSummary) bool) {
	tenant := r.Header.Get("X-Okapi-Tenant")
	ctx := r.Context()
	doc, _ := json.Marshal(e)
	err := p.withSummary(ctx, tenant, e.UserID, func(tx pgx.Tx) error {
		return storage.Insert(ctx, tx, tenant, t, e.ID, doc)
	}, change)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
