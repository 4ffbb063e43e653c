package search

import (
	"encoding/json"
	"strings"
)

// Resource is a record type mod-search indexes: its index name part, the
// searchable fields and the fields of its basic (non-expandAll) answer.
type Resource struct {
	Name   string            // "instance" | "authority": index names are <env>_<Name>_<tenant>
	Fields map[string]*Field // searchable CQL index names (aliases included)
	Sorts  map[string]string // CQL sort key → OpenSearch field
	Facets map[string]string // facet name → OpenSearch keyword field
	Basic  []string          // _source fields returned without expandAll
}

// Kind is how a field is matched, as mod-search splits its fields: full-text
// (analysed "multilang" text with a keyword sub-field) or term (keyword,
// boolean, date).
type Kind int

const (
	FullText Kind = iota
	Term
)

// Field is one searchable CQL index: the OpenSearch fields it searches.
type Field struct {
	Kind  Kind
	Paths []string // document paths; full-text paths have a ".keyword" sub-field
}

// Env is the index-name prefix (mod-search's ENV, "folio" by default).
const Env = "folio"

// IndexName is mod-search's per-tenant index name: <env>_<resource>_<tenant>.
func IndexName(resource, tenant string) string {
	return Env + "_" + resource + "_" + strings.ToLower(tenant)
}

func ft(paths ...string) *Field { return &Field{Kind: FullText, Paths: paths} }
func tm(paths ...string) *Field { return &Field{Kind: Term, Paths: paths} }

// Instances: the searchable instance fields mod-search's README lists
// ("Instance search options"), the subset our documents carry.
var Instances = &Resource{
	Name: "instance",
	Fields: map[string]*Field{
		"keyword":                            ft("title", "alternativeTitles.alternativeTitle", "indexTitle", "series", "contributors.name"),
		"title":                              ft("title", "alternativeTitles.alternativeTitle", "indexTitle", "series"),
		"alternativeTitles.alternativeTitle": ft("alternativeTitles.alternativeTitle"),
		"indexTitle":                         ft("indexTitle"),
		"uniformTitle":                       ft("alternativeTitles.alternativeTitle"),
		"series":                             ft("series"),
		"contributors":                       ft("contributors.name"),
		"contributors.name":                  ft("contributors.name"),
		"subjects":                           ft("subjects.value"),
		"publisher":                          ft("publication.publisher"),
		"id":                                 tm("id"),
		"hrid":                               tm("hrid"),
		"source":                             tm("source"),
		"languages":                          tm("languages"),
		"identifiers.value":                  tm("identifiers.value"),
		"identifiers.identifierTypeId":       tm("identifiers.identifierTypeId"),
		"staffSuppress":                      tm("staffSuppress"),
		"discoverySuppress":                  tm("discoverySuppress"),
		"instanceTypeId":                     tm("instanceTypeId"),
		"statusId":                           tm("statusId"),
		"modeOfIssuanceId":                   tm("modeOfIssuanceId"),
		"tenantId":                           tm("tenantId"),
		"shared":                             tm("shared"),
		"metadata.createdDate":               tm("metadata.createdDate"),
		"metadata.updatedDate":               tm("metadata.updatedDate"),
		"holdings.id":                        tm("holdings.id"),
		"holdings.hrid":                      tm("holdings.hrid"),
		"holdings.permanentLocationId":       tm("holdings.permanentLocationId"),
		"holdings.effectiveLocationId":       tm("holdings.effectiveLocationId"),
		"items.id":                           tm("items.id"),
		"items.hrid":                         tm("items.hrid"),
		"items.barcode":                      tm("items.barcode"),
		"items.status.name":                  tm("items.status.name"),
		"items.effectiveLocationId":          tm("items.effectiveLocationId"),
		"items.materialTypeId":               tm("items.materialTypeId"),
	},
	Sorts: map[string]string{
		"title":                "title.keyword",
		"contributors":         "contributors.name.keyword",
		"items.status.name":    "items.status.name",
		"hrid":                 "hrid",
		"metadata.createdDate": "metadata.createdDate",
		"metadata.updatedDate": "metadata.updatedDate",
	},
	Facets: map[string]string{
		"source": "source.raw", "instanceTypeId": "instanceTypeId.raw", "statusId": "statusId.raw",
		"modeOfIssuanceId": "modeOfIssuanceId.raw", "languages": "languages.raw", "staffSuppress": "staffSuppress",
		"discoverySuppress": "discoverySuppress", "tenantId": "tenantId.raw", "shared": "shared",
		"items.status.name": "items.status.name.raw", "items.effectiveLocationId": "items.effectiveLocationId.raw",
		"items.materialTypeId": "items.materialTypeId.raw", "holdings.permanentLocationId": "holdings.permanentLocationId.raw",
	},
	Basic: []string{"id", "tenantId", "shared", "hrid", "title", "contributors", "publication", "identifiers",
		"dates", "staffSuppress", "discoverySuppress", "isBoundWith"},
}

// headingFields are the authority heading kinds our documents carry, each
// with its see-from (sft) and see-also-from (saft) fields.
var headingFields = []struct{ field, headingType string }{
	{"personalName", "Personal Name"},
	{"corporateName", "Corporate Name"},
	{"meetingName", "Conference Name"},
	{"uniformTitle", "Uniform Title"},
	{"topicalTerm", "Topical"},
	{"geographicName", "Geographic Name"},
	{"genreTerm", "Genre"},
}

func sftName(f string) string  { return "sft" + strings.ToUpper(f[:1]) + f[1:] }
func saftName(f string) string { return "saft" + strings.ToUpper(f[:1]) + f[1:] }

// Authorities: mod-search indexes one document per heading (the authorized
// one and every see-from / see-also-from reference); keyword searches all
// heading fields.
var Authorities = func() *Resource {
	r := &Resource{
		Name: "authority",
		Fields: map[string]*Field{
			"id":           tm("id"),
			"naturalId":    tm("naturalId"),
			"headingType":  tm("headingType"),
			"authRefType":  tm("authRefType"),
			"sourceFileId": tm("sourceFileId"),
			"source":       tm("source"),
			"tenantId":     tm("tenantId"),
			"shared":       tm("shared"),
			"lccn":         tm("lccn"),
			"headingRef":   ft("headingRef"),
		},
		Sorts:  map[string]string{"headingRef": "headingRef.keyword", "headingType": "headingType", "authRefType": "authRefType"},
		Facets: map[string]string{"sourceFileId": "sourceFileId.raw", "headingType": "headingType.raw", "authRefType": "authRefType.raw", "source": "source.raw", "tenantId": "tenantId.raw", "shared": "shared"},
		Basic:  []string{"id", "tenantId", "shared", "headingType", "authRefType", "headingRef", "sourceFileId", "naturalId"},
	}
	var all []string
	for _, h := range headingFields {
		for _, f := range []string{h.field, sftName(h.field), saftName(h.field)} {
			r.Fields[f] = ft(f)
			all = append(all, f)
		}
	}
	r.Fields["keyword"] = ft(all...)
	return r
}()

// ResourceFor maps the {recordType} of the facet path to a resource.
func ResourceFor(recordType string) (*Resource, bool) {
	switch recordType {
	case "instances":
		return Instances, true
	case "authorities":
		return Authorities, true
	}
	return nil, false
}

// analysis: the "folio_text" analyser tokenises like mod-search's standard-
// based multilang analysers (lower-cased, accents folded); the keyword
// normaliser makes "==" exact matches, wildcards and sorting case- and
// accent-insensitive, as mod-search's keyword_lowercase normaliser.
var analysis = map[string]any{
	"analyzer": map[string]any{
		"folio_text": map[string]any{"type": "custom", "tokenizer": "standard", "filter": []string{"lowercase", "asciifolding"}},
	},
	"normalizer": map[string]any{
		"folio_keyword": map[string]any{"type": "custom", "filter": []string{"lowercase", "asciifolding"}},
	},
}

func textField() map[string]any {
	return map[string]any{"type": "text", "analyzer": "folio_text",
		"fields": map[string]any{"keyword": map[string]any{"type": "keyword", "normalizer": "folio_keyword", "ignore_above": 512}}}
}

// keywordField: matched case-insensitively; the "raw" sub-field keeps the
// value as stored for facets, which show values as the records have them.
func keywordField() map[string]any {
	return map[string]any{"type": "keyword", "normalizer": "folio_keyword",
		"fields": map[string]any{"raw": map[string]any{"type": "keyword", "ignore_above": 256}}}
}

// properties builds the nested "properties" tree for the dotted paths.
func properties(r *Resource, special map[string]map[string]any) map[string]any {
	root := map[string]any{}
	put := func(path string, def map[string]any) {
		parts := strings.Split(path, ".")
		m := root
		for _, p := range parts[:len(parts)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{"properties": map[string]any{}}
				m[p] = sub
			}
			m = sub["properties"].(map[string]any)
		}
		m[parts[len(parts)-1]] = def
	}
	for _, f := range r.Fields {
		for _, p := range f.Paths {
			if def, ok := special[p]; ok {
				put(p, def)
			} else if f.Kind == FullText {
				put(p, textField())
			} else {
				put(p, keywordField())
			}
		}
	}
	return root
}

// IndexBody is the PUT /<index> body: settings and mappings. dynamic=false
// keeps every field in _source (expandAll returns it) but indexes only the
// mapped ones, so indexing costs what searching needs.
func IndexBody(r *Resource, shards, replicas int, refresh string) []byte {
	special := map[string]map[string]any{
		"staffSuppress":        {"type": "boolean"},
		"discoverySuppress":    {"type": "boolean"},
		"shared":               {"type": "boolean"},
		"metadata.createdDate": {"type": "date"},
		"metadata.updatedDate": {"type": "date"},
		"id":                   {"type": "keyword"},
	}
	settings := map[string]any{"number_of_shards": shards, "number_of_replicas": replicas,
		"max_result_window": 10100, "analysis": analysis}
	if refresh != "" {
		settings["refresh_interval"] = refresh
	}
	b, _ := json.Marshal(map[string]any{
		"settings": map[string]any{"index": settings},
		"mappings": map[string]any{"dynamic": false, "properties": properties(r, special)},
	})
	return b
}
