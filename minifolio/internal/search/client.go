// Package search is minifolio's mod-search core: an OpenSearch HTTP client,
// index settings and mappings shaped like mod-search's, the documents built
// from inventory-storage rows, the CQL → OpenSearch query translation with
// mod-search's semantics, and the reindex jobs of both generations.
package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Client talks to one OpenSearch node over its REST API.
type Client struct {
	base string
	hc   *http.Client
}

// UnavailableError is OpenSearch not answering (refused, timed out): the
// module answers 500 at once instead of waiting for a client timeout.
type UnavailableError struct{ Err error }

func (e *UnavailableError) Error() string { return "OpenSearch is unavailable: " + e.Err.Error() }
func (e *UnavailableError) Unwrap() error { return e.Err }

// StatusError is a non-2xx answer of OpenSearch.
type StatusError struct {
	Status int
	Body   string
}

func (e *StatusError) Error() string {
	b := e.Body
	if len(b) > 300 {
		b = b[:300] + "…"
	}
	return fmt.Sprintf("OpenSearch answered %d: %s", e.Status, b)
}

// NewClient: timeout bounds every request (a reindex's bulk requests too), so
// a hung node fails a search within it rather than holding the caller.
// Connections are kept alive and reused. Compression is off: Go's transport
// asks for gzip by default and OpenSearch grants it, so every answer was
// compressed by OpenSearch and inflated here, CPU on both sides of a
// loopback connection for nothing.
func NewClient(baseURL string, timeout time.Duration) *Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 2 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 128,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), hc: &http.Client{Transport: tr, Timeout: timeout}}
}

// URL is the node's base URL.
func (c *Client) URL() string { return c.base }

// Do sends one request with a JSON (or NDJSON) body and returns the 2xx body;
// any other status is a *StatusError, a transport failure an *UnavailableError.
func (c *Client) Do(ctx context.Context, method, path string, body []byte, contentType string) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		if contentType == "" {
			contentType = "application/json"
		}
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &UnavailableError{Err: err}
	}
	defer resp.Body.Close()
	b, err := readBody(resp)
	if err != nil {
		return nil, &UnavailableError{Err: err}
	}
	if resp.StatusCode/100 != 2 {
		return b, &StatusError{Status: resp.StatusCode, Body: string(b)}
	}
	return b, nil
}

// readBody reads an answer in one allocation when its length is known
// (io.ReadAll grows its buffer from 512 bytes, copying a search answer of
// tens of KB several times).
func readBody(resp *http.Response) ([]byte, error) {
	n := resp.ContentLength
	if resp.Request != nil && resp.Request.Method == http.MethodHead {
		return nil, nil // a HEAD answer's length is the GET's; it has no body
	}
	if n < 0 || n > 64<<20 {
		return io.ReadAll(resp.Body)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(resp.Body, b); err != nil {
		return nil, err
	}
	return b, nil
}

// JSON sends v marshalled and decodes the answer into out (if not nil).
func (c *Client) JSON(ctx context.Context, method, path string, v, out any) error {
	var body []byte
	if v != nil {
		var err error
		if body, err = json.Marshal(v); err != nil {
			return err
		}
	}
	b, err := c.Do(ctx, method, path, body, "")
	if err != nil {
		return err
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// IsNotFound: OpenSearch answered 404 (e.g. index_not_found_exception).
func IsNotFound(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status == http.StatusNotFound
}

// Exists tells whether an index exists.
func (c *Client) Exists(ctx context.Context, index string) (bool, error) {
	_, err := c.Do(ctx, http.MethodHead, "/"+index, nil, "")
	if IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// Delete removes an index; a missing index is not an error.
func (c *Client) Delete(ctx context.Context, index string) error {
	_, err := c.Do(ctx, http.MethodDelete, "/"+index, nil, "")
	if IsNotFound(err) {
		return nil
	}
	return err
}

// Create makes an index with the given settings and mappings body; an index
// created meanwhile by another caller is accepted. It returns once the index
// is in the cluster state, without waiting for its shard to start
// (wait_for_active_shards=0): the first _bulk waits for the shard instead,
// while the reindex reads its first page from PostgreSQL.
func (c *Client) Create(ctx context.Context, index string, body []byte) error {
	_, err := c.Do(ctx, http.MethodPut, "/"+index+"?wait_for_active_shards=0", body, "")
	var se *StatusError
	if errors.As(err, &se) && strings.Contains(se.Body, "resource_already_exists_exception") {
		return nil
	}
	return err
}

// SetRefreshInterval changes index.refresh_interval ("-1" stops refreshes).
func (c *Client) SetRefreshInterval(ctx context.Context, index, interval string) error {
	return c.JSON(ctx, http.MethodPut, "/"+index+"/_settings",
		map[string]any{"index": map[string]any{"refresh_interval": interval}}, nil)
}

// Refresh makes every indexed document searchable now.
func (c *Client) Refresh(ctx context.Context, index string) error {
	_, err := c.Do(ctx, http.MethodPost, "/"+index+"/_refresh", nil, "")
	return err
}

// Bulk sends one NDJSON _bulk body and fails on any item error (with the first
// item's reason), so a reindex never reports documents it did not index.
func (c *Client) Bulk(ctx context.Context, body []byte, refresh bool) error {
	path := "/_bulk"
	if refresh {
		path += "?refresh=wait_for"
	}
	b, err := c.Do(ctx, http.MethodPost, path, body, "application/x-ndjson")
	if err != nil {
		return err
	}
	var r struct {
		Errors bool `json:"errors"`
		Items  []map[string]struct {
			Status int             `json:"status"`
			Error  json.RawMessage `json:"error"`
		} `json:"items"`
	}
	if !bytes.Contains(b[:min(len(b), 64)], []byte(`"errors":true`)) {
		return nil // the common case: skip decoding thousands of item results
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("bulk: bad answer: %v", err)
	}
	for _, it := range r.Items {
		for _, res := range it {
			if res.Status/100 != 2 {
				return fmt.Errorf("bulk: an item failed with %d: %s", res.Status, res.Error)
			}
		}
	}
	return nil
}

// Count is the number of documents of an index (0 for a missing index).
func (c *Client) Count(ctx context.Context, index string) (int, error) {
	var r struct {
		Count int `json:"count"`
	}
	err := c.JSON(ctx, http.MethodGet, "/"+index+"/_count", nil, &r)
	if IsNotFound(err) {
		return 0, nil
	}
	return r.Count, err
}
