package modules

import (
	"encoding/json"
	"net/http"
	"net/url"
)

// inventory is mod-inventory: the composite item view the staff UI reads
// (GET /inventory/items), built from item storage plus holdings, instance
// and reference records, all fetched through the gateway.
type inventory struct {
	okapi *okapiClient
	refs  *refCache
}

func (v *inventory) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /inventory/items", v.items)
	mux.HandleFunc("GET /inventory/items/{id}", v.item)
}

func (v *inventory) items(w http.ResponseWriter, r *http.Request) {
	cl := callerOf(r, v.okapi.base)
	path := "/item-storage/items"
	if r.URL.RawQuery != "" {
		path += "?" + r.URL.RawQuery
	}
	status, body, err := v.okapi.raw(r.Context(), cl, path)
	if err != nil {
		writeFailure(w, err)
		return
	}
	if status != http.StatusOK {
		// bad CQL, bad paging: the storage's 400 text is mod-inventory's too
		w.Header().Set("Content-Type", contentType(body))
		w.WriteHeader(status)
		w.Write(body)
		return
	}
	var page struct {
		Items        []obj `json:"items"`
		TotalRecords int   `json:"totalRecords"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		writeFailure(w, serverError("item storage returned invalid JSON"))
		return
	}
	out := make([]obj, 0, len(page.Items))
	for _, it := range page.Items {
		view, err := loadItemView(r.Context(), v.refs, cl, it)
		if err != nil {
			writeFailure(w, err)
			return
		}
		out = append(out, view.inventoryItem())
	}
	writeJSON(w, http.StatusOK, obj{"items": out, "totalRecords": page.TotalRecords})
}

func (v *inventory) item(w http.ResponseWriter, r *http.Request) {
	cl := callerOf(r, v.okapi.base)
	var it obj
	if err := v.okapi.get(r.Context(), cl, "/item-storage/items/"+url.PathEscape(r.PathValue("id")), &it); err != nil {
		if ue, ok := err.(*upstreamError); ok {
			writeText(w, ue.status, ue.body)
			return
		}
		writeFailure(w, err)
		return
	}
	view, err := loadItemView(r.Context(), v.refs, cl, it)
	if err != nil {
		writeFailure(w, err)
		return
	}
	writeJSON(w, http.StatusOK, view.inventoryItem())
}
