package modules

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// okapiClient makes module-to-module calls through the gateway with the
// caller's tenant, token and request id, as FOLIO modules do. One transport
// per process with many idle keep-alive connections: under load mod-circulation
// makes ~10 calls per check-out and a fresh TCP handshake per call would
// dominate its CPU.
type okapiClient struct {
	base string // Config.OkapiURL, used when the request carries no X-Okapi-Url
	hc   *http.Client
}

func newOkapiClient(base string) *okapiClient {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        512,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &okapiClient{base: strings.TrimRight(base, "/"), hc: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
}

// caller is what a module passes on from the request it is serving.
type caller struct {
	okapiURL, tenant, token, userID, requestID string
}

func callerOf(r *http.Request, fallback string) caller {
	u := r.Header.Get("X-Okapi-Url")
	if u == "" {
		u = fallback
	}
	tok := r.Header.Get("X-Okapi-Token")
	if tok == "" {
		if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
			tok = strings.TrimPrefix(a, "Bearer ")
		}
	}
	return caller{okapiURL: strings.TrimRight(u, "/"), tenant: r.Header.Get("X-Okapi-Tenant"), token: tok,
		userID: r.Header.Get("X-Okapi-User-Id"), requestID: r.Header.Get("X-Okapi-Request-Id")}
}

// upstreamError is a non-2xx answer of another module.
type upstreamError struct {
	method, path string
	status       int
	body         string
}

func (e *upstreamError) Error() string {
	return fmt.Sprintf("%s %s returned %d: %s", e.method, e.path, e.status, strings.TrimSpace(e.body))
}

// do sends one request; out (if not nil) receives the decoded 2xx body and
// any other status is an *upstreamError.
func (o *okapiClient) do(ctx context.Context, c caller, method, path string, body, out any) error {
	status, b, err := o.send(ctx, c, method, path, body)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return &upstreamError{method: method, path: path, status: status, body: string(b)}
	}
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: bad JSON: %v", method, path, err)
		}
	}
	return nil
}

// raw is a GET that returns any status with its body, for pass-through.
func (o *okapiClient) raw(ctx context.Context, c caller, path string) (int, []byte, error) {
	return o.send(ctx, c, http.MethodGet, path, nil)
}

// storagePage is a business module's collection GET backed by a storage
// collection: the caller's query and paging go through unchanged, and a
// non-200 answer (bad CQL, bad paging) is the client's answer as is, since the
// storage module's error is the business module's too. ok is false when an
// answer has already been written to w.
func (o *okapiClient) storagePage(w http.ResponseWriter, r *http.Request, c caller, storagePath, key string) (records []obj, total int, ok bool) {
	if r.URL.RawQuery != "" {
		storagePath += "?" + r.URL.RawQuery
	}
	status, body, err := o.raw(r.Context(), c, storagePath)
	if err != nil {
		writeFailure(w, err)
		return nil, 0, false
	}
	if status != http.StatusOK {
		writeRaw(w, status, body)
		return nil, 0, false
	}
	// A 200 that is not a page is the storage module's fault, not an empty
	// result: RMB always sends the collection and totalRecords.
	var page map[string]json.RawMessage
	err = json.Unmarshal(body, &page)
	if err == nil {
		err = json.Unmarshal(page[key], &records)
	}
	if err == nil {
		err = json.Unmarshal(page["totalRecords"], &total)
	}
	if err != nil {
		writeFailure(w, serverError(storagePath+" returned invalid JSON"))
		return nil, 0, false
	}
	if records == nil {
		records = []obj{}
	}
	return records, total, true
}

// storageRecord is a GET of one storage record; the storage module's error
// (400 bad UUID, 404) is the client's answer as is. ok as for storagePage.
func (o *okapiClient) storageRecord(w http.ResponseWriter, r *http.Request, c caller, path string) (rec obj, ok bool) {
	if err := o.get(r.Context(), c, path, &rec); err != nil {
		if ue, isUpstream := err.(*upstreamError); isUpstream {
			writeText(w, ue.status, ue.body)
		} else {
			writeFailure(w, err)
		}
		return nil, false
	}
	return rec, true
}

// writeRaw passes a storage module's answer through unchanged.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	if contentType(body) == "application/json" {
		storage.WriteJSON(w, status, body)
		return
	}
	writeText(w, status, string(body))
}

func contentType(body []byte) string {
	if len(body) > 0 && (body[0] == '{' || body[0] == '[') {
		return "application/json"
	}
	return "text/plain"
}

func (o *okapiClient) send(ctx context.Context, c caller, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	base := c.okapiURL
	if base == "" {
		base = o.base
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-Okapi-Tenant", c.tenant)
	if c.token != "" {
		req.Header.Set("X-Okapi-Token", c.token)
	}
	if c.requestID != "" {
		req.Header.Set("X-Okapi-Request-Id", c.requestID)
	}
	if c.userID != "" {
		// Okapi derives it from the token again; passing it on keeps the
		// staff member in storage metadata when a test calls a module directly.
		req.Header.Set("X-Okapi-User-Id", c.userID)
	}
	req.Header.Set("Accept", "application/json, text/plain")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := o.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, b, nil
}

func (o *okapiClient) get(ctx context.Context, c caller, path string, out any) error {
	return o.do(ctx, c, http.MethodGet, path, nil, out)
}

// query builds "<path>?query=<cql>&limit=<n>".
func query(path, cql string, limit int) string {
	return fmt.Sprintf("%s?query=%s&limit=%d", path, url.QueryEscape(cql), limit)
}

// cqlString quotes a value for CQL ("..." with \ and " escaped, and the
// masking characters * ? ^ escaped so a barcode is matched literally).
//
// A value with a NUL byte (a barcode sent as \u0000) can equal no record:
// PostgreSQL text cannot hold one, and storage refuses such a query with 400.
// It becomes `"" not cql.allRecords=1`, so `barcode==<it>` reads "barcode is
// empty and not true", which matches nothing, also when and-ed with more
// clauses (booleans are left-associative): the module answers its own "not
// found", as for any unknown barcode, instead of turning storage's 400 into a
// 500. Callers put it in a clause alone or joined with and, never after an or.
func cqlString(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return `"" not cql.allRecords=1`
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\', '*', '?', '^':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
