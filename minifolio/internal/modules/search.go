package modules

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/search"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5/pgxpool"
)

// defaultSearchTimeout bounds one search or facet request to OpenSearch: a
// node that hangs gives a 500 within it, never a request held until the client
// gives up.
const defaultSearchTimeout = 20 * time.Second

// modSearch serves mod-search's API on a real OpenSearch node: searches and
// facets (CQL translated by package search), both reindex generations, and
// the inventory events that keep documents fresh.
type modSearch struct {
	os      *search.Client
	ix      *search.Indexer
	jobs    *search.Jobs
	timeout time.Duration
	// v4: mod-search 4.0 and later (Ramsons on): the legacy reindex no longer
	// takes "instance" and the full reindex answers 200 with an empty body.
	v4 bool
}

func newModSearch(base context.Context, osURL string, pool *pgxpool.Pool, timeout time.Duration) *modSearch {
	if timeout <= 0 {
		timeout = defaultSearchTimeout
	}
	c := search.NewClient(osURL, 5*time.Minute)
	ix := &search.Indexer{OS: c, DB: pool, Page: 1000, Workers: 2}
	return &modSearch{os: c, ix: ix, jobs: search.NewJobs(base, ix), timeout: timeout}
}

func (s *modSearch) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /search/instances", func(w http.ResponseWriter, r *http.Request) { s.search(w, r, search.Instances) })
	mux.HandleFunc("GET /search/authorities", func(w http.ResponseWriter, r *http.Request) { s.search(w, r, search.Authorities) })
	mux.HandleFunc("GET /search/{recordType}/facets", s.facets)
	mux.HandleFunc("POST /search/index/inventory/reindex", s.legacyReindex)
	mux.HandleFunc("GET /instance-storage/reindex/{id}", s.legacyStatus)
	mux.HandleFunc("POST /search/index/instance-records/reindex/full", s.fullReindex)
	mux.HandleFunc("GET /search/index/instance-records/reindex/status", s.fullStatus)
	mux.HandleFunc("POST /search/index/records", s.records)
}

// searchError is mod-search's errorResponse.yaml body.
func searchError(w http.ResponseWriter, status int, msg, typ, code, key, value string) {
	params := []Param{}
	if key != "" {
		params = append(params, Param{Key: key, Value: value})
	}
	writeJSON(w, status, map[string]any{
		"errors":        []map[string]any{{"message": msg, "type": typ, "code": code, "parameters": params}},
		"total_records": 1,
	})
}

// writeSearchFailure answers an error: a refused query 400, OpenSearch down
// or failing 500 with mod-search's elasticsearch_error code.
func writeSearchFailure(w http.ResponseWriter, r *http.Request, err error, timeout time.Duration) {
	var qe *search.QueryError
	var se *search.StatusError
	switch {
	case errors.As(err, &qe):
		searchError(w, http.StatusBadRequest, qe.Msg, qe.Type, qe.Code, qe.Key, qe.Value)
	case errors.As(err, &se) && se.Status == http.StatusBadRequest:
		// OpenSearch refused the query (e.g. "abc" for a boolean field).
		searchError(w, http.StatusBadRequest, "Failed to execute the search query: "+se.Error(), "SearchOperationException", "elasticsearch_error", "", "")
	default:
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("OpenSearch did not answer within %s", timeout)
		}
		slog.Error("search failed", "path", r.URL.Path, "err", err)
		searchError(w, http.StatusInternalServerError, err.Error(), "SearchOperationException", "elasticsearch_error", "", "")
	}
}

// intParam reads a bounded integer query parameter; bad values get the
// ConstraintViolationException body mod-search's validation gives.
func intParam(w http.ResponseWriter, params url.Values, name string, def, maxV int) (int, bool) {
	s := params.Get(name)
	if s == "" {
		return def, true
	}
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		searchError(w, http.StatusBadRequest, fmt.Sprintf("Failed to convert value of type 'java.lang.String' to required type 'java.lang.Integer'; For input string: \"%s\"", s),
			"MethodArgumentTypeMismatchException", "validation_error", name, s)
	case n < 0:
		searchError(w, http.StatusBadRequest, "must be greater than or equal to 0", "ConstraintViolationException", "validation_error", name, s)
	case n > maxV:
		searchError(w, http.StatusBadRequest, fmt.Sprintf("must be less than or equal to %d", maxV), "ConstraintViolationException", "validation_error", name, s)
	default:
		return n, true
	}
	return 0, false
}

func (s *modSearch) query(w http.ResponseWriter, r *http.Request, params url.Values, res *search.Resource) (*search.Translated, bool) {
	q := params.Get("query")
	if strings.TrimSpace(q) == "" {
		searchError(w, http.StatusBadRequest, "Required request parameter 'query' for method parameter type String is not present",
			"MissingServletRequestParameterException", "validation_error", "query", "")
		return nil, false
	}
	t, err := search.Translate(res, q)
	if err != nil {
		writeSearchFailure(w, r, err, s.timeout)
		return nil, false
	}
	return t, true
}

func (s *modSearch) search(w http.ResponseWriter, r *http.Request, res *search.Resource) {
	params := r.URL.Query() // parsed once: each Query() call parses the string anew
	limit, ok := intParam(w, params, "limit", search.DefaultLimit, search.MaxLimit)
	if !ok {
		return
	}
	offset, ok := intParam(w, params, "offset", 0, search.MaxOffset)
	if !ok {
		return
	}
	expand := false
	if v := params.Get("expandAll"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			searchError(w, http.StatusBadRequest, "Failed to convert value of type 'java.lang.String' to required type 'java.lang.Boolean'",
				"MethodArgumentTypeMismatchException", "validation_error", "expandAll", v)
			return
		}
		expand = b
	}
	t, ok := s.query(w, r, params, res)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.timeout)
	defer cancel()
	body, err := search.Search(ctx, s.os, res, r.Header.Get("X-Okapi-Tenant"), t, limit, offset, expand)
	if err != nil {
		writeSearchFailure(w, r, err, s.timeout)
		return
	}
	if expand || bytes.Contains(body, []byte(`\u`)) {
		// Stored documents keep PostgreSQL's jsonb spacing, and Go-encoded
		// text may hold \u003c-style escapes: both need Jackson's layout.
		writeRaw(w, http.StatusOK, body)
		return
	}
	// Without expandAll OpenSearch wrote every _source anew, compact and
	// unescaped as Jackson would: the layout pass would copy it unchanged
	// (TestSearchAnswerIsCompact).
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

func (s *modSearch) facets(w http.ResponseWriter, r *http.Request) {
	rt := r.PathValue("recordType")
	res, ok := search.ResourceFor(rt)
	if !ok {
		searchError(w, http.StatusBadRequest, "Failed to convert value of type 'java.lang.String' to required type 'RecordType'; unsupported record type: "+rt,
			"MethodArgumentTypeMismatchException", "validation_error", "recordType", rt)
		return
	}
	params := r.URL.Query()
	t, ok := s.query(w, r, params, res)
	if !ok {
		return
	}
	fs, err := search.ParseFacets(res, params["facet"])
	if err != nil {
		writeSearchFailure(w, r, err, s.timeout)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.timeout)
	defer cancel()
	body, err := search.Facets(ctx, s.os, res, r.Header.Get("X-Okapi-Tenant"), t, fs)
	if err != nil {
		writeSearchFailure(w, r, err, s.timeout)
		return
	}
	writeRaw(w, http.StatusOK, body)
}

// passthrough is the floor of a search for make bench-search (only it turns
// this on: MINIFOLIO_SEARCH_PASSTHROUGH=1): OpenSearch requests registered
// beforehand, then each sent by a bare GET through the module's own client and
// answered as OpenSearch answered. Through the gateway that is a search's hop
// and proxy without mod-search's logic (parameter checks, CQL translation,
// answer building); the query body is registered first so that the timed
// request carries no more bytes than a search's URL does.
type passthrough struct {
	os      *search.Client
	timeout time.Duration
	mu      sync.Mutex
	reqs    []passthroughRequest
}

type passthroughRequest struct {
	Path string `json:"path"` // e.g. /folio_instance_t/_search?filter_path=...
	Body string `json:"body"` // sent as a POST body
}

// maxPassthrough bounds what a caller can make the module hold.
const maxPassthrough = 100_000

func (p *passthrough) routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /search/passthrough", p.register)
	mux.HandleFunc("GET /search/passthrough", p.send) // ?id=<registered id>
}

func (p *passthrough) register(w http.ResponseWriter, r *http.Request) {
	var req passthroughRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil || !strings.HasPrefix(req.Path, "/") {
		writeText(w, http.StatusBadRequest, `Expected {"path": "/<index>/_search?...", "body": "<JSON>"}`)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.reqs) >= maxPassthrough {
		writeText(w, http.StatusBadRequest, "Too many registered requests")
		return
	}
	p.reqs = append(p.reqs, req)
	writeJSON(w, http.StatusCreated, map[string]any{"id": strconv.Itoa(len(p.reqs) - 1)})
}

func (p *passthrough) send(w http.ResponseWriter, r *http.Request) {
	i, err := strconv.Atoi(r.URL.Query().Get("id"))
	p.mu.Lock()
	ok := err == nil && i >= 0 && i < len(p.reqs)
	var req passthroughRequest
	if ok {
		req = p.reqs[i]
	}
	p.mu.Unlock()
	if !ok {
		writeText(w, http.StatusNotFound, "Not found")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), p.timeout)
	defer cancel()
	b, err := p.os.Do(ctx, http.MethodPost, req.Path, []byte(req.Body), "")
	var se *search.StatusError
	if errors.As(err, &se) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(se.Status)
		_, _ = io.WriteString(w, se.Body)
		return
	}
	if err != nil {
		writeSearchFailure(w, r, err, p.timeout)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// registered refuses a reindex of a tenant the platform does not know.
func (s *modSearch) registered(w http.ResponseWriter, r *http.Request) (string, bool) {
	tenant := r.Header.Get("X-Okapi-Tenant")
	ok, err := s.ix.TenantRegistered(r.Context(), tenant)
	if err != nil {
		writeSearchFailure(w, r, err, s.timeout)
		return "", false
	}
	if !ok {
		searchError(w, http.StatusBadRequest, "Tenant not found: "+tenant, "RequestValidationException", "validation_error", "tenantId", tenant)
		return "", false
	}
	return tenant, true
}

func (s *modSearch) legacyReindex(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RecreateIndex bool   `json:"recreateIndex"`
		ResourceName  string `json:"resourceName"`
	}
	if r.ContentLength != 0 {
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			searchError(w, http.StatusBadRequest, "Failed to read the request body: "+err.Error(), "HttpMessageNotReadableException", "validation_error", "", "")
			return
		}
	}
	var res *search.Resource
	if s.v4 && req.ResourceName == "" {
		searchError(w, http.StatusBadRequest, "must not be null", "MethodArgumentNotValidException", "validation_error",
			"resourceName", "null")
		return
	}
	if s.v4 && req.ResourceName == "instance" {
		// reindexRequest.yaml's resourceName enum lost "instance" in 4.0: the
		// generated enum's fromValue throws, and ApiExceptionHandler answers the
		// IllegalArgumentException under the HttpMessageNotReadableException.
		searchError(w, http.StatusBadRequest, fmt.Sprintf("Unexpected value '%s'", req.ResourceName),
			"IllegalArgumentException", "validation_error", "", "")
		return
	}
	switch req.ResourceName {
	case "", "instance":
		res = search.Instances
	case "authority":
		res = search.Authorities
	default:
		searchError(w, http.StatusBadRequest, "Reindex not supported for resource: "+req.ResourceName, "RequestValidationException", "validation_error", "resourceName", req.ResourceName)
		return
	}
	tenant, ok := s.registered(w, r)
	if !ok {
		return
	}
	j := s.jobs.StartLegacy(tenant, res, req.RecreateIndex)
	v := j.View()
	writeJSON(w, http.StatusOK, map[string]any{"id": v["id"], "jobStatus": v["jobStatus"], "submittedDate": v["submittedDate"]})
}

func (s *modSearch) legacyStatus(w http.ResponseWriter, r *http.Request) {
	j, ok := s.jobs.Legacy(r.PathValue("id"))
	if !ok || j.Tenant != r.Header.Get("X-Okapi-Tenant") {
		writeText(w, http.StatusNotFound, "Not found")
		return
	}
	writeJSON(w, http.StatusOK, j.View())
}

func (s *modSearch) fullReindex(w http.ResponseWriter, r *http.Request) {
	tenant, ok := s.registered(w, r)
	if !ok {
		return
	}
	if !s.jobs.StartFull(tenant) {
		searchError(w, http.StatusBadRequest, "Reindex is already in progress for tenant "+tenant, "RequestValidationException", "validation_error", "tenantId", tenant)
		return
	}
	if s.v4 {
		// IndexManagementController.reindexInstanceRecords: ResponseEntity.ok().build().
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{})
}

func (s *modSearch) fullStatus(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.jobs.FullStatus(r.Header.Get("X-Okapi-Tenant")))
}

// records takes inventory events (mod-search's POST /search/index/records,
// fed by Kafka in FOLIO; here mod-inventory-storage posts item changes):
// the instances of the changed items are re-indexed at once.
func (s *modSearch) records(w http.ResponseWriter, r *http.Request) {
	var events []struct {
		ResourceName string          `json:"resourceName"`
		New          json.RawMessage `json:"new"`
	}
	if err := json.NewDecoder(r.Body).Decode(&events); err != nil {
		searchError(w, http.StatusBadRequest, "Failed to read the request body: "+err.Error(), "HttpMessageNotReadableException", "validation_error", "", "")
		return
	}
	tenant := r.Header.Get("X-Okapi-Tenant")
	var holdings, instances []string
	for _, e := range events {
		var rec struct {
			ID               string `json:"id"`
			HoldingsRecordID string `json:"holdingsRecordId"`
			InstanceID       string `json:"instanceId"`
		}
		_ = json.Unmarshal(e.New, &rec)
		switch e.ResourceName {
		case "item":
			if storage.ValidUUID(rec.HoldingsRecordID) {
				holdings = append(holdings, rec.HoldingsRecordID)
			}
		case "holdings":
			if storage.ValidUUID(rec.InstanceID) {
				instances = append(instances, rec.InstanceID)
			}
		case "instance":
			if storage.ValidUUID(rec.ID) {
				instances = append(instances, rec.ID)
			}
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.timeout)
	defer cancel()
	if len(holdings) > 0 {
		ids, err := s.ix.InstancesOfItems(ctx, tenant, holdings)
		if err != nil {
			writeSearchFailure(w, r, err, s.timeout)
			return
		}
		instances = append(instances, ids...)
	}
	if err := s.ix.IndexInstances(ctx, tenant, instances); err != nil {
		writeSearchFailure(w, r, err, s.timeout)
		return
	}
	w.WriteHeader(http.StatusOK)
}
