package modules

import (
	"context"
)

// itemView is an item with the records FOLIO's business modules join to it:
// its holdings and instance (title, contributors, call number), effective
// location and material/loan types. mod-circulation and mod-inventory both
// build their item representations from it.
type itemView struct {
	item, holdings, instance, location, materialType obj
	loanType, tempLoanType                           obj // permanent and temporary loan types
}

// loadItemView fetches the item's holdings and instance and its reference
// records through the cache. Holdings and instances do not change during a
// CICO run, and one transaction reads the same item up to three times
// (inventory/items, check-out, circulation/loans): caching them saves a
// third of the module-to-module calls, the cost that limits throughput on a
// small machine. Items themselves (status!) are never cached.
func loadItemView(ctx context.Context, refs *refCache, cl caller, item obj) (*itemView, error) {
	v := &itemView{item: item}
	var err error
	if v.holdings, err = refs.byID(ctx, cl, "/holdings-storage/holdings", str(item, "holdingsRecordId")); err != nil {
		return nil, err
	}
	if v.instance, err = refs.byID(ctx, cl, "/instance-storage/instances", str(v.holdings, "instanceId")); err != nil {
		return nil, err
	}
	if v.location, err = refs.byID(ctx, cl, "/locations", v.effectiveLocationID()); err != nil {
		return nil, err
	}
	if v.materialType, err = refs.byID(ctx, cl, "/material-types", str(item, "materialTypeId")); err != nil {
		return nil, err
	}
	if v.loanType, err = refs.byID(ctx, cl, "/loan-types", str(item, "permanentLoanTypeId")); err != nil {
		return nil, err
	}
	if v.tempLoanType, err = refs.byID(ctx, cl, "/loan-types", str(item, "temporaryLoanTypeId")); err != nil {
		return nil, err
	}
	return v, nil
}

// effectiveLocationID is inventory's rule: item temporary, item permanent,
// holdings temporary, holdings permanent (storage usually stores the result
// as effectiveLocationId already).
func (v *itemView) effectiveLocationID() string {
	for _, c := range []string{str(v.item, "effectiveLocationId"), str(v.item, "temporaryLocationId"),
		str(v.item, "permanentLocationId"), str(v.holdings, "temporaryLocationId"), str(v.holdings, "permanentLocationId")} {
		if c != "" {
			return c
		}
	}
	return ""
}

func (v *itemView) title() string { return str(v.instance, "title") }

func (v *itemView) callNumber() string {
	if c := str(v.item, "itemLevelCallNumber"); c != "" {
		return c
	}
	if c := str(v.item, "effectiveCallNumberComponents.callNumber"); c != "" {
		return c
	}
	return str(v.holdings, "callNumber")
}

func (v *itemView) contributors() []obj {
	out := []obj{}
	for _, c := range list(v.instance, "contributors") {
		if m, ok := c.(map[string]any); ok {
			out = append(out, obj{"name": str(m, "name")})
		}
	}
	return out
}

// circulationSummary is the item object mod-circulation embeds in loans and
// check-in responses: what its ItemSummaryRepresentation writes (v23.x),
// the properties loan.json's "item" allows. callNumberComponents is written
// in check-in answers too, as mod-circulation does, though
// check-in-by-barcode-response.json does not list it. primaryContributor and
// displaySummary came to mod-circulation in 2024, after the releases
// minifolio's profiles play.
func (v *itemView) circulationSummary(inTransitSP obj) obj {
	it := v.item
	s := obj{
		"id":                   str(it, "id"),
		"holdingsRecordId":     str(it, "holdingsRecordId"),
		"instanceId":           str(v.holdings, "instanceId"),
		"title":                v.title(),
		"barcode":              str(it, "barcode"),
		"callNumber":           v.callNumber(),
		"contributors":         v.contributors(),
		"status":               sub(it, "status"),
		"location":             obj{"name": str(v.location, "name")},
		"materialType":         obj{"name": str(v.materialType, "name")},
		"callNumberComponents": obj{"callNumber": v.callNumber()},
	}
	for _, k := range []string{"enumeration", "chronology", "volume", "copyNumber"} {
		if x := str(it, k); x != "" {
			s[k] = x
		}
	}
	if id := str(it, "inTransitDestinationServicePointId"); id != "" {
		s["inTransitDestinationServicePointId"] = id
		if inTransitSP != nil {
			s["inTransitDestinationServicePoint"] = obj{"name": str(inTransitSP, "name")}
		}
	}
	return s
}

// inventoryItem is mod-inventory's item representation (ramls/item.json):
// the storage item with names resolved and instance fields copied in.
func (v *itemView) inventoryItem() obj {
	out := obj{}
	for k, x := range v.item {
		out[k] = x
	}
	out["title"] = v.title()
	names := []obj{}
	for _, c := range v.contributors() {
		names = append(names, obj{"name": c["name"]})
	}
	out["contributorNames"] = names
	if cn := v.callNumber(); cn != "" {
		out["callNumber"] = cn
	}
	if v.materialType != nil {
		out["materialType"] = obj{"id": str(v.materialType, "id"), "name": str(v.materialType, "name")}
	}
	if v.loanType != nil {
		out["permanentLoanType"] = obj{"id": str(v.item, "permanentLoanTypeId"), "name": str(v.loanType, "name")}
	}
	if v.tempLoanType != nil {
		out["temporaryLoanType"] = obj{"id": str(v.item, "temporaryLoanTypeId"), "name": str(v.tempLoanType, "name")}
	}
	if v.location != nil {
		out["effectiveLocation"] = obj{"id": str(v.location, "id"), "name": str(v.location, "name")}
	}
	// Bound-with parts are not modelled: no item is bound with another.
	out["isBoundWith"] = false
	for _, f := range []string{"materialTypeId", "permanentLoanTypeId", "temporaryLoanTypeId",
		"permanentLocationId", "temporaryLocationId", "effectiveLocationId"} {
		delete(out, f)
	}
	return out
}
