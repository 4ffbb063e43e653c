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
		item, err := v.representation(r, cl, it)
		if err != nil {
			writeFailure(w, err)
			return
		}
		out = append(out, item)
	}
	writeJSON(w, http.StatusOK, obj{"items": out, "totalRecords": total})
}

func (v *inventory) item(w http.ResponseWriter, r *http.Request) {
	cl := callerOf(r, v.okapi.base)
	it, ok := v.okapi.storageRecord(w, r, cl, "/item-storage/items/"+url.PathEscape(r.PathValue("id")))
	if !ok {
		return
	}
	item, err := v.representation(r, cl, it)
	if err != nil {
		writeFailure(w, err)
		return
	}
	writeJSON(w, http.StatusOK, item)
}

// representation is mod-inventory's item (ItemRepresentation, its
// ramls/item.json): the item's own permanent and temporary locations, and
// the effective one, as {id, name} objects instead of the storage's *Id
// fields, which mod-inventory's schema does not allow.
func (v *inventory) representation(r *http.Request, cl caller, it obj) (obj, error) {
	view, err := loadItemView(r.Context(), v.refs, cl, it)
	if err != nil {
		return nil, err
	}
	out := view.inventoryItem()
	for field, id := range map[string]string{"permanentLocation": str(it, "permanentLocationId"), "temporaryLocation": str(it, "temporaryLocationId")} {
		loc, err := v.refs.byID(r.Context(), cl, "/locations", id)
		if err != nil {
			return nil, err
		}
		if loc != nil {
			out[field] = obj{"id": str(loc, "id"), "name": str(loc, "name")}
		}
	}
	return out, nil
}
