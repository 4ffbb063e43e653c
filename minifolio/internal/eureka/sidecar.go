package eureka

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/okapi"
	"github.com/folio-perf/folio-perf/minifolio/internal/proxy"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// SidecarConfig configures the sidecar of one module.
type SidecarConfig struct {
	Module    catalog.Module
	ModuleURL string // the module behind this sidecar
	SelfURL   string // this sidecar, sent to the module as X-Okapi-Url
	// SidecarURL is where another module's sidecar listens (egress).
	SidecarURL func(catalog.Module) string
	KC         *Keycloak
	Verifier   *Verifier
	DB         storage.DB // entitled tenants
	// GetBodyRefused: folio-module-sidecar 4.0.0 and later refuse a GET with a
	// body (RequestValidationFilter, MODSIDECAR-125); 3.x forwards it.
	GetBodyRefused bool
	Log            *slog.Logger
}

// Sidecar plays folio-module-sidecar in front of one module. A request for a
// path of its own module is ingress (from Kong or from another sidecar): the
// request filters run in the sidecar's order (IngressFilterOrder), then it is
// forwarded to the module. A request for another module's path is the
// module's own call (egress), forwarded to that module's sidecar, which
// applies its ingress filters.
type Sidecar struct {
	cfg     SidecarConfig
	tenants tenants
	module  *httputil.ReverseProxy
	egress  map[string]*httputil.ReverseProxy

	mu      sync.RWMutex
	allowed map[string]int64 // permission decisions granted, by key → token expiry
}

// NewSidecar builds a sidecar with one keep-alive transport for its module and
// the other sidecars.
func NewSidecar(cfg SidecarConfig) *Sidecar {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	s := &Sidecar{cfg: cfg, tenants: tenants{db: cfg.DB, log: cfg.Log}, egress: map[string]*httputil.ReverseProxy{},
		allowed: map[string]int64{}}
	tr := proxy.Transport(1024, 256)
	forward := func(name, to string) *httputil.ReverseProxy {
		return proxy.To(to, tr, func(pr *httputil.ProxyRequest) {
			// RequestForwardingService.filterHeaders: never User-Agent or Priority.
			pr.Out.Header.Del("User-Agent")
			pr.Out.Header.Del("Priority")
		}, func(w http.ResponseWriter, r *http.Request, err error) {
			cfg.Log.Error("forwarding failed", "to", name, "path", r.URL.Path, "err", err)
			sidecarError(w, http.StatusInternalServerError, "InternalServerErrorException", "unknown_error",
				"Failed to proxy request: request timeout")
		})
	}
	s.module = forward(cfg.Module.Name, cfg.ModuleURL)
	for _, m := range catalog.Modules {
		if m.On(catalog.Eureka) && m.Name != cfg.Module.Name {
			s.egress[m.Name] = forward("sidecar-"+m.Name, cfg.SidecarURL(m))
		}
	}
	return s
}

// ServeHTTP routes ingress and egress.
func (s *Sidecar) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/admin/health" {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("OK"))
		return
	}
	mod, ok := catalog.ForPathOn(catalog.Eureka, r.URL.Path)
	switch {
	case !ok:
		routeNotFound(w, r)
	case mod.Name == s.cfg.Module.Name:
		s.ingress(w, r)
	default:
		if p := s.egress[mod.Name]; p != nil {
			p.ServeHTTP(w, r)
			return
		}
		routeNotFound(w, r)
	}
}

// public: the routing entry needs no permission.
func (s *Sidecar) public(path string) bool {
	p := strings.TrimPrefix(path, "/")
	for _, pre := range s.cfg.Module.Public {
		if p == pre || strings.HasPrefix(p, pre+"/") {
			return true
		}
	}
	return false
}

func (s *Sidecar) ingress(w http.ResponseWriter, r *http.Request) {
	h := r.Header
	public := s.public(r.URL.Path)
	// RequestValidationFilter (sidecar 4.x).
	if s.cfg.GetBodyRefused && r.Method == http.MethodGet && r.ContentLength > 0 {
		badRequest(w, "GET requests should not have a body")
		return
	}
	// KeycloakJwtFilter: Authorization (Bearer stripped) or X-Okapi-Token, the
	// two equal when both are sent; the token goes on as X-Okapi-Token only.
	okapiTok := h.Get("X-Okapi-Token")
	raw := h.Get("Authorization")
	if raw == "" {
		raw = okapiTok
	}
	var claims Claims
	hasToken := raw != ""
	if hasToken {
		tok := strings.TrimPrefix(raw, "Bearer ")
		if okapiTok != "" && tok != okapiTok {
			badRequest(w, "X-Okapi-Token is not equal to Authorization token")
			return
		}
		h.Set("X-Okapi-Token", tok)
		h.Del("Authorization")
		c, err := s.cfg.Verifier.Verify(r.Context(), tok)
		if err != nil {
			// "Failed to parse JWT": refused even on a route that needs no
			// permission; the reason goes to the log only.
			s.cfg.Log.Info("token refused", "reason", err.Error(), "path", r.URL.Path)
			unauthorized(w)
			return
		}
		claims = c
		if h.Get("X-Okapi-User-Id") == "" && c.UserID != "" {
			h.Set("X-Okapi-User-Id", c.UserID)
		}
	} else if !public {
		unauthorized(w) // "Failed to find JWT in request"
		return
	}
	tenant := h.Get("X-Okapi-Tenant")
	// KeycloakTenantFilter (skipped for routes without permissions).
	if !public && tenant != "" && claims.Tenant() != tenant {
		s.cfg.Log.Info("token refused", "reason", "X-Okapi-Tenant header is not the same as resolved tenant",
			"token_tenant", claims.Tenant(), "tenant", tenant)
		unauthorized(w)
		return
	}
	// TenantFilter.
	if !s.tenants.enabled(r.Context(), tenant) {
		tenantNotEnabled(w, tenant)
		return
	}
	// KeycloakAuthorizationFilter.
	if !public {
		status, err := s.authorize(r.Context(), r, tenant, claims)
		if err != nil {
			s.cfg.Log.Error("authorization failed", "err", err)
		}
		switch status {
		case http.StatusOK:
		case http.StatusUnauthorized:
			unauthorized(w)
			return
		default:
			forbidden(w)
			return
		}
	}
	// DesiredPermissionsFilter.
	h.Del("X-Okapi-Permissions")
	if perms := s.desired(r); len(perms) > 0 && h.Get("X-Okapi-User-Id") != "" {
		b, _ := json.Marshal(perms)
		h.Set("X-Okapi-Permissions", string(b))
	}
	h.Set("X-Okapi-Url", s.cfg.SelfURL)
	h.Set("X-Okapi-Request-Id", okapi.RequestID(h.Get("X-Okapi-Request-Id"), r.URL.Path))
	s.module.ServeHTTP(w, r)
}

// resource is the permission resource a request is decided on: "/" and the
// module path prefix it falls under (one Keycloak resource per prefix).
func (s *Sidecar) resource(path string) string {
	p := strings.TrimPrefix(path, "/")
	best := ""
	for _, pre := range s.cfg.Module.Prefixes {
		if (p == pre || strings.HasPrefix(p, pre+"/")) && len(pre) > len(best) {
			best = pre
		}
	}
	return "/" + best
}

// authorize asks the realm for a decision on the request's resource and
// method with the caller's token (a UMA ticket grant on the login client, as
// the sidecar's KeycloakClient.evaluatePermissions), and remembers a grant
// until the token expires (the sidecar's authTokenCache key: permission,
// tenant, user_id, sid, expiry).
func (s *Sidecar) authorize(ctx context.Context, r *http.Request, tenant string, c Claims) (int, error) {
	perm := s.resource(r.URL.Path) + "#" + r.Method
	key := strings.Join([]string{perm, tenant, c.UserID, c.SID, fmt.Sprint(c.Exp)}, "#")
	s.mu.RLock()
	_, ok := s.allowed[key]
	s.mu.RUnlock()
	if ok {
		return http.StatusOK, nil
	}
	resp, err := s.cfg.KC.Token(ctx, tenant, url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:uma-ticket"},
		"permission": {perm}, "audience": {tenant + LoginClientSuffix}}, r.Header.Get("X-Okapi-Token"))
	if err != nil {
		return http.StatusForbidden, err
	}
	if resp.Status == http.StatusOK {
		s.mu.Lock()
		if len(s.allowed) > maxSeen {
			now := time.Now().Unix()
			for k, exp := range s.allowed {
				if exp <= now {
					delete(s.allowed, k)
				}
			}
		}
		s.allowed[key] = c.Exp
		s.mu.Unlock()
	} else if resp.Status != http.StatusForbidden && resp.Status != http.StatusUnauthorized {
		return http.StatusForbidden, fmt.Errorf("permission %s: %d %s", perm, resp.Status, resp.OAuthError())
	}
	return resp.Status, nil
}

// desired is the route's permissionsDesired the caller holds. minifolio's
// staff hold every permission, so the sidecar passes the descriptor's list
// as it stands (FOLIO's sidecar asks mod-users-keycloak for the caller's
// matching permissions).
func (s *Sidecar) desired(r *http.Request) []string {
	for _, d := range s.cfg.Module.Desired {
		if d.Method == r.Method && d.Path == r.URL.Path {
			return d.Permissions
		}
	}
	return nil
}
