package modules

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// routes of mod-circulation.
func (c *circulation) routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /circulation/check-out-by-barcode", c.checkOut)
	mux.HandleFunc("POST /circulation/check-in-by-barcode", c.checkIn)
	mux.HandleFunc("GET /circulation/loans", c.loans)
	mux.HandleFunc("GET /circulation/loans/{id}", c.loan)
	mux.HandleFunc("GET /circulation/requests", c.passThrough("/request-storage/requests"))
	mux.HandleFunc("GET /circulation/requests/{id}", c.passThrough("/request-storage/requests"))
	// mod-circulation 24.x: the circulation settings of the storage module.
	mux.HandleFunc("GET /circulation/settings", c.passThrough("/circulation-settings-storage/circulation-settings"))
}

// passThrough answers a business-module GET with the storage module's
// answer, query, paging and errors included (mod-circulation's requests
// endpoints add only joins the CICO workflow never reads).
func (c *circulation) passThrough(storagePath string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		path := storagePath
		if id := r.PathValue("id"); id != "" {
			path += "/" + url.PathEscape(id)
		}
		if r.URL.RawQuery != "" {
			path += "?" + r.URL.RawQuery
		}
		status, body, err := c.okapi.raw(r.Context(), callerOf(r, c.okapi.base), path)
		if err != nil {
			writeFailure(w, err)
			return
		}
		writeRaw(w, status, body)
	}
}

// loans is GET /circulation/loans: storage loans with the item summary each
// loan carries in mod-circulation's representation.
func (c *circulation) loans(w http.ResponseWriter, r *http.Request) {
	cl := callerOf(r, c.okapi.base)
	loans, total, ok := c.okapi.storagePage(w, r, cl, "/loan-storage/loans", "loans")
	if !ok {
		return
	}
	if err := c.addItems(r.Context(), cl, loans); err != nil {
		writeFailure(w, err)
		return
	}
	writeJSON(w, http.StatusOK, obj{"loans": loans, "totalRecords": total})
}

func (c *circulation) loan(w http.ResponseWriter, r *http.Request) {
	cl := callerOf(r, c.okapi.base)
	loan, ok := c.okapi.storageRecord(w, r, cl, "/loan-storage/loans/"+url.PathEscape(r.PathValue("id")))
	if !ok {
		return
	}
	if err := c.addItems(r.Context(), cl, []obj{loan}); err != nil {
		writeFailure(w, err)
		return
	}
	writeJSON(w, http.StatusOK, loan)
}

// idsPerQuery is how many ids one `id==a or id==b …` lookup carries, as in
// mod-circulation (CqlIndexValuesFinder's DEFAULT_MAX_ID_VALUES_PER_CQL_SEARCH_QUERY):
// a page of loans may hold thousands of items, and one query naming them
// all would outgrow the gateway's request-line limit (431, then a 500 here).
const idsPerQuery = 50

// addItems fetches the loans' items, idsPerQuery ids per query, and embeds
// their summaries.
func (c *circulation) addItems(ctx context.Context, cl caller, loans []obj) error {
	var ids []string
	seen := map[string]bool{}
	for _, l := range loans {
		if id := str(l, "itemId"); isUUID(id) && !seen[id] {
			seen[id] = true
			ids = append(ids, "id=="+id)
		}
	}
	byID := map[string]obj{}
	for start := 0; start < len(ids); start += idsPerQuery {
		chunk := ids[start:min(start+idsPerQuery, len(ids))]
		var res struct {
			Items []obj `json:"items"`
		}
		if err := c.okapi.get(ctx, cl, query("/item-storage/items", strings.Join(chunk, " or "), len(chunk)), &res); err != nil {
			return err
		}
		for _, it := range res.Items {
			byID[str(it, "id")] = it
		}
	}
	for _, l := range loans {
		it := byID[str(l, "itemId")]
		if it == nil {
			continue
		}
		view, err := loadItemView(ctx, c.refs, cl, it)
		if err != nil {
			return err
		}
		l["item"] = view.circulationSummary(nil)
	}
	return nil
}
