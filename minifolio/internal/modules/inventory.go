package modules

import (
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
	items, total, ok := v.okapi.storagePage(w, r, cl, "/item-storage/items", "items")
	if !ok {
		return
	}
	out := make([]obj, 0, len(items))
	for _, it := range items {
		view, err := loadItemView(r.Context(), v.refs, cl, it)
		if err != nil {
			writeFailure(w, err)
			return
		}
		out = append(out, view.inventoryItem())
	}
	writeJSON(w, http.StatusOK, obj{"items": out, "totalRecords": total})
}

func (v *inventory) item(w http.ResponseWriter, r *http.Request) {
	cl := callerOf(r, v.okapi.base)
	it, ok := v.okapi.storageRecord(w, r, cl, "/item-storage/items/"+url.PathEscape(r.PathValue("id")))
	if !ok {
		return
	}
	view, err := loadItemView(r.Context(), v.refs, cl, it)
	if err != nil {
		writeFailure(w, err)
		return
	}
	writeJSON(w, http.StatusOK, view.inventoryItem())
}
