package okapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/credentials"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var (
	usersTable = storage.MustLookup("mod_users", "users")
	credsTable = storage.MustLookup("mod_login", "auth_credentials")
)

// Since mod-login 7.13.1 (MODLOGIN-164) an unknown user, a wrong password
// and an inactive user get one answer, so a login error no longer tells which
// usernames exist; up to 7.13.0 each had its own message and code. The
// gateway follows the mod-login version of the release profile.
const (
	genericLoginMessage = "Wrong username or wrong password or account blocked"
	genericLoginCode    = "wrong.username.or.wrong.password.or.account.blocked"
)

// genericLoginErrors reports whether the mod-login among ids (module ids,
// "mod-login-7.13.1") answers every login failure alike.
func genericLoginErrors(ids []string) bool {
	return releaseAtLeast(ids, "mod-login", [3]int{7, 13, 1}, false)
}

// releaseAtLeast reports whether module's id among ids ("mod-login-7.13.1")
// has a version of at least min (major, minor, patch); ifUnknown when the
// module is not listed or its version does not parse.
func releaseAtLeast(ids []string, module string, min [3]int, ifUnknown bool) bool {
	for _, id := range ids {
		v, ok := strings.CutPrefix(id, module+"-")
		if !ok {
			continue
		}
		var got [3]int
		if _, err := fmt.Sscanf(v, "%d.%d.%d", &got[0], &got[1], &got[2]); err != nil {
			return ifUnknown
		}
		for i := range got {
			if got[i] != min[i] {
				return got[i] > min[i]
			}
		}
		return true
	}
	return ifUnknown
}

// expiryFormat is how mod-login writes accessTokenExpiration (ISO-8601 UTC).
const expiryFormat = "2006-01-02T15:04:05Z"

// authn plays mod-login: /authn/login, /authn/login-with-expiry,
// /authn/refresh and /authn/logout.
func (g *Gateway) authn(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		textError(w, http.StatusMethodNotAllowed, "Method not allowed")
		return
	}
	switch r.URL.Path {
	case "/authn/refresh":
		g.refresh(w, r)
		return
	case "/authn/logout":
		g.logout(w, r)
		return
	}
	tenant := r.Header.Get("X-Okapi-Tenant")
	if tenant == "" {
		tenant = "supertenant"
	}
	if !g.tenantExists(r.Context(), tenant) {
		textError(w, http.StatusBadRequest, "No such Tenant "+tenant)
		return
	}
	if !storage.CheckJSONContentType(w, r) {
		return
	}
	body, err := storage.DecodeObject(w, r)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		textError(w, http.StatusRequestEntityTooLarge, "Request body too large")
		return
	case err != nil:
		textError(w, http.StatusBadRequest, "Json content error: "+err.Error())
		return
	}
	username, _ := body["username"].(string)
	password, _ := body["password"].(string)
	if username == "" {
		loginError(w, "You must provide a username or userId", "username.missing", "username", "")
		return
	}
	userID, active, err := g.lookupUser(r, tenant, username)
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && strings.HasPrefix(pe.Code, "22"):
		// A username PostgreSQL cannot compare (a NUL character: 22021) is
		// the client's mistake. mod-login looks the user up at mod-users,
		// which answers such a value 400 (RMB maps a data exception so), and
		// a failed lookup is mod-login's 422, never a 500.
		if g.loginGeneric {
			loginError(w, genericLoginMessage, genericLoginCode, "username", username)
			return
		}
		loginError(w, "Error verifying user existence: Error looking up user at url '"+g.selfURL+"/users?query=username=="+
			url.QueryEscape(username)+"' Expected status code 200, got '400' :"+pe.Message, "username.incorrect", "username", username)
		return
	case errors.Is(err, storage.ErrNotFound):
		if g.loginGeneric {
			loginError(w, genericLoginMessage, genericLoginCode, "username", username)
			return
		}
		loginError(w, "Error verifying user existence: No user found by username "+username, "username.incorrect", "username", username)
		return
	case err != nil:
		g.cfg.Log.Error("login: reading user", "err", err)
		textError(w, http.StatusInternalServerError, "Internal Server Error")
		return
	case !active:
		if g.loginGeneric {
			loginError(w, genericLoginMessage, genericLoginCode, "username", username)
			return
		}
		loginError(w, "User must be flagged as active", "user.blocked", "username", username)
		return
	}
	rec, err := g.credentialsOf(r, tenant, userID)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && !rec.Matches(password)) {
		// Same answer whether the user has no credentials or a wrong one.
		if g.loginGeneric {
			loginError(w, genericLoginMessage, genericLoginCode, "username", username)
			return
		}
		loginError(w, "Password does not match", "password.incorrect", "username", username)
		return
	}
	if err != nil {
		g.cfg.Log.Error("login: reading credentials", "err", err)
		textError(w, http.StatusInternalServerError, "Internal Server Error")
		return
	}
	access, refresh, accessExp, refreshExp, err := g.issue(r, tenant, username, userID)
	if err != nil {
		g.cfg.Log.Error("login: storing refresh token", "err", err)
		textError(w, http.StatusInternalServerError, "Internal Server Error")
		return
	}
	if r.URL.Path == "/authn/login" {
		// Legacy: token in the x-okapi-token header and the body, no cookies.
		// Spelt in lower case as mod-login writes it (login.raml and RMB's
		// generated PostAuthnLoginResponse.headersFor201().withXOkapiToken):
		// PTF's JMeter plans extract it from the raw header text with the
		// regex `x-okapi-token: (.*)`, which Go's canonical X-Okapi-Token
		// does not match.
		storage.SetRawHeader(w.Header(), "x-okapi-token", access)
		b, _ := json.Marshal(map[string]string{"okapiToken": access, "refreshToken": refresh})
		storage.WriteJSON(w, http.StatusCreated, b)
		return
	}
	g.writeCookies(w, access, refresh, accessExp, refreshExp)
}

// writeCookies answers login-with-expiry and refresh: 201, two cookies,
// the two expirations in the body, no token header.
func (g *Gateway) writeCookies(w http.ResponseWriter, access, refresh string, accessExp, refreshExp time.Time) {
	now := time.Now()
	w.Header().Add("Set-Cookie", g.cookie("folioAccessToken", access, "/", int(accessExp.Sub(now).Seconds())))
	w.Header().Add("Set-Cookie", g.cookie("folioRefreshToken", refresh, "/authn", int(refreshExp.Sub(now).Seconds())))
	b, _ := json.Marshal(map[string]string{
		"accessTokenExpiration":  accessExp.UTC().Format(expiryFormat),
		"refreshTokenExpiration": refreshExp.UTC().Format(expiryFormat),
	})
	storage.WriteJSON(w, http.StatusCreated, b)
}

// cookie renders mod-login's Set-Cookie value (LoginAPI.java accessTokenCookie).
func (g *Gateway) cookie(name, value, path string, maxAge int) string {
	return name + "=" + value + "; Max-Age=" + strconv.Itoa(maxAge) + "; Path=" + path +
		"; Secure; HttpOnly; SameSite=" + g.cfg.SameSite
}

// issue signs an access token and stores + signs a single-use refresh token.
func (g *Gateway) issue(r *http.Request, tenant, username, userID string) (access, refresh string, accessExp, refreshExp time.Time, err error) {
	now := time.Now()
	accessExp = now.Add(g.cfg.TokenTTL)
	refreshExp = now.Add(g.cfg.RefreshTTL)
	access = g.cfg.Signer.Sign(Claims{Type: "access", Tenant: tenant, Sub: username, UserID: userID,
		Iat: now.Unix(), Exp: accessExp.Unix()})
	jti := storage.NewUUID()
	_, err = g.cfg.DB.Exec(r.Context(), "INSERT INTO "+storage.RefreshTokensTable(tenant)+
		" (id, user_id, is_revoked, expires_at) VALUES ($1, $2, false, $3)", jti, userID, refreshExp.Unix())
	if err != nil {
		return
	}
	refresh = g.cfg.Signer.Sign(Claims{Type: "refresh", Tenant: tenant, Sub: username, UserID: userID,
		Iat: now.Unix(), Exp: refreshExp.Unix(), Jti: jti})
	return
}

// refresh redeems a refresh token once (RefreshTokenStore.checkTokenNotRevoked):
// the UPDATE flips is_revoked only if it was false, so of two concurrent uses
// exactly one wins. Any failure is mod-login's 422.
func (g *Gateway) refresh(w http.ResponseWriter, r *http.Request) {
	c, err := r.Cookie("folioRefreshToken")
	if err != nil || c.Value == "" {
		textError(w, http.StatusBadRequest, "No refresh token: send it in the folioRefreshToken cookie")
		return
	}
	claims, err := g.cfg.Signer.Verify(c.Value, "refresh", time.Now())
	if err == nil {
		if t := r.Header.Get("X-Okapi-Tenant"); t != "" && t != claims.Tenant {
			err = errors.New("tenant mismatch")
		}
	}
	if err == nil && !g.tenantExists(r.Context(), claims.Tenant) {
		err = errors.New("no such tenant")
	}
	if err == nil {
		var uid string
		err = g.cfg.DB.QueryRow(r.Context(), "UPDATE "+storage.RefreshTokensTable(claims.Tenant)+
			" SET is_revoked = true WHERE id = $1 AND NOT is_revoked AND expires_at >= $2 RETURNING user_id::text",
			claims.Jti, time.Now().Unix()).Scan(&uid)
		if errors.Is(err, pgx.ErrNoRows) {
			err = errors.New("refresh token revoked, already used or expired")
		}
	}
	if err != nil {
		g.cfg.Log.Info("refresh rejected", "reason", err.Error())
		loginError(w, "Invalid token", "token.refresh.invalid", "", "")
		return
	}
	access, refresh, accessExp, refreshExp, err := g.issue(r, claims.Tenant, claims.Sub, claims.UserID)
	if err != nil {
		g.cfg.Log.Error("refresh: storing token", "err", err)
		textError(w, http.StatusInternalServerError, "Internal Server Error")
		return
	}
	g.writeCookies(w, access, refresh, accessExp, refreshExp)
}

// logout revokes the refresh token (if any) and clears both cookies: 204.
func (g *Gateway) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie("folioRefreshToken"); err == nil {
		if claims, err := g.cfg.Signer.Verify(c.Value, "refresh", time.Now()); err == nil && storage.ValidTenant(claims.Tenant) {
			_, _ = g.cfg.DB.Exec(r.Context(), "UPDATE "+storage.RefreshTokensTable(claims.Tenant)+
				" SET is_revoked = true WHERE id = $1", claims.Jti)
		}
	}
	past := "; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure; HttpOnly; SameSite=" + g.cfg.SameSite
	w.Header().Add("Set-Cookie", "folioAccessToken=; Path=/"+past)
	w.Header().Add("Set-Cookie", "folioRefreshToken=; Path=/authn"+past)
	w.WriteHeader(http.StatusNoContent)
}

// loginError is mod-login's 422 {"errors":[...]} body.
func loginError(w http.ResponseWriter, msg, code, key, value string) {
	e := storage.ValidationError{Message: msg, Type: "error", Code: code}
	if key != "" {
		e.Parameters = []storage.Param{{Key: key, Value: value}}
	}
	storage.WriteErrors(w, http.StatusUnprocessableEntity, e)
}

func (g *Gateway) lookupUser(r *http.Request, tenant, username string) (id string, active bool, err error) {
	var doc []byte
	err = g.cfg.DB.QueryRow(r.Context(), "SELECT id::text, jsonb FROM "+usersTable.QualifiedName(tenant)+
		" WHERE "+storage.FieldExpr("username")+" = lower(public.f_unaccent($1)) LIMIT 1", username).Scan(&id, &doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, storage.ErrNotFound
	}
	if err != nil {
		return "", false, err
	}
	var u struct {
		Active *bool `json:"active"`
	}
	// A record whose "active" is not a boolean is not an active user: that
	// would let anyone with its password in (mod-login's 422 "must be flagged
	// as active", not a 500).
	if err := json.Unmarshal(doc, &u); err != nil {
		return id, false, nil
	}
	return id, u.Active == nil || *u.Active, nil
}

func (g *Gateway) credentialsOf(r *http.Request, tenant, userID string) (credentials.Record, error) {
	var rec credentials.Record
	var doc []byte
	err := g.cfg.DB.QueryRow(r.Context(), "SELECT jsonb FROM "+credsTable.QualifiedName(tenant)+
		" WHERE "+storage.FieldExpr("userId")+" = lower($1) LIMIT 1", strings.ToLower(userID)).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return rec, storage.ErrNotFound
	}
	if err != nil {
		return rec, err
	}
	err = json.Unmarshal(doc, &rec)
	return rec, err
}
