package search

import (
	"encoding/json"
	"strconv"
	"strings"
)

// holdingsFields and itemFields are what mod-search keeps of holdings and
// items inside the instance document (a subset of its holdings[]/items[]):
// enough for the item/holdings search options, facets and expandAll.
var holdingsFields = []string{"id", "hrid", "permanentLocationId", "effectiveLocationId", "callNumber", "discoverySuppress"}
var itemFields = []string{"id", "hrid", "barcode", "holdingsRecordId", "status", "effectiveLocationId", "materialTypeId", "discoverySuppress"}

// InstanceDoc builds mod-search's instance document: the instance's own
// fields, tenantId/shared, and holdings[] and items[] (items' status.name
// searchable as items.status.name), as mod-search merges inventory events.
func InstanceDoc(tenant string, instance json.RawMessage, holdings, items []json.RawMessage) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(instance, &doc); err != nil {
		return nil, err
	}
	doc["tenantId"] = tenant
	doc["shared"] = false
	hs := make([]map[string]any, 0, len(holdings))
	for _, h := range holdings {
		m, err := pick(h, holdingsFields)
		if err != nil {
			return nil, err
		}
		hs = append(hs, m)
	}
	is := make([]map[string]any, 0, len(items))
	for _, it := range items {
		m, err := pick(it, itemFields)
		if err != nil {
			return nil, err
		}
		is = append(is, m)
	}
	doc["holdings"] = hs
	doc["items"] = is
	return json.Marshal(doc)
}

func pick(raw json.RawMessage, fields []string) (map[string]any, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, err
	}
	m := make(map[string]any, len(fields))
	for _, f := range fields {
		if v, ok := all[f]; ok {
			m[f] = v
		}
	}
	return m, nil
}

// AuthorityDoc is one indexed authority heading: its document id and body.
type AuthorityDoc struct {
	ID   string
	Body []byte
}

// AuthorityDocs splits an authority record into one document per heading, as
// mod-search does: the authorized heading (authRefType "Authorized"), each
// see-from reference ("Reference") and each see-also-from ("Auth/Ref"). Every
// document carries the record's id, naturalId, source and sourceFileId and
// the one heading field it stands for, plus headingType and headingRef.
func AuthorityDocs(tenant string, raw json.RawMessage) ([]AuthorityDoc, error) {
	var rec map[string]any
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, err
	}
	id, _ := rec["id"].(string)
	base := map[string]any{"id": id, "tenantId": tenant, "shared": false}
	for _, k := range []string{"naturalId", "source", "sourceFileId", "lccn", "metadata"} {
		if v, ok := rec[k]; ok {
			base[k] = v
		}
	}
	var out []AuthorityDoc
	add := func(suffix, field, headingType, refType, value string) error {
		d := make(map[string]any, len(base)+4)
		for k, v := range base {
			d[k] = v
		}
		d[field] = value
		d["headingType"] = headingType
		d["authRefType"] = refType
		d["headingRef"] = value
		b, err := json.Marshal(d)
		if err != nil {
			return err
		}
		out = append(out, AuthorityDoc{ID: id + suffix, Body: b})
		return nil
	}
	for _, h := range headingFields {
		if v, ok := rec[h.field].(string); ok && v != "" {
			if err := add("", h.field, h.headingType, "Authorized", v); err != nil {
				return nil, err
			}
		}
		for _, ref := range []struct{ field, refType, tag string }{
			{sftName(h.field), "Reference", "sft"}, {saftName(h.field), "Auth/Ref", "saft"}} {
			list, _ := rec[ref.field].([]any)
			for i, x := range list {
				if v, ok := x.(string); ok && v != "" {
					if err := add("_"+ref.tag+"_"+h.field+"_"+strconv.Itoa(i), ref.field, h.headingType, ref.refType, v); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return out, nil
}

// bulkAction appends one "index" action and its document to an NDJSON body.
func bulkAction(buf []byte, index, id string, doc []byte) []byte {
	buf = append(buf, `{"index":{"_index":"`...)
	buf = append(buf, index...)
	buf = append(buf, `","_id":`...)
	buf = strconv.AppendQuote(buf, id)
	buf = append(buf, "}}\n"...)
	buf = append(buf, doc...)
	return append(buf, '\n')
}

// jsonString is a JSON string literal (for ids that are already validated).
func jsonString(s string) string {
	return strconv.Quote(strings.ToValidUTF8(s, ""))
}
