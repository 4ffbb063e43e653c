package modules

import (
	"context"
	"encoding/json"
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
		w.Header().Set("Content-Type", contentType(body))
		w.WriteHeader(status)
		w.Write(body)
	}
}

func contentType(body []byte) string {
	if len(body) > 0 && (body[0] == '{' || body[0] == '[') {
		return "application/json"
	}
	return "text/plain"
}

// loans is GET /circulation/loans: storage loans with the item summary each
// loan carries in mod-circulation's representation.
func (c *circulation) loans(w http.ResponseWriter, r *http.Request) {
	cl := callerOf(r, c.okapi.base)
	path := "/loan-storage/loans"
	if r.URL.RawQuery != "" {
		path += "?" + r.URL.RawQuery
	}
	status, body, err := c.okapi.raw(r.Context(), cl, path)
	if err != nil {
		writeFailure(w, err)
		return
	}
	if status != http.StatusOK {
		w.Header().Set("Content-Type", contentType(body))
		w.WriteHeader(status)
		w.Write(body)
		return
	}
	var page struct {
		Loans        []obj `json:"loans"`
		TotalRecords int   `json:"totalRecords"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		writeFailure(w, serverError("loan storage returned invalid JSON"))
		return
	}
	if err := c.addItems(r.Context(), cl, page.Loans); err != nil {
		writeFailure(w, err)
		return
	}
	if page.Loans == nil {
		page.Loans = []obj{}
	}
	writeJSON(w, http.StatusOK, obj{"loans": page.Loans, "totalRecords": page.TotalRecords})
}

func (c *circulation) loan(w http.ResponseWriter, r *http.Request) {
	cl := callerOf(r, c.okapi.base)
	var loan obj
	if err := c.okapi.get(r.Context(), cl, "/loan-storage/loans/"+url.PathEscape(r.PathValue("id")), &loan); err != nil {
		if ue, ok := err.(*upstreamError); ok {
			writeText(w, ue.status, ue.body)
			return
		}
		writeFailure(w, err)
		return
	}
	if err := c.addItems(r.Context(), cl, []obj{loan}); err != nil {
		writeFailure(w, err)
		return
	}
	writeJSON(w, http.StatusOK, loan)
}

// addItems fetches the loans' items in one query and embeds their summaries.
func (c *circulation) addItems(ctx context.Context, cl caller, loans []obj) error {
	var ids []string
	seen := map[string]bool{}
	for _, l := range loans {
		if id := str(l, "itemId"); isUUID(id) && !seen[id] {
			seen[id] = true
			ids = append(ids, "id=="+id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var res struct {
		Items []obj `json:"items"`
	}
	if err := c.okapi.get(ctx, cl, query("/item-storage/items", strings.Join(ids, " or "), len(ids)), &res); err != nil {
		return err
	}
	byID := map[string]obj{}
	for _, it := range res.Items {
		byID[str(it, "id")] = it
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
