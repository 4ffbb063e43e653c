package storage

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/folio-perf/folio-perf/minifolio/internal/jsonlayout"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// MaxBody bounds request bodies: FOLIO records are a few KB; anything this
// large is a mistake or an attack, answered 413 before it is parsed.
const MaxBody = 4 << 20

// uuidRE is RMB's UUID pattern (versions 1-5, RFC 4122 variant).
var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-5][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$`)

// ValidUUID reports whether s matches RMB's UUID pattern.
func ValidUUID(s string) bool { return uuidRE.MatchString(s) }

// InvalidUUIDMessage is RMB's 400 text for a malformed id in a path.
const InvalidUUIDMessage = "Invalid UUID format of id, should be xxxxxxxx-xxxx-Mxxx-Nxxx-xxxxxxxxxxxx " +
	"where M is 1-5 and N is 8, 9, a, b, A or B and x is 0-9, a-f or A-F."

// NewUUID returns a random (version 4) UUID.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Collection serves one table's storage API the way RMB does:
//
//	GET    <path>?query=<CQL>&limit=10&offset=0 → 200 {"<key>": [...], "totalRecords": n}
//	POST   <path>                              → 201 record + Location
//	GET    <path>/<id>                         → 200 record | 404 Not found
//	PUT    <path>/<id>                         → 204
//	DELETE <path>/<id>                         → 204
//
// The tenant comes from X-Okapi-Tenant, the user for metadata from X-Okapi-User-Id.
type Collection struct {
	DB    DB
	Table *Table
	Log   *slog.Logger // nil: slog.Default()
}

// Mount registers c on mux for its path and its /<id> sub-paths.
func (c *Collection) Mount(mux *http.ServeMux) {
	mux.Handle(c.Table.Path, c)
	mux.Handle(c.Table.Path+"/", c)
}

func (c *Collection) log() *slog.Logger {
	if c.Log != nil {
		return c.Log
	}
	return slog.Default()
}

func (c *Collection) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tenant := r.Header.Get("X-Okapi-Tenant")
	if tenant == "" {
		TextError(w, http.StatusBadRequest, "Missing header: X-Okapi-Tenant")
		return
	}
	if !ValidTenant(tenant) {
		TextError(w, http.StatusBadRequest, "No such Tenant "+tenant)
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, c.Table.Path)
	switch {
	case rest == "" || rest == "/":
		switch r.Method {
		case http.MethodGet:
			c.list(w, r, tenant)
		case http.MethodPost:
			c.post(w, r, tenant)
		default:
			methodNotAllowed(w, "GET, POST")
		}
	case strings.Count(rest, "/") == 1:
		id := rest[1:]
		if !ValidUUID(id) {
			TextError(w, http.StatusBadRequest, InvalidUUIDMessage)
			return
		}
		switch r.Method {
		case http.MethodGet:
			c.get(w, r, tenant, id)
		case http.MethodPut:
			c.put(w, r, tenant, id)
		case http.MethodDelete:
			c.fail(w, r, Delete(r.Context(), c.DB, tenant, c.Table, id), http.StatusNoContent)
		default:
			methodNotAllowed(w, "GET, PUT, DELETE")
		}
	default:
		TextError(w, http.StatusNotFound, "Not found")
	}
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	TextError(w, http.StatusMethodNotAllowed, "Method not allowed")
}

// ParsePaging reads RMB's limit (default def) and offset, with RMB's 400
// texts (v33–v35). RestRouting.parseQueryParameter converts each with Java's
// Integer.valueOf, so a value that is not a number or lies outside Java's
// int (above 2147483647) fails with the NumberFormatException's message,
// `For input string: "<value>"`, and a parameter given empty with
// "<name> does not have a default value in the RAML and has been passed
// empty" (its wording, though the pageable trait has defaults). The range
// check (the trait's minimum 0) comes after every parameter converted, from
// RestValidator, whose message starts with a newline and a space.
func ParsePaging(r *http.Request, def int) (limit, offset int, err error) {
	limit, offset = def, 0
	q := r.URL.Query()
	params := []struct {
		name string
		dst  *int
	}{{"limit", &limit}, {"offset", &offset}}
	for _, p := range params {
		if !q.Has(p.name) {
			continue
		}
		v := q.Get(p.name)
		if v == "" {
			return 0, 0, fmt.Errorf("%s does not have a default value in the RAML and has been passed empty", p.name)
		}
		n, e := strconv.ParseInt(v, 10, 32)
		if e != nil {
			//lint:ignore ST1005 the message FOLIO's modules answer (Java's NumberFormatException), byte for byte
			return 0, 0, fmt.Errorf("For input string: \"%s\"", v)
		}
		*p.dst = int(n)
	}
	for _, p := range params {
		if *p.dst < 0 {
			return 0, 0, fmt.Errorf("\n '%s' parameter is incorrect. parameter value {%d} is not valid: must be greater than or equal to 0", p.name, *p.dst)
		}
	}
	return limit, offset, nil
}

func (c *Collection) list(w http.ResponseWriter, r *http.Request, tenant string) {
	limit, offset, err := ParsePaging(r, 10)
	if err != nil {
		TextError(w, http.StatusBadRequest, err.Error())
		return
	}
	page, err := Find(r.Context(), c.DB, tenant, c.Table, r.URL.Query().Get("query"), limit, offset)
	if err != nil {
		c.fail(w, r, err, 0)
		return
	}
	WriteJSON(w, http.StatusOK, Envelope(c.Table, page))
}

// Envelope renders FOLIO's collection body {"<key>": [...], "totalRecords": n}
// (plus resultInfo where the module's schema has it) without re-parsing records.
func Envelope(t *Table, p Page) []byte {
	var b bytes.Buffer
	b.Grow(64 + 512*len(p.Records))
	b.WriteString(`{"`)
	b.WriteString(t.Key)
	b.WriteString(`":[`)
	for i, rec := range p.Records {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(rec)
	}
	b.WriteString(`],"totalRecords":`)
	b.WriteString(strconv.Itoa(p.Total))
	if t.ResultInfo {
		fmt.Fprintf(&b, `,"resultInfo":{"totalRecords":%d,"facets":[],"diagnostics":[]}`, p.Total)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func (c *Collection) get(w http.ResponseWriter, r *http.Request, tenant, id string) {
	doc, err := Get(r.Context(), c.DB, tenant, c.Table, id)
	if err != nil {
		c.fail(w, r, err, 0)
		return
	}
	WriteJSON(w, http.StatusOK, doc)
}

func (c *Collection) post(w http.ResponseWriter, r *http.Request, tenant string) {
	rec, ok := c.readRecord(w, r)
	if !ok {
		return
	}
	id, _ := rec["id"].(string)
	if id == "" {
		id = NewUUID()
		rec["id"] = id
	}
	c.stamp(rec, r, true)
	doc, _ := json.Marshal(rec)
	if err := Insert(r.Context(), c.DB, tenant, c.Table, id, doc); err != nil {
		c.fail(w, r, err, 0)
		return
	}
	w.Header().Set("Location", c.Table.Path+"/"+id)
	WriteJSON(w, http.StatusCreated, doc)
}

func (c *Collection) put(w http.ResponseWriter, r *http.Request, tenant, id string) {
	rec, ok := c.readRecord(w, r)
	if !ok {
		return
	}
	if bid, _ := rec["id"].(string); bid != "" && !strings.EqualFold(bid, id) {
		TextError(w, http.StatusBadRequest, "The id in the body ("+bid+") does not match the id in the path ("+id+")")
		return
	}
	rec["id"] = id
	c.stamp(rec, r, false)
	doc, _ := json.Marshal(rec)
	c.fail(w, r, Update(r.Context(), c.DB, tenant, c.Table, id, doc), http.StatusNoContent)
}

// CheckJSONContentType answers RMB's 400 when a body is declared as
// something other than JSON (an absent Content-Type is accepted: PTF's JMeter
// plans send none on some POSTs and FOLIO parses them anyway).
func CheckJSONContentType(w http.ResponseWriter, r *http.Request) bool {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || (mt != "application/json" && mt != "text/plain") {
			TextError(w, http.StatusBadRequest, `Content-type header must be ["application/json"] but it is "`+ct+`"`)
			return false
		}
	}
	return true
}

// readRecord parses and validates a POST/PUT body; on failure it has answered.
func (c *Collection) readRecord(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	if !CheckJSONContentType(w, r) {
		return nil, false
	}
	rec, err := DecodeObject(w, r)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			TextError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body larger than %d bytes", MaxBody))
		} else {
			TextError(w, http.StatusBadRequest, "Json content error: "+err.Error())
		}
		return nil, false
	}
	if v, present := rec["id"]; present {
		if s, ok := v.(string); !ok || !ValidUUID(s) {
			WriteErrors(w, http.StatusUnprocessableEntity, ValidationError{
				Message: `must match "` + uuidRE.String() + `"`, Type: "1", Code: "javax.validation.constraints.Pattern.message",
				Parameters: []Param{{Key: "id", Value: fmt.Sprint(v)}}})
			return nil, false
		}
	}
	var errs []ValidationError
	for _, f := range c.Table.Required {
		if v, ok := lookupPath(rec, f); !ok || v == nil {
			errs = append(errs, ValidationError{Message: "must not be null", Type: "1",
				Code: "javax.validation.constraints.NotNull.message", Parameters: []Param{{Key: f, Value: "null"}}})
		}
	}
	if len(errs) > 0 {
		WriteErrors(w, http.StatusUnprocessableEntity, errs...)
		return nil, false
	}
	return rec, true
}

// DecodeObject reads a JSON object body (at most MaxBody bytes), numbers kept
// exact. Trailing data after the object is an error, as in Jackson.
func DecodeObject(w http.ResponseWriter, r *http.Request) (map[string]any, error) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBody))
	dec.UseNumber()
	var rec map[string]any
	if err := dec.Decode(&rec); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("request body is empty; expected a JSON object")
		}
		return nil, err
	}
	if rec == nil {
		return nil, errors.New("expected a JSON object, got null")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON object")
	}
	return rec, nil
}

func lookupPath(rec map[string]any, path string) (any, bool) {
	var cur any = rec
	for _, p := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// MetadataTime is the date format of FOLIO's metadata block.
const MetadataTime = "2006-01-02T15:04:05.000+00:00"

// stamp fills RMB's metadata block (created* only on create or when absent).
func (c *Collection) stamp(rec map[string]any, r *http.Request, create bool) {
	if !c.Table.Metadata {
		return
	}
	now := time.Now().UTC().Format(MetadataTime)
	user := r.Header.Get("X-Okapi-User-Id")
	md, _ := rec["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
	}
	if _, ok := md["createdDate"]; create || !ok {
		md["createdDate"] = now
		if ValidUUID(user) {
			md["createdByUserId"] = user
		}
	}
	md["updatedDate"] = now
	if ValidUUID(user) {
		md["updatedByUserId"] = user
	}
	rec["metadata"] = md
}

// fail answers err with FOLIO's status, or okStatus (no body) when err is nil.
func (c *Collection) fail(w http.ResponseWriter, r *http.Request, err error, okStatus int) {
	if err == nil {
		w.WriteHeader(okStatus)
		return
	}
	WriteStorageError(w, r, c.log(), c.Table, err)
}

// WriteStorageError maps a storage error to RMB's response: bad CQL or a
// value PostgreSQL cannot hold (a NUL byte) 400, unknown record 404, an
// optimistic-locking conflict 409, unique violation 422, missing tenant schema 400, else 500
// with the cause only in the log (nil log: slog.Default()).
func WriteStorageError(w http.ResponseWriter, r *http.Request, log *slog.Logger, t *Table, err error) {
	if log == nil {
		log = slog.Default()
	}
	var qe *QueryError
	var pe *pgconn.PgError
	var conflict *ConflictError
	switch {
	case errors.As(err, &qe):
		TextError(w, http.StatusBadRequest, qe.Msg)
	case errors.Is(err, ErrNotFound):
		TextError(w, http.StatusNotFound, "Not found")
	case errors.As(err, &conflict):
		TextError(w, http.StatusConflict, conflict.Msg)
	case errors.Is(err, context.Canceled):
		// client went away: nothing to answer
	case errors.As(err, &pe) && pe.Code == "23505":
		field := fieldOfIndex(t, pe.ConstraintName)
		msg := fmt.Sprintf("%s value already exists in table %s: %s", field, t.Name, keyValue(pe.Detail))
		if pe.ConstraintName == t.Name+"_pkey" {
			msg = fmt.Sprintf("id value already exists in table %s: %s", t.Name, keyValue(pe.Detail))
		}
		WriteErrors(w, http.StatusUnprocessableEntity, ValidationError{Message: msg, Type: "1", Code: "-1",
			Parameters: []Param{{Key: field, Value: keyValue(pe.Detail)}}})
	case errors.As(err, &pe) && pe.Code == "22P02":
		// e.g. a FK field that is not a UUID (the generated column's cast)
		WriteErrors(w, http.StatusUnprocessableEntity, ValidationError{Message: pe.Message, Type: "1", Code: "-1"})
	case errors.As(err, &pe) && strings.HasPrefix(pe.Code, "22"):
		// Any other data exception (22021 a NUL byte in text, 22P05 \u0000 in
		// jsonb, 22001 too long, ...) is the client's value that PostgreSQL
		// cannot store or compare: RMB answers a class-22 error with 400 and
		// the database's message.
		TextError(w, http.StatusBadRequest, pe.Message)
	case IsUndefinedTable(err):
		TextError(w, http.StatusBadRequest, "No such Tenant "+r.Header.Get("X-Okapi-Tenant"))
	default:
		log.Error("storage request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		TextError(w, http.StatusInternalServerError, "Internal Server Error")
	}
}

func fieldOfIndex(t *Table, index string) string {
	if index == t.Name+"_pkey" {
		return "id"
	}
	for _, ix := range t.Indexes {
		if t.IndexName(ix) == index {
			return ix.Field
		}
	}
	return index
}

// keyValue extracts "v" from PostgreSQL's detail "Key (expr)=(v) already exists.".
func keyValue(detail string) string {
	i := strings.LastIndex(detail, ")=(")
	j := strings.LastIndex(detail, ") already exists")
	if i < 0 || j < i {
		return ""
	}
	return detail[i+3 : j]
}

// Param is one {key, value} of a FOLIO validation error.
type Param struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// ValidationError is one entry of FOLIO's 422 {"errors": [...]} body.
type ValidationError struct {
	Message    string  `json:"message"`
	Type       string  `json:"type,omitempty"`
	Code       string  `json:"code,omitempty"`
	Parameters []Param `json:"parameters"`
}

// WriteErrors writes {"errors": [...], "total_records": n} like RMB.
func WriteErrors(w http.ResponseWriter, status int, errs ...ValidationError) {
	for i := range errs {
		if errs[i].Parameters == nil {
			errs[i].Parameters = []Param{}
		}
	}
	b, _ := json.Marshal(struct {
		Errors       []ValidationError `json:"errors"`
		TotalRecords int               `json:"total_records"`
	}{errs, len(errs)})
	WriteJSON(w, status, b)
}

// SetRawHeader sets header name spelt exactly as given. Header().Set would
// canonicalise it (x-okapi-token → X-Okapi-Token); FOLIO's Vert.x servers send
// names as the code spells them, and clients that read the raw header text
// (JMeter's regular-expression extractor) depend on that spelling. Any other
// spelling of the same name is removed first, so the header goes out once.
func SetRawHeader(h http.Header, name, value string) {
	for k := range h {
		if strings.EqualFold(k, name) {
			delete(h, k)
		}
	}
	h[name] = []string{value}
}

// VertxJSON marks a ResponseWriter of a module that answers as mod-circulation
// and mod-inventory do (Vert.x's Json.encodePrettily, "application/json;
// charset=utf-8"); every other module answers as RMB does (compact Jackson,
// "application/json").
type VertxJSON interface{ VertxJSON() }

// vertxWriter is a ResponseWriter marked VertxJSON.
type vertxWriter struct{ http.ResponseWriter }

func (vertxWriter) VertxJSON() {}

// Unwrap lets http.ResponseController (the gateway's ReverseProxy) reach the
// server's writer.
func (v vertxWriter) Unwrap() http.ResponseWriter { return v.ResponseWriter }

// VertxJSONHandler makes every JSON answer of h (WriteJSON) come out in
// Vert.x's layout and content type.
func VertxJSONHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(vertxWriter{w}, r) })
}

// WriteJSON writes a JSON body with its status, in the module's layout (see
// package jsonlayout): RMB's compact Jackson, or Vert.x's pretty printer when w
// is marked VertxJSON.
func WriteJSON(w http.ResponseWriter, status int, body []byte) {
	if _, vertx := w.(VertxJSON); vertx {
		body = jsonlayout.Pretty(body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	} else {
		body = jsonlayout.Compact(body)
		w.Header().Set("Content-Type", "application/json")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// TextError writes a text/plain error body, as RMB and Okapi do for 400/401/404/500.
func TextError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Length", strconv.Itoa(len(msg)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg)
}
