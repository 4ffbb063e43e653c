package okapi

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSignerVerify(t *testing.T) {
	s, err := NewSigner([]byte("unit-secret-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	c := Claims{Type: "access", Tenant: "t1", Sub: "u", UserID: "id", Iat: now.Unix(), Exp: now.Add(time.Minute).Unix()}
	tok := s.Sign(c)
	// Twice: the second answer comes from the cache and must be the same.
	for i := 0; i < 2; i++ {
		got, err := s.Verify(tok, "access", now)
		if err != nil || got != c {
			t.Fatalf("verify %d: %+v %v", i, got, err)
		}
	}
	// Expiry is checked on cached tokens too.
	if _, err := s.Verify(tok, "access", now.Add(2*time.Minute)); !errors.Is(err, ErrExpired) {
		t.Fatalf("expired cached token: %v", err)
	}
	if _, err := s.Verify(tok, "refresh", now); !errors.Is(err, ErrWrongType) {
		t.Fatalf("access token used as refresh: %v", err)
	}
	parts := strings.Split(tok, ".")
	tampered := parts[0] + "." + strings.Replace(parts[1], parts[1][5:6], "A", 1) + "." + parts[2]
	if tampered != tok {
		if _, err := s.Verify(tampered, "access", now); err == nil {
			t.Fatal("tampered token verified")
		}
	}
	other, _ := NewSigner([]byte("other-secret-0123456789"))
	if _, err := other.Verify(tok, "access", now); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("foreign signer: %v", err)
	}
	for _, bad := range []string{"", "a.b", "a.b.c", "x.y.z.w"} {
		if _, err := s.Verify(bad, "access", now); err == nil {
			t.Errorf("%q verified", bad)
		}
	}
	if _, err := NewSigner([]byte("short")); err == nil {
		t.Error("short secret accepted")
	}
}
