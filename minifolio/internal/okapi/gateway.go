// Package okapi is minifolio's gateway: it plays Okapi (tenant resolution,
// routing by path, CORS, X-Okapi-* headers), mod-authtoken (JWT access and
// refresh tokens, the 400/401/403 rules) and mod-login (/authn/*), and
// reverse-proxies every other request to the module process serving the path.
package okapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"expvar"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/jsonlayout"
	"github.com/folio-perf/folio-perf/minifolio/internal/proxy"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Config configures a Gateway.
type Config struct {
	Port       int // gateway port; module m listens on Port + m.Offset
	DB         storage.TxBeginner
	Signer     *Signer
	TokenTTL   time.Duration // access-token lifetime (mod-authtoken default 10 min)
	RefreshTTL time.Duration // refresh-token lifetime (default 1 week)
	Log        *slog.Logger
	// ModuleURL overrides where a module is reached (tests); default
	// http://127.0.0.1:<Port+Offset>.
	ModuleURL func(catalog.Module) string
	// SameSite of the login cookies (mod-login's LOGIN_COOKIE_SAMESITE, default Lax).
	SameSite string
	// ModuleIDs are the module ids every tenant has enabled
	// ("mod-circulation-23.5.6"), for Okapi's module list
	// (catalog.ModuleIDs of the release profile).
	ModuleIDs []string
}

// MaxHeaderBytes bounds a request's line and headers at the gateway (the
// okapi process's http.Server): a longer one is refused with 431, so a
// module that builds a query URL from a list of ids must split the list
// (mod-circulation sends 50 ids per query).
const MaxHeaderBytes = 64 << 10

// Gateway is the http.Handler of the okapi process.
type Gateway struct {
	cfg     Config
	proxies map[string]*httputil.ReverseProxy // by module name
	selfURL string
	// loginGeneric: the profile's mod-login answers every failed login alike
	// (genericLoginErrors).
	loginGeneric bool
	// corsCredentials: the profile's Okapi (5.0 and later) allows
	// credentials in CORS answers (okapiCredentials).
	corsCredentials bool

	mu      sync.RWMutex
	tenants map[string]time.Time // known tenant → when confirmed
	users   map[string]userState // "<tenant>/<userId>" → last look-up
}

// userState caches whether a token's user is active (mod-authtoken asks
// mod-users, with a cache, on every request).
type userState struct {
	active bool
	at     time.Time
}

// tenantTTL: how long a confirmed tenant is trusted before re-checking the
// table (a tenant dropped by a test disappears within this time).
const tenantTTL = 30 * time.Second

// New builds a Gateway with one shared keep-alive transport for all modules:
// a new TCP connection per proxied request would cost more than the request.
func New(cfg Config) *Gateway {
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = 10 * time.Minute
	}
	if cfg.RefreshTTL <= 0 {
		cfg.RefreshTTL = 7 * 24 * time.Hour
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.SameSite == "" {
		cfg.SameSite = "Lax"
	}
	if cfg.ModuleURL == nil {
		port := cfg.Port
		cfg.ModuleURL = func(m catalog.Module) string { return fmt.Sprintf("http://127.0.0.1:%d", port+m.Offset) }
	}
	tr := proxy.Transport(2048, 512)
	g := &Gateway{cfg: cfg, proxies: map[string]*httputil.ReverseProxy{}, tenants: map[string]time.Time{}, users: map[string]userState{},
		selfURL: fmt.Sprintf("http://127.0.0.1:%d", cfg.Port), loginGeneric: genericLoginErrors(cfg.ModuleIDs),
		corsCredentials: okapiCredentials(cfg.ModuleIDs)}
	for _, m := range catalog.Modules {
		name := m.Name
		g.proxies[name] = proxy.To(cfg.ModuleURL(m), tr, nil, func(w http.ResponseWriter, r *http.Request, err error) {
			cfg.Log.Error("proxy to module failed", "module", name, "path", r.URL.Path, "err", err)
			textError(w, http.StatusInternalServerError, "Connection to module "+name+" failed")
		})
	}
	return g
}

// textError is Okapi's/mod-authtoken's text/plain error body.
func textError(w http.ResponseWriter, status int, msg string) { storage.TextError(w, status, msg) }

// ServeHTTP routes one request: CORS preflight, health, /authn/*, else proxy.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isPreflight(r) {
		g.preflight(w, r)
		return
	}
	g.corsHeaders(w, r)
	if r.Method == http.MethodOptions {
		// Not a preflight (no Origin or no Access-Control-Request-Method):
		// no module here answers OPTIONS.
		w.WriteHeader(http.StatusNoContent)
		return
	}
	switch r.URL.Path {
	case "/admin/health", "/_/proxy/health":
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("OK"))
		return
	case "/authn/login", "/authn/login-with-expiry", "/authn/refresh", "/authn/logout":
		g.authn(w, r)
		return
	}
	if tenant, ok := tenantModulesPath(r.URL.Path); ok {
		g.tenantModules(w, r, tenant)
		return
	}

	token, ok := tokenOf(w, r)
	if !ok {
		return
	}
	var claims Claims
	var verr error
	if token != "" {
		claims, verr = g.cfg.Signer.Verify(token, "access", time.Now())
	}
	// Okapi: tenant from the header, else from the token, else supertenant.
	tenant := r.Header.Get("X-Okapi-Tenant")
	if tenant == "" && verr == nil && token != "" {
		tenant = claims.Tenant
	}
	if tenant == "" {
		tenant = "supertenant"
	}
	if !g.tenantExists(r.Context(), tenant) {
		textError(w, http.StatusBadRequest, "No such Tenant "+tenant)
		return
	}
	mod, found := catalog.ForPath(r.URL.Path)
	if !found {
		textError(w, http.StatusNotFound, "No suitable module found for path "+r.URL.Path+" for tenant "+tenant)
		return
	}
	if token == "" {
		textError(w, http.StatusBadRequest, "Token missing, access requires permission: "+permission(r.Method, r.URL.Path))
		return
	}
	if verr != nil {
		g.cfg.Log.Info("token validation failure", "reason", verr.Error(), "path", r.URL.Path)
		textError(w, http.StatusUnauthorized, "Invalid token")
		return
	}
	if claims.Tenant != tenant {
		// mod-authtoken: "Tenant mismatch: tenant in header does not equal
		// tenant in token" → 403, with the generic body.
		g.cfg.Log.Info("token validation failure", "reason", "tenant mismatch", "token_tenant", claims.Tenant, "tenant", tenant)
		textError(w, http.StatusForbidden, "Invalid token")
		return
	}
	if uid := r.Header.Get("X-Okapi-User-Id"); uid != "" && uid != claims.UserID {
		textError(w, http.StatusForbidden, "Invalid token")
		return
	}
	if !g.userActive(r.Context(), tenant, claims.UserID) {
		textError(w, http.StatusUnauthorized, "Invalid token: user with id "+claims.UserID+" is not active")
		return
	}

	if !limitBody(w, r) {
		return
	}
	h := r.Header
	h.Set("X-Okapi-Tenant", tenant)
	h.Set("X-Okapi-Token", token)
	h.Set("X-Okapi-User-Id", claims.UserID)
	h.Set("X-Okapi-Url", g.selfURL)
	h.Set("X-Okapi-Request-Id", RequestID(h.Get("X-Okapi-Request-Id"), r.URL.Path))
	proxiedRequests.Add(1)
	g.proxies[mod.Name].ServeHTTP(w, r)
}

// MaxProxiedBody is the largest request body the gateway forwards: the
// business modules' limit (mod-circulation's check-out and check-in bodies
// are a few hundred bytes; storage records a few KB). A module that refuses a
// body stops reading it and closes the connection while the gateway is still
// sending the rest, so its 413 was lost to a reset connection about one time
// in three (a 500 "Connection to module failed" instead); refusing here, before
// anything is forwarded, gives the client the 413 that Okapi's Vert.x server
// answers every time.
const MaxProxiedBody = 1 << 20

// drainLimit: a refused body up to this size is read to the end before the
// 413, so the client gets the answer on a clean connection instead of a reset
// while it is still sending; a larger one is cut off.
const drainLimit = 32 << 20

// limitBody answers 413 when r's body is larger than MaxProxiedBody. A body of
// unknown length (chunked) is read into memory up to the limit and forwarded
// with its length. false: an answer has been written.
func limitBody(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	if r.ContentLength > MaxProxiedBody {
		if r.ContentLength <= drainLimit && r.Header.Get("Expect") == "" {
			_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, drainLimit))
		}
		tooLarge(w)
		return false
	}
	if r.ContentLength >= 0 {
		return true
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxProxiedBody+1))
	if err != nil {
		textError(w, http.StatusBadRequest, "cannot read request body: "+err.Error())
		return false
	}
	if len(b) > MaxProxiedBody {
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, drainLimit))
		tooLarge(w)
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
	r.TransferEncoding = nil
	return true
}

func tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	textError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body too large: more than %d bytes", MaxProxiedBody))
}

// proxiedRequests counts the requests routed to modules (UI calls and
// module-to-module calls alike). Published by expvar on the process's
// diagnostics port (MINIFOLIO_PPROF_OKAPI, /debug/vars), never on the gateway:
// make bench-minifolio reads it for the gateway requests per transaction.
var proxiedRequests = expvar.NewInt("okapi_proxied_requests")

// tokenOf reads the token from X-Okapi-Token, Authorization: Bearer or the
// folioAccessToken cookie; two that disagree are a 400, as in Okapi.
func tokenOf(w http.ResponseWriter, r *http.Request) (string, bool) {
	var found []string
	if t := r.Header.Get("X-Okapi-Token"); t != "" {
		found = append(found, t)
	}
	if a := r.Header.Get("Authorization"); a != "" {
		if len(a) > 7 && strings.EqualFold(a[:7], "Bearer ") {
			found = append(found, strings.TrimSpace(a[7:]))
		}
	}
	if c, err := r.Cookie("folioAccessToken"); err == nil && c.Value != "" {
		found = append(found, c.Value)
	}
	if len(found) == 0 {
		return "", true
	}
	for _, t := range found[1:] {
		if t != found[0] {
			textError(w, http.StatusBadRequest, "X-Okapi-Token, Authorization and folioAccessToken cookie hold different tokens; send one")
			return "", false
		}
	}
	return found[0], true
}

// tenantExists checks okapi.tenants, caching confirmations for tenantTTL.
func (g *Gateway) tenantExists(ctx context.Context, tenant string) bool {
	if !storage.ValidTenant(tenant) {
		return false
	}
	g.mu.RLock()
	at, ok := g.tenants[tenant]
	g.mu.RUnlock()
	if ok && time.Since(at) < tenantTTL {
		return true
	}
	var n int
	if err := g.cfg.DB.QueryRow(ctx, `SELECT count(*) FROM okapi.tenants WHERE id = $1`, tenant).Scan(&n); err != nil {
		if !storage.IsUndefinedTable(err) {
			g.cfg.Log.Error("reading tenants", "err", err)
		}
		return false
	}
	g.mu.Lock()
	if n > 0 {
		g.tenants[tenant] = time.Now()
	} else {
		delete(g.tenants, tenant)
	}
	g.mu.Unlock()
	return n > 0
}

// userActive reports whether the token's user exists and is active (users
// without an "active" field count as active, as in mod-users), caching the
// answer for tenantTTL so a load test costs one look-up per user and period.
func (g *Gateway) userActive(ctx context.Context, tenant, userID string) bool {
	key := tenant + "/" + userID
	g.mu.RLock()
	st, ok := g.users[key]
	g.mu.RUnlock()
	if ok && time.Since(st.at) < tenantTTL {
		return st.active
	}
	if !storage.ValidUUID(userID) {
		return false
	}
	var active *bool
	err := g.cfg.DB.QueryRow(ctx, "SELECT (jsonb->>'active')::boolean FROM "+usersTable.QualifiedName(tenant)+" WHERE id = $1",
		userID).Scan(&active)
	var pe *pgconn.PgError
	if err != nil && !errors.Is(err, pgx.ErrNoRows) && !(errors.As(err, &pe) && strings.HasPrefix(pe.Code, "22")) {
		// A database hiccup must not lock everyone out; the module call
		// that follows will fail on its own if the database is down. A data
		// error ("active" that is no boolean) is no hiccup: not active.
		g.cfg.Log.Error("checking user status", "err", err)
		return true
	}
	st = userState{active: err == nil && (active == nil || *active), at: time.Now()}
	g.mu.Lock()
	if len(g.users) >= maxVerified {
		g.users = map[string]userState{}
	}
	g.users[key] = st
	g.mu.Unlock()
	return st.active
}

// permission names the permission a path needs, in FOLIO's style
// (GET /circulation/loans → circulation.loans.collection.get), for the
// "Token missing" message; minifolio grants every permission to every token.
func permission(method, path string) string {
	var segs []string
	item := false
	for _, s := range strings.Split(strings.Trim(path, "/"), "/") {
		if storage.ValidUUID(s) {
			item = true
			continue
		}
		if s != "" {
			segs = append(segs, s)
		}
	}
	p := strings.Join(segs, ".")
	switch m := strings.ToLower(method); {
	case m == "get" && item:
		return p + ".item.get"
	case m == "get":
		return p + ".collection.get"
	case item:
		return p + ".item." + m
	default:
		return p + "." + m
	}
}

// RequestID makes Okapi's X-Okapi-Request-Id "<6 digits>/<first path
// segment>", appended to an incoming one with ";" as Okapi does for calls
// between modules.
func RequestID(prev, path string) string {
	n := rand.IntN(1000000) // an id for log correlation, not a secret
	seg := strings.TrimPrefix(path, "/")
	if i := strings.IndexByte(seg, '/'); i >= 0 {
		seg = seg[:i]
	}
	id := fmt.Sprintf("%06d/%s", n, seg)
	if prev != "" {
		return prev + ";" + id
	}
	return id
}

// Okapi answers CORS with Vert.x's CorsHandler as okapi-core's CorsHelper
// configures it: any origin ("*"), methods PUT,PATCH,DELETE,GET,POST, a fixed
// list of allowed and exposed headers, max age 7200. Vert.x names the
// response headers with Netty's lower-case constants, and two of the listed
// names are Vert.x constants too (content-type, location), so they are lower
// case in the values while Okapi's own X-Okapi-* names are not. Okapi 5.0
// (Orchid) added allowCredentials and the "Credentials" header: from then on
// the request's origin is echoed with access-control-allow-credentials,
// before that the answer is "*" without credentials.
const (
	corsMethods        = "PUT,PATCH,DELETE,GET,POST"
	corsAllowHeaders4  = "content-type,X-Okapi-Tenant,X-Okapi-Token,Authorization,X-Okapi-Request-Id,X-Okapi-Module-Id"
	corsExposeHeaders4 = "location,X-Okapi-Trace,X-Okapi-Token,Authorization,X-Okapi-Request-Id,X-Okapi-Module-Id"
)

// okapiCredentials reports whether the okapi among ids ("okapi-5.0.1")
// allows credentials in CORS answers (5.0.0 and later; an id list without
// okapi is taken as the default release's).
func okapiCredentials(ids []string) bool {
	return releaseAtLeast(ids, "okapi", [3]int{5, 0, 0}, true)
}

// corsOrigin writes the origin part of a CORS answer (Vert.x's
// addCredentialsAndOriginHeader).
func (g *Gateway) corsOrigin(h http.Header, origin string) {
	if g.corsCredentials {
		storage.SetRawHeader(h, "access-control-allow-credentials", "true")
		storage.SetRawHeader(h, "access-control-allow-origin", origin)
		return
	}
	storage.SetRawHeader(h, "access-control-allow-origin", "*")
}

// corsHeaders: a request with an Origin that is not a preflight.
func (g *Gateway) corsHeaders(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	h := w.Header()
	storage.SetRawHeader(h, "vary", "origin")
	g.corsOrigin(h, origin)
	exposed := corsExposeHeaders4
	if g.corsCredentials {
		exposed += ",Credentials"
	}
	storage.SetRawHeader(h, "access-control-expose-headers", exposed)
}

// isPreflight: what Vert.x's CorsHandler answers itself.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
}

// preflight answers a CORS preflight (204), without calling a module. The
// allowed headers are Okapi's fixed list, not an echo of the request's.
func (g *Gateway) preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	g.corsOrigin(h, r.Header.Get("Origin"))
	storage.SetRawHeader(h, "access-control-allow-methods", corsMethods)
	allowed := corsAllowHeaders4
	if g.corsCredentials {
		allowed += ",Credentials"
	}
	storage.SetRawHeader(h, "access-control-allow-headers", allowed)
	storage.SetRawHeader(h, "access-control-max-age", strconv.Itoa(7200))
	storage.SetRawHeader(h, "content-length", "0")
	w.WriteHeader(http.StatusNoContent)
}

// tenantModulesPath matches Okapi's /_/proxy/tenants/{tenant}/modules.
func tenantModulesPath(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "/_/proxy/tenants/")
	if !ok {
		return "", false
	}
	tenant, ok := strings.CutSuffix(rest, "/modules")
	return tenant, ok && tenant != "" && !strings.Contains(tenant, "/")
}

// tenantModules answers Okapi's GET /_/proxy/tenants/{tenant}/modules: the
// ids of the modules the tenant has enabled, sorted, as Okapi's internal
// module writes them (Json.encodePrettily: `[ {` … `"id" : "mod-…"` … `} ]`).
// Clients read module versions from it. Okapi's 404 for an unknown tenant
// is text/plain with the tenant id.
func (g *Gateway) tenantModules(w http.ResponseWriter, r *http.Request, tenant string) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		textError(w, http.StatusMethodNotAllowed, "Method not allowed")
		return
	}
	if !storage.ValidTenant(tenant) || !g.tenantExists(r.Context(), tenant) {
		textError(w, http.StatusNotFound, tenant)
		return
	}
	type module struct {
		ID string `json:"id"`
	}
	list := make([]module, 0, len(g.cfg.ModuleIDs))
	for _, id := range g.cfg.ModuleIDs {
		list = append(list, module{id})
	}
	b, _ := json.Marshal(list)
	body := jsonlayout.Pretty(b)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}
