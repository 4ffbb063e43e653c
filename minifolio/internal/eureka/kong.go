package eureka

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"regexp"
	"strconv"
	"strings"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
	"github.com/folio-perf/folio-perf/minifolio/internal/proxy"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// KongConfig configures the Kong-like gateway.
type KongConfig struct {
	DB      storage.DB
	Profile *profile.Profile
	// SidecarURL is where a module's sidecar listens (Kong's upstream for the
	// module's routes).
	SidecarURL func(catalog.Module) string
	Log        *slog.Logger
	// Search: mod-search runs in this deployment (its routes exist).
	Search bool
}

// Kong plays FOLIO's Kong (folio-kong: Kong 3.9 with KONG_HEADERS=off, the
// global cors, response-transformer and auth-headers-manager plugins, and the
// routes mgr-tenant-entitlements registers): a request is routed by method,
// path and X-Okapi-Tenant to the sidecar of the module that serves it.
type Kong struct {
	cfg     KongConfig
	tenants tenants
	proxies map[string]*httputil.ReverseProxy
	version []byte // GET /version
}

// NewKong builds the gateway with one keep-alive transport to the sidecars.
func NewKong(cfg KongConfig) *Kong {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	k := &Kong{cfg: cfg, tenants: tenants{db: cfg.DB, log: cfg.Log}, proxies: map[string]*httputil.ReverseProxy{}}
	tr := proxy.Transport(2048, 512)
	for _, m := range catalog.Modules {
		if !m.On(catalog.Eureka) || (m.OpenSearch && !cfg.Search) {
			continue
		}
		name := m.Name
		p := proxy.To(cfg.SidecarURL(m), tr, func(pr *httputil.ProxyRequest) {
			pr.SetXForwarded()
			// Kong's nginx template also sends these to the upstream.
			pr.Out.Header.Set("X-Real-IP", clientIP(pr.In))
			pr.Out.Header.Set("X-Forwarded-Port", portOf(pr.In.Host))
			pr.Out.Header.Set("X-Forwarded-Path", pr.In.URL.Path)
		}, func(w http.ResponseWriter, r *http.Request, err error) {
			cfg.Log.Error("proxy to sidecar failed", "module", name, "path", r.URL.Path, "err", err)
			kongHeaders(w.Header(), r, true)
			// Kong's answer when the upstream cannot be reached.
			kongError(w, http.StatusBadGateway, kongResponseType(r.Header.Get("Accept")),
				"An invalid response was received from the upstream server")
		})
		p.ModifyResponse = func(resp *http.Response) error {
			kongHeaders(resp.Header, resp.Request, true)
			return nil
		}
		k.proxies[name] = p
	}
	// Kong's admin API root, less what folio-kong's response-transformer
	// removes (configuration, pids, timers, node_id, hostname, plugins,
	// tagline); the Kong release folio-kong 3.9.x builds on is 3.9.1.
	k.version, _ = json.Marshal(map[string]string{"version": "3.9.1", "edition": "community"})
	return k
}

// sts is folio-kong's global response-transformer header.
const sts = "max-age=31536000; includeSubDomains; preload"

// kongHeaders adds what Kong's global plugins' header_filter add to an
// answer: the cors plugin's origin headers (origins '*', credentials true:
// with an Origin it is echoed with credentials and "vary: Origin", without
// one "*") and, when the response-transformer ran, Strict-Transport-Security.
func kongHeaders(h http.Header, r *http.Request, withSTS bool) {
	if origin := r.Header.Get("Origin"); origin != "" {
		storage.SetRawHeader(h, "vary", "Origin")
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
	} else {
		h.Set("Access-Control-Allow-Origin", "*")
	}
	if withSTS && h.Get("Strict-Transport-Security") == "" {
		h.Set("Strict-Transport-Security", sts)
	}
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func portOf(host string) string {
	if _, p, err := net.SplitHostPort(host); err == nil {
		return p
	}
	return "80"
}

var entitlementsPath = regexp.MustCompile(`^/entitlements/([^/]+)/applications$`)

// since are the routes that came with a module release: Kong has them only
// when the profile's module is at least that version.
var since = []struct {
	prefix, module      string
	major, minor, patch int
}{
	{"/locale", "mod-settings", 1, 3, 0},      // the locale interface of mod-settings 1.3 (Trillium)
	{"/user/settings", "mod-users", 19, 6, 0}, // users.settings 2.0 (mod-users 19.6, Trillium)
}

// routed reports whether Kong has a route for path under the profile.
func (k *Kong) routed(path string) bool {
	for _, s := range since {
		if path == s.prefix || strings.HasPrefix(path, s.prefix+"/") {
			return k.cfg.Profile.AtLeast(s.module, s.major, s.minor, s.patch)
		}
	}
	return true
}

// ServeHTTP routes one request the way Kong's router and plugins treat it.
func (k *Kong) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The CORS route (http.method == "OPTIONS") matches every OPTIONS; the
	// cors plugin answers a preflight itself in its access phase.
	if r.Method == http.MethodOptions {
		if r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != "" {
			k.preflight(w, r)
			return
		}
		// Not a preflight: proxied to the CORS route's service, which
		// nothing listens behind (127.0.0.1:80).
		kongHeaders(w.Header(), r, true)
		kongError(w, http.StatusBadGateway, kongResponseType(r.Header.Get("Accept")),
			"An invalid response was received from the upstream server")
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == "/version" {
		kongHeaders(w.Header(), r, true)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(k.version)))
		_, _ = w.Write(k.version)
		return
	}
	if m := entitlementsPath.FindStringSubmatch(r.URL.Path); m != nil && r.Method == http.MethodGet {
		if !k.checkTokens(w, r) {
			return
		}
		kongHeaders(w.Header(), r, true)
		k.entitlements(w, r, m[1])
		return
	}
	mod, ok := catalog.ForPathOn(catalog.Eureka, r.URL.Path)
	proxy := k.proxies[mod.Name]
	if !ok || proxy == nil || !k.routed(r.URL.Path) || !k.tenants.enabled(r.Context(), r.Header.Get("X-Okapi-Tenant")) {
		// Module routes match on the entitled tenants' X-Okapi-Tenant: a
		// missing or unknown tenant is an unknown route. Global plugins run
		// for it in header_filter, the cors and response-transformer ones too.
		kongHeaders(w.Header(), r, true)
		kongError(w, http.StatusNotFound, kongResponseType(r.Header.Get("Accept")), "no Route matched with those values")
		return
	}
	if !k.checkTokens(w, r) {
		return
	}
	proxy.ServeHTTP(w, r)
}

// preflight is the cors plugin's answer (origins '*', credentials true,
// methods GET,PUT,POST,DELETE,PATCH, headers and max_age unset): 200, no body,
// the request's origin and requested headers echoed. The plugin exits before
// the response-transformer is collected: no Strict-Transport-Security.
func (k *Kong) preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	storage.SetRawHeader(h, "vary", "Origin")
	h.Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
	h.Set("Access-Control-Allow-Credentials", "true")
	if acrh := r.Header.Get("Access-Control-Request-Headers"); acrh != "" {
		h.Set("Access-Control-Allow-Headers", acrh)
	}
	h.Set("Access-Control-Allow-Methods", "GET,PUT,POST,DELETE,PATCH")
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}

// folio-kong's auth-headers-manager (handler.lua), with set_okapi_header on
// and clean_access_token_cookie on.
var cookieRE = regexp.MustCompile(`(?i)([^\s]+)=([^\s;]+)[;\s]*`)

// checkTokens applies auth-headers-manager to r: the folioAccessToken cookie,
// X-Okapi-Token and Authorization must agree (else Kong's 404); a cookie token
// is copied into X-Okapi-Token when that header is absent; the access-token
// cookie never reaches the module. false: an answer was written.
func (k *Kong) checkTokens(w http.ResponseWriter, r *http.Request) bool {
	fail := func(msg string) bool {
		// The plugin runs after cors (priority 2000 > 1010) but before the
		// response-transformer (800) is collected: no Strict-Transport-Security.
		kongHeaders(w.Header(), r, false)
		kongError(w, http.StatusNotFound, "application/json", msg)
		return false
	}
	okapiTok := r.Header.Get("X-Okapi-Token")
	source, token := "X-Okapi-Token", okapiTok
	if a := r.Header.Get("Authorization"); a != "" {
		if !strings.HasPrefix(a, "Bearer ") {
			return fail("Invalid authorization header, value must start with Bearer")
		}
		if okapiTok != "" && okapiTok != a[7:] {
			return fail("X-Okapi-Token is not equal to Authorization token")
		}
		source, token = "Authorization", a[7:]
	}
	cookies := parseCookies(r.Header.Values("Cookie"))
	access, hasCookie := "", false
	for _, c := range cookies {
		if c[0] == "folioAccessToken" {
			access, hasCookie = c[1], true
		}
	}
	if hasCookie {
		if token != "" && token != access {
			return fail(source + " token is not equal to folioAccessToken token in cookies")
		}
		if okapiTok == "" {
			r.Header.Del("Authorization")
			r.Header.Set("X-Okapi-Token", access)
		}
	}
	if len(r.Header.Values("Cookie")) > 0 {
		r.Header.Del("Cookie")
		var rest []string
		for _, c := range cookies {
			if c[0] != "folioAccessToken" {
				rest = append(rest, c[0]+"="+c[1])
			}
		}
		if len(rest) > 0 {
			r.Header.Set("Cookie", strings.Join(rest, ";"))
		}
	}
	return true
}

// parseCookies reads cookies as the plugin's regular expression does, the
// last of equal names winning (a Lua table), in the order first seen.
func parseCookies(headers []string) [][2]string {
	var out [][2]string
	idx := map[string]int{}
	for _, m := range cookieRE.FindAllStringSubmatch(strings.Join(headers, "; "), -1) {
		if i, ok := idx[m[1]]; ok {
			out[i][1] = m[2]
			continue
		}
		idx[m[1]] = len(out)
		out = append(out, [2]string{m[1], m[2]})
	}
	return out
}

// entitlements answers mgr-tenant-entitlements' GET
// /entitlements/{tenant}/applications: the profile's applications with their
// modules at the profile's versions (moduleDescriptors carry id and name only).
func (k *Kong) entitlements(w http.ResponseWriter, r *http.Request, tenant string) {
	type mod struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
	type app struct {
		ID                string `json:"id"`
		Name              string `json:"name"`
		Version           string `json:"version"`
		Modules           []mod  `json:"modules"`
		UIModules         []mod  `json:"uiModules"`
		ModuleDescriptors []mod  `json:"moduleDescriptors"`
	}
	apps := []app{}
	if k.tenants.enabled(r.Context(), tenant) {
		for _, a := range k.cfg.Profile.Applications {
			x := app{ID: a.Name + "-" + a.Version, Name: a.Name, Version: a.Version, UIModules: []mod{}}
			for _, name := range a.Modules {
				if m, _ := catalog.ByName(name); m.OpenSearch && !k.cfg.Search {
					continue
				}
				v := k.cfg.Profile.Version(name)
				x.Modules = append(x.Modules, mod{ID: name + "-" + v, Name: name, Version: v})
				x.ModuleDescriptors = append(x.ModuleDescriptors, mod{ID: name + "-" + v, Name: name})
			}
			apps = append(apps, x)
		}
	}
	b, _ := json.Marshal(map[string]any{"applicationDescriptors": apps, "totalRecords": len(apps)})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	_, _ = w.Write(b)
}
