package eureka

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Claims are what the sidecar and the modules read from a Keycloak access
// token: the realm (the last segment of iss) is the tenant, user_id the FOLIO
// user, sid the session. sub is not relied on: mgr-tenants maps the username
// into it and Keycloak's subject mapper writes the Keycloak user id.
type Claims struct {
	Issuer string `json:"iss"`
	Exp    int64  `json:"exp"`
	UserID string `json:"user_id"`
	SID    string `json:"sid"`
	Sub    string `json:"sub"`
	Type   string `json:"typ"`
}

// Tenant is the realm that issued the token (JwtUtils.getOriginTenant).
func (c Claims) Tenant() string { return c.Issuer[strings.LastIndexByte(c.Issuer, '/')+1:] }

// Errors of Verify; clients only ever see the sidecar's generic 401.
var (
	ErrMalformed   = errors.New("malformed token")
	ErrIssuer      = errors.New("token issuer is not this Keycloak")
	ErrSignature   = errors.New("token signature does not verify")
	ErrExpired     = errors.New("token has expired")
	ErrUnknownKey  = errors.New("token signed with an unknown key")
	ErrNotAnAccess = errors.New("not an access token")
)

// Verifier checks RS256 access tokens against the issuing realm's JWKS, as
// the sidecar's JsonWebTokenParser does: the issuer must be this Keycloak's
// realm URL, the signature verify with the realm key named by kid, the token
// not be expired. Keys are fetched once per realm and again for an unknown
// kid; verified tokens are cached until they expire.
type Verifier struct {
	KC  *Keycloak
	Now func() time.Time

	mu    sync.RWMutex
	keys  map[string]map[string]*rsa.PublicKey // realm → kid → key
	seen  map[string]Claims                    // verified token → claims
	fetch sync.Mutex
}

// maxSeen bounds the verified-token cache (tokens are few in a load test).
const maxSeen = 20000

func (v *Verifier) now() time.Time {
	if v.Now != nil {
		return v.Now()
	}
	return time.Now()
}

// Verify returns the token's claims or why it is refused.
func (v *Verifier) Verify(ctx context.Context, tok string) (Claims, error) {
	v.mu.RLock()
	c, ok := v.seen[tok]
	v.mu.RUnlock()
	if ok {
		if v.now().Unix() >= c.Exp {
			return Claims{}, ErrExpired
		}
		return c, nil
	}
	c, err := v.verify(ctx, tok)
	if err != nil {
		return Claims{}, err
	}
	v.mu.Lock()
	if v.seen == nil || len(v.seen) >= maxSeen {
		v.seen = map[string]Claims{}
	}
	v.seen[tok] = c
	v.mu.Unlock()
	return c, nil
}

func (v *Verifier) verify(ctx context.Context, tok string) (Claims, error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return Claims{}, ErrMalformed
	}
	var head struct {
		Alg, Kid string
	}
	hb, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	pb, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || json.Unmarshal(hb, &head) != nil || head.Alg != "RS256" {
		return Claims{}, ErrMalformed
	}
	var c Claims
	if err := json.Unmarshal(pb, &c); err != nil {
		return Claims{}, ErrMalformed
	}
	realm, ok := strings.CutPrefix(c.Issuer, v.KC.URL+"/realms/")
	if !ok || realm == "" || strings.Contains(realm, "/") {
		return Claims{}, ErrIssuer
	}
	if c.Type != "" && c.Type != "Bearer" {
		return Claims{}, ErrNotAnAccess
	}
	key, err := v.key(ctx, realm, head.Kid)
	if err != nil {
		return Claims{}, err
	}
	h := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(key, crypto.SHA256, h[:], sig) != nil {
		return Claims{}, ErrSignature
	}
	if v.now().Unix() >= c.Exp {
		return Claims{}, ErrExpired
	}
	return c, nil
}

func (v *Verifier) key(ctx context.Context, realm, kid string) (*rsa.PublicKey, error) {
	v.mu.RLock()
	k := v.keys[realm][kid]
	v.mu.RUnlock()
	if k != nil {
		return k, nil
	}
	// One fetch at a time: a burst of requests with a new realm's tokens
	// asks Keycloak once.
	v.fetch.Lock()
	defer v.fetch.Unlock()
	v.mu.RLock()
	k = v.keys[realm][kid]
	v.mu.RUnlock()
	if k != nil {
		return k, nil
	}
	keys, err := v.KC.realmKeys(ctx, realm)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	if v.keys == nil {
		v.keys = map[string]map[string]*rsa.PublicKey{}
	}
	v.keys[realm] = keys
	v.mu.Unlock()
	if k = keys[kid]; k == nil {
		return nil, ErrUnknownKey
	}
	return k, nil
}

// realmKeys reads a realm's JWKS (its RS256 signing keys by kid).
func (k *Keycloak) realmKeys(ctx context.Context, realm string) (map[string]*rsa.PublicKey, error) {
	r, err := k.do(ctx, http.MethodGet, "/realms/"+realm+"/protocol/openid-connect/certs", "", nil, "")
	if err != nil {
		return nil, err
	}
	if r.Status != http.StatusOK {
		return nil, fmt.Errorf("%w: realm %s has no keys (%d)", ErrUnknownKey, realm, r.Status)
	}
	var set struct {
		Keys []struct {
			Kid, Kty, Alg, Use, N, E string
		} `json:"keys"`
	}
	if err := json.Unmarshal(r.Body, &set); err != nil {
		return nil, err
	}
	out := map[string]*rsa.PublicKey{}
	for _, j := range set.Keys {
		if j.Kty != "RSA" || (j.Use != "" && j.Use != "sig") {
			continue
		}
		n, err1 := base64.RawURLEncoding.DecodeString(j.N)
		e, err2 := base64.RawURLEncoding.DecodeString(j.E)
		if err1 != nil || err2 != nil {
			continue
		}
		out[j.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	}
	return out, nil
}

// Payload decodes a JWT's claims without verifying it (mod-login-keycloak
// reads the expiry and the tenant of Keycloak's own answers this way).
func Payload(tok string) (map[string]any, error) {
	parts := strings.Split(tok, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, ErrMalformed
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return nil, ErrMalformed
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, ErrMalformed
	}
	return m, nil
}
