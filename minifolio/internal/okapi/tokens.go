package okapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"
)

// Claims are mod-authtoken's JWT claims (tokens/AccessToken.java,
// tokens/RefreshToken.java). Jti identifies a refresh token's row.
type Claims struct {
	Type   string `json:"type"` // "access" | "refresh"
	Tenant string `json:"tenant"`
	Sub    string `json:"sub"` // username
	UserID string `json:"user_id"`
	Iat    int64  `json:"iat"`
	Exp    int64  `json:"exp"`
	Jti    string `json:"jti,omitempty"`
}

// Signer signs and verifies HS256 JWTs with one secret. The secret comes from
// the environment (MINIFOLIO_TOKEN_SECRET) and never appears in logs or argv.
type Signer struct {
	secret []byte
	// verified caches access tokens that passed Verify: a load test sends
	// the same token thousands of times, and HMAC + JSON per request is
	// measurable in the gateway's profile. Expiry is still checked per call.
	mu       sync.RWMutex
	verified map[string]Claims
}

// maxVerified bounds the cache; past it the cache starts over (tokens are
// few in a load test, many only under attack).
const maxVerified = 10000

// NewSigner returns a Signer; the secret must be at least 16 bytes.
func NewSigner(secret []byte) (*Signer, error) {
	if len(secret) < 16 {
		return nil, errors.New("token secret too short: MINIFOLIO_TOKEN_SECRET must be at least 16 characters")
	}
	return &Signer{secret: append([]byte(nil), secret...), verified: map[string]Claims{}}, nil
}

var jwtHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

// Sign encodes c as a signed JWT.
func (s *Signer) Sign(c Claims) string {
	body, _ := json.Marshal(c)
	unsigned := jwtHeader + "." + base64.RawURLEncoding.EncodeToString(body)
	return unsigned + "." + s.mac(unsigned)
}

func (s *Signer) mac(unsigned string) string {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(unsigned))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Errors of Verify. Clients only ever see "Invalid token" (mod-authtoken logs
// the detail and answers generically); the detail goes to the gateway log.
var (
	ErrMalformed    = errors.New("malformed token")
	ErrBadSignature = errors.New("invalid token signature")
	ErrExpired      = errors.New("token has expired")
	ErrWrongType    = errors.New("wrong token type")
)

// Verify checks signature, type and expiry and returns the claims.
func (s *Signer) Verify(tok, wantType string, now time.Time) (Claims, error) {
	s.mu.RLock()
	c, ok := s.verified[tok]
	s.mu.RUnlock()
	if ok && c.Type == wantType {
		if now.Unix() > c.Exp {
			return Claims{}, ErrExpired
		}
		return c, nil
	}
	c, err := s.verify(tok, wantType, now)
	// Only access tokens are cached: refresh tokens are single use anyway.
	if err == nil && wantType == "access" {
		s.mu.Lock()
		if len(s.verified) >= maxVerified {
			s.verified = map[string]Claims{}
		}
		s.verified[tok] = c
		s.mu.Unlock()
	}
	return c, err
}

func (s *Signer) verify(tok, wantType string, now time.Time) (Claims, error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return Claims{}, ErrMalformed
	}
	if !hmac.Equal([]byte(s.mac(parts[0]+"."+parts[1])), []byte(parts[2])) {
		return Claims{}, ErrBadSignature
	}
	body, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return Claims{}, ErrMalformed
	}
	var c Claims
	if err := json.Unmarshal(body, &c); err != nil || c.Tenant == "" {
		return Claims{}, ErrMalformed
	}
	if c.Type != wantType {
		return Claims{}, ErrWrongType
	}
	if now.Unix() > c.Exp {
		return Claims{}, ErrExpired
	}
	return c, nil
}
