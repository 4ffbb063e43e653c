// Package eureka is minifolio's Eureka platform: a Kong-like gateway, the
// sidecar every module runs behind, and the Keycloak client both use (token
// endpoint, JWKS, the admin API that sets a tenant's realm up as mgr-tenants
// does). The Okapi platform lives in package okapi; the release profile picks
// one of the two.
package eureka

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Keycloak talks to one Keycloak server: the realms' token endpoints (login,
// refresh, permission decisions), their JWKS, and the admin API with the
// master realm's admin (whose password comes from the environment only).
type Keycloak struct {
	URL           string // e.g. http://127.0.0.1:58180, no trailing slash
	AdminPassword string
	hc            *http.Client

	mu       sync.Mutex
	admin    string    // cached admin access token
	adminExp time.Time // when to fetch a new one
}

// NewKeycloak returns a client with its own keep-alive pool: every sidecar
// asks it for permission decisions and keys.
func NewKeycloak(baseURL, adminPassword string) *Keycloak {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
	}
	return &Keycloak{URL: strings.TrimRight(baseURL, "/"), AdminPassword: adminPassword,
		// Realm creation takes tens of seconds on a busy machine.
		hc: &http.Client{Transport: tr, Timeout: 2 * time.Minute}}
}

// Issuer is the iss claim of the tokens a realm issues (Keycloak writes the
// URL it was called by, and minifolio always calls it by URL).
func (k *Keycloak) Issuer(realm string) string { return k.URL + "/realms/" + realm }

// Response is a raw answer of Keycloak.
type Response struct {
	Status int
	Body   []byte
	Header http.Header
}

// OAuthError is Keycloak's {"error","error_description"}.
func (r Response) OAuthError() string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(r.Body, &e)
	if e.Description != "" {
		return e.Error + ": " + e.Description
	}
	return e.Error
}

// Token posts a form to a realm's token endpoint.
func (k *Keycloak) Token(ctx context.Context, realm string, form url.Values, bearer string) (Response, error) {
	return k.do(ctx, http.MethodPost, "/realms/"+url.PathEscape(realm)+"/protocol/openid-connect/token",
		"application/x-www-form-urlencoded", []byte(form.Encode()), bearer)
}

// Logout ends the session a refresh token belongs to (the OIDC logout endpoint).
func (k *Keycloak) Logout(ctx context.Context, realm string, form url.Values) (Response, error) {
	return k.do(ctx, http.MethodPost, "/realms/"+url.PathEscape(realm)+"/protocol/openid-connect/logout",
		"application/x-www-form-urlencoded", []byte(form.Encode()), "")
}

func (k *Keycloak) do(ctx context.Context, method, path, contentType string, body []byte, bearer string) (Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, k.URL+path, rd)
	if err != nil {
		return Response{}, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := k.hc.Do(req)
	if err != nil {
		return Response{}, fmt.Errorf("keycloak %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return Response{}, err
	}
	return Response{Status: resp.StatusCode, Body: b, Header: resp.Header}, nil
}

// adminToken is an access token of the master realm's admin (admin-cli,
// password grant), cached until shortly before it expires.
func (k *Keycloak) adminToken(ctx context.Context) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.admin != "" && time.Now().Before(k.adminExp) {
		return k.admin, nil
	}
	if k.AdminPassword == "" {
		return "", errors.New("no Keycloak admin password: set FP_KEYCLOAK_ADMIN_PASSWORD")
	}
	r, err := k.Token(ctx, "master", url.Values{"grant_type": {"password"}, "client_id": {"admin-cli"},
		"username": {"admin"}, "password": {k.AdminPassword}}, "")
	if err != nil {
		return "", err
	}
	if r.Status != http.StatusOK {
		return "", fmt.Errorf("keycloak admin login: %d %s", r.Status, r.OAuthError())
	}
	var t struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.Unmarshal(r.Body, &t); err != nil || t.AccessToken == "" {
		return "", fmt.Errorf("keycloak admin login: unreadable answer")
	}
	k.admin, k.adminExp = t.AccessToken, time.Now().Add(time.Duration(max(t.ExpiresIn-10, 1))*time.Second)
	return k.admin, nil
}

// Admin calls Keycloak's admin REST API (path after /admin/realms).
func (k *Keycloak) Admin(ctx context.Context, method, path string, body any) (Response, error) {
	tok, err := k.adminToken(ctx)
	if err != nil {
		return Response{}, err
	}
	var b []byte
	if body != nil {
		if b, err = json.Marshal(body); err != nil {
			return Response{}, err
		}
	}
	ct := ""
	if body != nil {
		ct = "application/json"
	}
	return k.do(ctx, method, "/admin/realms"+path, ct, b, tok)
}

// adminJSON is Admin that expects a 2xx and decodes its body into out.
func (k *Keycloak) adminJSON(ctx context.Context, method, path string, body, out any) error {
	r, err := k.Admin(ctx, method, path, body)
	if err != nil {
		return err
	}
	if r.Status/100 != 2 {
		return &AdminError{Method: method, Path: path, Status: r.Status, Body: string(r.Body)}
	}
	if out != nil && len(r.Body) > 0 {
		return json.Unmarshal(r.Body, out)
	}
	return nil
}

// AdminError is a non-2xx answer of the admin API.
type AdminError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *AdminError) Error() string {
	return fmt.Sprintf("keycloak admin %s %s: %d %.200s", e.Method, e.Path, e.Status, e.Body)
}

// IsNotFound: the admin API answered 404 (no such realm, client or user).
func IsNotFound(err error) bool {
	var ae *AdminError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}
