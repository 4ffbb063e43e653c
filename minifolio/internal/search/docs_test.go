package search

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestInstanceDoc(t *testing.T) {
	h := json.RawMessage(`{"id": "h1", "instanceId": "i1"}`)
	it := json.RawMessage(`{"id": "t1", "status": {"name": "Available"}}`)
	cases := []struct {
		name, instance  string
		holdings, items []json.RawMessage
		wantErr         bool
	}{
		{"spliced", `{"id": "i1", "title": "Water in Africa"}`, []json.RawMessage{h}, []json.RawMessage{it, it}, false},
		{"empty record", ` {} `, nil, nil, false},
		{"record with an added key goes the slow way", `{"id": "i1", "items": ["x"], "tenantId": "other"}`, nil, []json.RawMessage{it}, false},
		{"not an object", `["x"]`, nil, nil, true},
		// OpenSearch refuses _version at a document's root; the record's own
		// (optimistic locking) is not indexed, as in mod-search.
		{"record with _version", `{"id": "i1", "title": "x", "_version": 3}`, nil, []json.RawMessage{it}, false},
	}
	for _, c := range cases {
		b, err := InstanceDoc("fs1", json.RawMessage(c.instance), c.holdings, c.items)
		if (err != nil) != c.wantErr {
			t.Fatalf("%s: err %v", c.name, err)
		}
		if c.wantErr {
			continue
		}
		var doc struct {
			ID       string           `json:"id"`
			TenantID string           `json:"tenantId"`
			Shared   *bool            `json:"shared"`
			Holdings []map[string]any `json:"holdings"`
			Items    []struct {
				Status struct{ Name string } `json:"status"`
			} `json:"items"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %s is not JSON: %v", c.name, b, err)
		}
		if doc.TenantID != "fs1" || doc.Shared == nil || *doc.Shared || len(doc.Holdings) != len(c.holdings) || len(doc.Items) != len(c.items) ||
			strings.Contains(string(b), `"_version"`) {
			t.Errorf("%s: %s", c.name, b)
		}
		for _, x := range doc.Items {
			if x.Status.Name != "Available" {
				t.Errorf("%s: item status lost: %s", c.name, b)
			}
		}
	}
}

func TestAuthorityDocs(t *testing.T) {
	ds, err := AuthorityDocs("fs1", json.RawMessage(`{"id": "a1", "naturalId": "n1", "personalName": "Smith, Adam",
		"sftPersonalName": ["Smith, A.", ""], "saftPersonalName": ["Adam Smith"], "topicalTerm": ""}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, field, ref, heading string }{
		{"a1", "personalName", "Authorized", "Smith, Adam"},
		{"a1_sft_personalName_0", "sftPersonalName", "Reference", "Smith, A."},
		{"a1_saft_personalName_0", "saftPersonalName", "Auth/Ref", "Adam Smith"},
	}
	if len(ds) != len(want) {
		t.Fatalf("%d documents, want %d", len(ds), len(want))
	}
	for i, w := range want {
		var d map[string]any
		_ = json.Unmarshal(ds[i].Body, &d)
		if ds[i].ID != w.id || d[w.field] != w.heading || d["headingRef"] != w.heading || d["authRefType"] != w.ref ||
			d["headingType"] != "Personal Name" || d["id"] != "a1" || d["naturalId"] != "n1" || d["tenantId"] != "fs1" {
			t.Errorf("document %d: %s %s", i, ds[i].ID, ds[i].Body)
		}
	}
}
