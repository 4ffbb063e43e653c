package modules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/credentials"
	"github.com/folio-perf/folio-perf/minifolio/internal/eureka"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// loginKeycloak plays mod-login-keycloak (LoginController, LoginService,
// KeycloakService, TokenCookieHeaderManager, ApiExceptionHandler; 3.0.0 for
// Sunflower, 4.0.x for Trillium): logins are Keycloak password grants on the
// tenant's login client, and the tokens travel as cookies.
//
// Users: FOLIO creates a user's Keycloak account when the user is created
// (mod-users-keycloak) and its password through /authn/credentials. minifolio's
// seed writes mod-login's salted hash instead, so the first login of a seeded
// user whose Keycloak account does not exist yet checks the password against
// that hash and, when it matches, creates the account (username, enabled as
// the user is active, user_id attribute, the staff role) with that password;
// from then on Keycloak alone decides. The tenant's realm is set up the same
// way, on first use, as mgr-tenants sets it up when a tenant is created.
type loginKeycloak struct {
	db       *pgxpool.Pool
	kc       *eureka.Keycloak
	ttl      time.Duration
	sameSite string
	header   bool // X_OKAPI_TOKEN_HEADER_ENABLED
	v4       bool // 4.x: Spring's RestClient in the error causes
	now      func() time.Time

	mu     sync.Mutex
	realms map[string]bool // tenants whose realm was checked by this process
}

func (l *loginKeycloak) routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /authn/login", func(w http.ResponseWriter, r *http.Request) { l.login(w, r, true) })
	mux.HandleFunc("POST /authn/login-with-expiry", func(w http.ResponseWriter, r *http.Request) { l.login(w, r, false) })
	mux.HandleFunc("POST /authn/refresh", l.refresh)
	mux.HandleFunc("POST /authn/logout", l.logout)
	mux.HandleFunc("POST /authn/logout-all", l.logoutAll)
}

// loginError is mod-login-keycloak's ErrorResponse: Error fields in the
// schema's order (message, type, code, parameters), nulls left out.
func loginError(w http.ResponseWriter, status int, msg, typ, code string, params ...Param) {
	type errT struct {
		Message    string  `json:"message,omitempty"`
		Type       string  `json:"type"`
		Code       string  `json:"code"`
		Parameters []Param `json:"parameters,omitempty"`
	}
	b, _ := json.Marshal(struct {
		Errors       []errT `json:"errors"`
		TotalRecords int    `json:"total_records"`
	}{[]errT{{msg, typ, code, params}}, 1})
	springJSON(w, status, b)
}

// springJSON is a Spring MVC JSON answer: "application/json", no charset.
func springJSON(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// tokens is Keycloak's token endpoint answer.
type tokens struct {
	Access         string `json:"access_token"`
	ExpiresIn      int64  `json:"expires_in"`
	Refresh        string `json:"refresh_token"`
	RefreshExpires int64  `json:"refresh_expires_in"`
}

func (l *loginKeycloak) login(w http.ResponseWriter, r *http.Request, legacy bool) {
	tenant := r.Header.Get("X-Okapi-Tenant")
	var cred struct {
		Username *string `json:"username"`
		Password *string `json:"password"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&cred); err != nil {
		loginError(w, http.StatusBadRequest, "JSON parse error: "+err.Error(), "HttpMessageNotReadableException", "validation_error")
		return
	}
	if cred.Password == nil {
		// Bean validation of loginCredentials.json's required password.
		loginError(w, http.StatusBadRequest, "must not be null", "MethodArgumentNotValidException", "validation_error",
			Param{Key: "password", Value: "null"})
		return
	}
	username := ""
	if cred.Username != nil {
		username = *cred.Username
	}
	if err := l.ensureRealm(r.Context(), tenant); err != nil {
		l.serviceError(w, err)
		return
	}
	resp, err := l.passwordGrant(r.Context(), tenant, username, *cred.Password)
	if err == nil && resp.Status == http.StatusUnauthorized {
		if created, merr := l.migrate(r.Context(), tenant, username, *cred.Password); merr != nil {
			slog.Error("creating the Keycloak user", "tenant", tenant, "err", merr)
		} else if created {
			resp, err = l.passwordGrant(r.Context(), tenant, username, *cred.Password)
		}
	}
	if err != nil {
		l.serviceError(w, err)
		return
	}
	switch {
	case resp.Status == http.StatusUnauthorized:
		// Wrong password or unknown user (MODLOGINKC-35): no cookies.
		loginError(w, http.StatusUnauthorized, "Unauthorized error", "UnauthorizedException", "unauthorized_error")
		return
	case resp.Status != http.StatusOK:
		l.tokenFailure(w, tenant, resp)
		return
	}
	var t tokens
	if err := json.Unmarshal(resp.Body, &t); err != nil {
		l.serviceError(w, err)
		return
	}
	if !legacy {
		l.writeTokens(w, t)
		return
	}
	l.setCookies(w, &t)
	if l.header {
		// XOkapiHeaders.TOKEN, spelt in lower case.
		storage.SetRawHeader(w.Header(), "x-okapi-token", t.Access)
	}
	b, _ := json.Marshal(struct {
		OkapiToken   string `json:"okapiToken"`
		RefreshToken string `json:"refreshToken"`
	}{t.Access, t.Refresh})
	springJSON(w, http.StatusCreated, b)
}

func (l *loginKeycloak) passwordGrant(ctx context.Context, tenant, username, password string) (eureka.Response, error) {
	secret, err := l.kc.LoginClientSecret(ctx, tenant)
	if err != nil {
		return eureka.Response{}, err
	}
	return l.kc.Token(ctx, tenant, url.Values{"grant_type": {"password"}, "client_id": {tenant + eureka.LoginClientSuffix},
		"username": {username}, "password": {password}, "client_secret": {secret}}, "")
}

// tokenFailure is KeycloakService.getToken's ServiceException for any other
// answer of the token endpoint: 400 with the HTTP client's message as cause.
func (l *loginKeycloak) tokenFailure(w http.ResponseWriter, tenant string, resp eureka.Response) {
	cause := fmt.Sprintf("[%d %s] during [POST] to [%s/realms/%s/protocol/openid-connect/token] "+
		"[KeycloakClient#callTokenEndpoint(String,Map,String,String)]: [%s]",
		resp.Status, http.StatusText(resp.Status), l.kc.URL, tenant, resp.Body)
	if l.v4 {
		cause = fmt.Sprintf("%d %s: \"%s\"", resp.Status, http.StatusText(resp.Status), resp.Body)
	}
	loginError(w, http.StatusBadRequest, "Failed to obtain a token", "ServiceException", "service_error",
		Param{Key: "cause", Value: cause})
}

// serviceError: Keycloak or the database could not be asked at all.
func (l *loginKeycloak) serviceError(w http.ResponseWriter, err error) {
	slog.Error("login", "err", err)
	loginError(w, http.StatusBadRequest, "Failed to obtain a token", "ServiceException", "service_error",
		Param{Key: "cause", Value: err.Error()})
}

// writeTokens answers login-with-expiry and refresh: 201, the two cookies,
// the expirations in the body, no token header.
func (l *loginKeycloak) writeTokens(w http.ResponseWriter, t tokens) {
	l.setCookies(w, &t)
	b, _ := json.Marshal(struct {
		Access  string `json:"accessTokenExpiration"`
		Refresh string `json:"refreshTokenExpiration"`
	}{expiration(t.Access), expiration(t.Refresh)})
	springJSON(w, http.StatusCreated, b)
}

// expiration is JwtTokenParser.parseExpirationDate: the token's exp as
// Instant.toString ("2026-11-25T23:40:00Z").
func expiration(tok string) string {
	p, err := eureka.Payload(tok)
	if err != nil {
		return ""
	}
	exp, _ := p["exp"].(float64)
	return time.Unix(int64(exp), 0).UTC().Format("2006-01-02T15:04:05Z")
}

// setCookies writes TokenCookieHeaderManager's two Set-Cookie headers (nil
// tokens: both emptied).
func (l *loginKeycloak) setCookies(w http.ResponseWriter, t *tokens) {
	if t == nil {
		t = &tokens{}
	}
	w.Header().Add("Set-Cookie", responseCookie("folioAccessToken", t.Access, "/", t.ExpiresIn, true, l.sameSite, l.now()))
	w.Header().Add("Set-Cookie", responseCookie("folioRefreshToken", t.Refresh, "/authn", t.RefreshExpires, true, l.sameSite, l.now()))
}

// responseCookie is Spring's ResponseCookie.toString: name=value; Path;
// Max-Age; Expires (now + Max-Age, the epoch for 0); Secure; HttpOnly;
// SameSite. A negative maxAge leaves Max-Age and Expires out.
func responseCookie(name, value, path string, maxAge int64, secure bool, sameSite string, now time.Time) string {
	var b strings.Builder
	b.WriteString(name + "=" + value)
	if path != "" {
		b.WriteString("; Path=" + path)
	}
	if maxAge >= 0 {
		exp := time.Unix(0, 0)
		if maxAge > 0 {
			exp = now.Add(time.Duration(maxAge) * time.Second)
		}
		b.WriteString("; Max-Age=" + strconv.FormatInt(maxAge, 10) + "; Expires=" + exp.UTC().Format(http.TimeFormat))
	}
	if secure {
		b.WriteString("; Secure; HttpOnly")
	}
	if sameSite != "" {
		b.WriteString("; SameSite=" + sameSite)
	}
	return b.String()
}

func (l *loginKeycloak) refresh(w http.ResponseWriter, r *http.Request) {
	c, err := r.Cookie("folioRefreshToken")
	if err != nil {
		loginError(w, http.StatusBadRequest, "Required cookie 'folioRefreshToken' for method parameter type String is not present",
			"MissingRequestCookieException", "validation_error")
		return
	}
	refused := func(cause string) {
		slog.Info("refresh refused", "cause", cause)
		loginError(w, http.StatusUnprocessableEntity, "Authorization server unable to process token refresh request",
			"TokenRefreshException", "token.refresh.unprocessable")
	}
	// The tenant is the refresh token's realm, whatever X-Okapi-Tenant says.
	p, err := eureka.Payload(c.Value)
	iss, _ := p["iss"].(string)
	if err != nil || iss == "" {
		refused("unreadable refresh token")
		return
	}
	tenant := iss[strings.LastIndexByte(iss, '/')+1:]
	secret, err := l.kc.LoginClientSecret(r.Context(), tenant)
	if err != nil {
		refused(err.Error())
		return
	}
	resp, err := l.kc.Token(r.Context(), tenant, url.Values{"grant_type": {"refresh_token"},
		"client_id": {tenant + eureka.LoginClientSuffix}, "client_secret": {secret}, "refresh_token": {c.Value}}, "")
	if err != nil || resp.Status != http.StatusOK {
		if err == nil {
			err = errors.New(resp.OAuthError())
		}
		refused(err.Error())
		return
	}
	var t tokens
	if err := json.Unmarshal(resp.Body, &t); err != nil {
		refused(err.Error())
		return
	}
	l.writeTokens(w, t)
}

func (l *loginKeycloak) logout(w http.ResponseWriter, r *http.Request) {
	c, err := r.Cookie("folioRefreshToken")
	if err != nil || strings.TrimSpace(c.Value) == "" {
		l.logoutAll(w, r)
		return
	}
	tenant := r.Header.Get("X-Okapi-Tenant")
	secret, err := l.kc.LoginClientSecret(r.Context(), tenant)
	var resp eureka.Response
	if err == nil {
		resp, err = l.kc.Logout(r.Context(), tenant, url.Values{"refresh_token": {c.Value},
			"client_id": {tenant + eureka.LoginClientSuffix}, "client_secret": {secret}})
	}
	if err == nil && resp.Status/100 != 2 {
		err = fmt.Errorf("%d %s", resp.Status, resp.OAuthError())
	}
	l.loggedOut(w, r, err)
}

func (l *loginKeycloak) logoutAll(w http.ResponseWriter, r *http.Request) {
	tenant, userID := r.Header.Get("X-Okapi-Tenant"), r.Header.Get("X-Okapi-User-Id")
	err := errors.New("User id is not found")
	if userID != "" {
		var kcID string
		if kcID, err = l.kc.UserIDByUserID(r.Context(), tenant, userID); err == nil {
			var resp eureka.Response
			resp, err = l.kc.Admin(r.Context(), http.MethodPost, "/"+url.PathEscape(tenant)+"/users/"+kcID+"/logout", nil)
			if err == nil && resp.Status/100 != 2 {
				err = fmt.Errorf("%d", resp.Status)
			}
		}
	}
	l.loggedOut(w, r, err)
}

// loggedOut ends a logout: 204 with both cookies emptied, or on failure
// mod-login-keycloak's 422. Either way the request's other cookies are
// invalidated too (the @InvalidateCookies advice; its filter on failure).
func (l *loginKeycloak) loggedOut(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		slog.Info("logout failed", "cause", err.Error())
		invalidateCookies(w, r)
		loginError(w, http.StatusUnprocessableEntity, "Authorization server unable to process token logout request",
			"TokenLogoutException", "token.logout.unprocessable")
		return
	}
	l.setCookies(w, nil)
	invalidateCookies(w, r)
	w.WriteHeader(http.StatusNoContent)
}

// invalidateCookies is InvalidateCookieUtils: every request cookie that no
// Set-Cookie of the answer starts with gets an empty one with Max-Age=0 (a
// request cookie carries no path, domain or flags, so none are written).
func invalidateCookies(w http.ResponseWriter, r *http.Request) {
	set := w.Header().Values("Set-Cookie")
	for _, c := range r.Cookies() {
		present := false
		for _, s := range set {
			if strings.HasPrefix(s, c.Name) {
				present = true
			}
		}
		if !present {
			w.Header().Add("Set-Cookie", responseCookie(c.Name, "", "", 0, false, "", time.Time{}))
		}
	}
}

// realmSetupTimeout bounds one realm set-up in Keycloak.
const realmSetupTimeout = 5 * time.Minute

// ensureRealm sets the tenant's realm up once per process (and again when a
// test dropped it: the next login finds no login client and retries).
func (l *loginKeycloak) ensureRealm(ctx context.Context, tenant string) error {
	l.mu.Lock()
	done := l.realms[tenant]
	l.mu.Unlock()
	if done {
		return nil
	}
	spec := eureka.RealmSpec{Tenant: tenant, AccessTokenTTL: l.ttl, Resources: Resources()}
	// The set-up outlives a client that stopped waiting (on a busy machine Keycloak takes a minute
	// or more to create a realm): cut short, the next login would start it all over again.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), realmSetupTimeout)
	defer cancel()
	if err := l.kc.EnsureRealm(ctx, spec); err != nil {
		return err
	}
	l.kc.ForgetSecret(tenant)
	l.mu.Lock()
	if l.realms == nil {
		l.realms = map[string]bool{}
	}
	l.realms[tenant] = true
	l.mu.Unlock()
	return nil
}

// Resources are the permission resources of a realm: one per path prefix of
// the modules on Eureka ("/circulation", "/loan-storage", ...).
func Resources() []string {
	var out []string
	for _, m := range catalog.Modules {
		if m.On(catalog.Eureka) {
			for _, p := range m.Prefixes {
				out = append(out, "/"+p)
			}
		}
	}
	return out
}

// migrate creates the Keycloak account of a seeded FOLIO user whose password
// matches its mod-login credentials (see loginKeycloak). false: nothing to do.
func (l *loginKeycloak) migrate(ctx context.Context, tenant, username, password string) (bool, error) {
	if username == "" || l.db == nil {
		return false, nil
	}
	var id string
	var active *bool
	err := l.db.QueryRow(ctx, "SELECT id::text, (jsonb->>'active')::boolean FROM "+
		storage.MustLookup("mod_users", "users").QualifiedName(tenant)+" WHERE "+storage.FieldExpr("username")+
		" = lower(public.f_unaccent($1)) LIMIT 1", username).Scan(&id, &active)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var doc []byte
	err = l.db.QueryRow(ctx, "SELECT jsonb FROM "+storage.MustLookup("mod_login", "auth_credentials").QualifiedName(tenant)+
		" WHERE "+storage.FieldExpr("userId")+" = lower($1) LIMIT 1", id).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var rec credentials.Record
	if json.Unmarshal(doc, &rec) != nil || !rec.Matches(password) {
		return false, nil
	}
	err = l.kc.CreateUser(ctx, tenant, eureka.User{Username: username, UserID: id, Password: password,
		Enabled: active == nil || *active, Staff: true})
	var ae *eureka.AdminError
	if errors.As(err, &ae) && ae.Status == http.StatusConflict {
		return false, nil // the account exists: Keycloak's answer stands
	}
	return err == nil, err
}
