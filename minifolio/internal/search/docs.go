package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// InstanceDoc builds mod-search's instance document: the instance's own
// fields, tenantId/shared, and holdings[] and items[] (items' status.name
// searchable as items.status.name), as mod-search merges inventory events.
func InstanceDoc(tenant string, instance json.RawMessage, holdings, items []json.RawMessage) ([]byte, error) {
	return appendInstanceDoc(nil, tenant, instance, holdings, items)
}

// docKeys are the keys the document adds to the instance record, and
// _version (optimistic locking's, in a record updated through the API),
// which mod-search does not index and OpenSearch refuses at a document's
// root (a metadata field's name).
var docKeys = [][]byte{[]byte(`"tenantId"`), []byte(`"shared"`), []byte(`"holdings"`), []byte(`"items"`), []byte(`"_version"`)}

// appendInstanceDoc appends the document to buf by splicing the stored JSON
// (PostgreSQL's jsonb text) instead of decoding and re-encoding it: a reindex
// spends its CPU here, once per instance. The holdings and items are kept
// whole; the mapping indexes only the fields searches use (dynamic: false).
// A record that already carries one of the added keys goes the slow way,
// so the document never has a key twice.
func appendInstanceDoc(buf []byte, tenant string, instance json.RawMessage, holdings, items []json.RawMessage) ([]byte, error) {
	in := bytes.TrimSpace(instance)
	if len(in) < 2 || in[0] != '{' || in[len(in)-1] != '}' {
		return buf, fmt.Errorf("instance record is not a JSON object")
	}
	for _, k := range docKeys {
		if bytes.Contains(in, k) {
			return appendInstanceDocSlow(buf, tenant, in, holdings, items)
		}
	}
	body := bytes.TrimSpace(in[1 : len(in)-1])
	buf = append(buf, '{')
	if len(body) > 0 {
		buf = append(buf, body...)
		buf = append(buf, ',')
	}
	buf = append(buf, `"tenantId":`...)
	buf = strconv.AppendQuote(buf, tenant)
	buf = append(buf, `,"shared":false,"holdings":[`...)
	buf = appendList(buf, holdings)
	buf = append(buf, `],"items":[`...)
	buf = appendList(buf, items)
	return append(buf, "]}"...), nil
}

func appendList(buf []byte, recs []json.RawMessage) []byte {
	for i, r := range recs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, r...)
	}
	return buf
}

func appendInstanceDocSlow(buf []byte, tenant string, instance json.RawMessage, holdings, items []json.RawMessage) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(instance, &doc); err != nil {
		return buf, err
	}
	delete(doc, "_version")
	doc["tenantId"] = tenant
	doc["shared"] = false
	doc["holdings"] = rawList(holdings)
	doc["items"] = rawList(items)
	b, err := json.Marshal(doc)
	return append(buf, b...), err
}

func rawList(rs []json.RawMessage) []json.RawMessage {
	if rs == nil {
		return []json.RawMessage{}
	}
	return rs
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
	buf = appendAction(buf, index, id)
	buf = append(buf, doc...)
	return append(buf, '\n')
}

func appendAction(buf []byte, index, id string) []byte {
	buf = append(buf, `{"index":{"_index":"`...)
	buf = append(buf, index...)
	buf = append(buf, `","_id":`...)
	buf = strconv.AppendQuote(buf, id)
	return append(buf, "}}\n"...)
}
