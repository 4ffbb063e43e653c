package search

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// MaxLimit, MaxOffset: mod-search's limit-param.yaml and offset-param.yaml.
const (
	DefaultLimit = 100
	MaxLimit     = 500
	MaxOffset    = 9999
)

// searchRequest is the _search body: a struct, so encoding/json writes it
// without sorting map keys.
type searchRequest struct {
	Query          map[string]any `json:"query"`
	From           int            `json:"from"`
	Size           int            `json:"size"`
	TrackTotalHits bool           `json:"track_total_hits"`
	Source         []string       `json:"_source,omitempty"`
	Sort           []any          `json:"sort,omitempty"`
}

// Search runs a translated query on the tenant's index of r and returns
// mod-search's result body: {"totalRecords": n, "<key>": [...]}. The sources
// are copied through as OpenSearch returns them, never decoded or re-encoded
// (appendHits). Without expandAll OpenSearch filters each _source and writes
// it anew, compact; with it, the stored documents come back verbatim.
func Search(ctx context.Context, c *Client, r *Resource, tenant string, q *Translated, limit, offset int, expandAll bool) ([]byte, error) {
	req := searchRequest{Query: q.Query, From: offset, Size: limit, TrackTotalHits: true, Sort: q.Sort}
	if !expandAll {
		req.Source = r.Basic
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	// filter_path: OpenSearch sends only what the answer needs.
	b, err := c.Do(ctx, http.MethodPost, "/"+IndexName(r.Name, tenant)+"/_search?filter_path=hits.total.value,hits.hits._source", body, "")
	key := r.Name + "s"
	if r == Authorities {
		key = "authorities"
	}
	if IsNotFound(err) {
		// A tenant whose index was never built has nothing to find.
		return []byte(`{"totalRecords":0,"` + key + `":[]}`), nil
	}
	if err != nil {
		return nil, err
	}
	return appendHits(make([]byte, 0, len(b)), b, key)
}

// Facet is one requested facet: its name (as asked, e.g. item.status.name)
// and bucket count.
type Facet struct {
	Name, Field string
	Size        int
}

// DefaultFacetSize: the buckets a facet returns when no size is given.
const DefaultFacetSize = 10

// ParseFacets reads facet=name[:size] parameters, repeated or comma-separated.
func ParseFacets(r *Resource, params []string) ([]Facet, error) {
	var out []Facet
	for _, p := range params {
		for _, f := range strings.Split(p, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			name, size := f, DefaultFacetSize
			if i := strings.LastIndexByte(f, ':'); i >= 0 {
				n, err := strconv.Atoi(f[i+1:])
				if err != nil || n < 0 || n > 1000 {
					return nil, unsupported("Invalid facet size", "facet", f)
				}
				name, size = f[:i], n
			}
			field, ok := r.Facets[fieldName(name)]
			if !ok {
				return nil, unsupported("Invalid facet value", "facet", name)
			}
			out = append(out, Facet{Name: name, Field: field, Size: size})
		}
	}
	if len(out) == 0 {
		return nil, unsupported("At least one facet must be given", "facet", "")
	}
	return out, nil
}

// Facets answers GET /search/{recordType}/facets: terms aggregations on the
// facets' keyword fields over the query's hits, as facetResult.yaml.
func Facets(ctx context.Context, c *Client, r *Resource, tenant string, q *Translated, facets []Facet) ([]byte, error) {
	aggs := map[string]any{}
	for _, f := range facets {
		aggs[f.Name] = map[string]any{"terms": map[string]any{"field": f.Field, "size": max(f.Size, 1)}}
	}
	req := map[string]any{"query": q.Query, "size": 0, "track_total_hits": true, "aggs": aggs}
	body, _ := json.Marshal(req)
	b, err := c.Do(ctx, http.MethodPost, "/"+IndexName(r.Name, tenant)+"/_search?filter_path=hits.total.value,aggregations.*.buckets", body, "")
	type value struct {
		ID           string `json:"id"`
		TotalRecords int    `json:"totalRecords"`
	}
	type facet struct {
		Values       []value `json:"values"`
		TotalRecords int     `json:"totalRecords"`
	}
	out := struct {
		Facets       map[string]facet `json:"facets"`
		TotalRecords int              `json:"totalRecords"`
	}{Facets: map[string]facet{}}
	if IsNotFound(err) {
		for _, f := range facets {
			out.Facets[f.Name] = facet{Values: []value{}}
		}
		return json.Marshal(out)
	}
	if err != nil {
		return nil, err
	}
	var res struct {
		Hits struct {
			Total struct {
				Value int `json:"value"`
			} `json:"total"`
		} `json:"hits"`
		Aggregations map[string]struct {
			Buckets []struct {
				Key         any    `json:"key"`
				KeyAsString string `json:"key_as_string"`
				DocCount    int    `json:"doc_count"`
			} `json:"buckets"`
		} `json:"aggregations"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, err
	}
	out.TotalRecords = res.Hits.Total.Value
	for _, f := range facets {
		fv := facet{Values: []value{}}
		for _, bk := range res.Aggregations[f.Name].Buckets {
			id := bk.KeyAsString
			if id == "" {
				id = strings.Trim(string(mustJSON(bk.Key)), `"`)
			}
			fv.Values = append(fv.Values, value{ID: id, TotalRecords: bk.DocCount})
		}
		if f.Size == 0 {
			fv.Values = []value{}
		}
		fv.TotalRecords = len(fv.Values)
		out.Facets[f.Name] = fv
	}
	return json.Marshal(out)
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
