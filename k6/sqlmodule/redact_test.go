package sqlmodule

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestDSNSecrets(t *testing.T) {
	tests := []struct {
		name string
		dsn  string
		want []string // each must be among the secrets
	}{
		{"url userinfo", "postgres://folio:s3cr3t@127.0.0.1:5432/folio?sslmode=disable", []string{"s3cr3t"}},
		{"url escaped", "postgres://folio:p%40ss%2Fw@db/folio", []string{"p%40ss%2Fw", "p@ss/w"}},
		{"url query password", "postgresql://db/folio?user=folio&password=qp4ss", []string{"qp4ss"}},
		{"malformed url", "postgres://folio:m4lformed@127.0.0.1:notaport/folio", []string{"m4lformed"}},
		{"key value bare", "host=127.0.0.1 user=folio password=kv-secret dbname=folio", []string{"kv-secret"}},
		{"key value quoted", `host=h password = 'it\'s secret' dbname=folio`, []string{`it\'s secret`, "it's secret"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := dsnSecrets(tc.dsn)
			for _, w := range tc.want {
				found := false
				for _, g := range got {
					found = found || g == w
				}
				if !found {
					t.Errorf("dsnSecrets(%q) = %q, missing %q", tc.dsn, got, w)
				}
			}
		})
	}
}

func TestDSNSecretsNoPassword(t *testing.T) {
	for _, dsn := range []string{"postgres://folio@127.0.0.1/folio", "host=/tmp dbname=folio", ""} {
		if got := dsnSecrets(dsn); len(got) != 0 {
			t.Errorf("dsnSecrets(%q) = %q, want none", dsn, got)
		}
	}
}

func TestRedactRealParseError(t *testing.T) {
	// The message net/url really produces for a bad port quotes the whole DSN.
	dsn := "postgres://folio:Sup3r\"Secret@127.0.0.1:notaport/folio"
	//lint:ignore SA1007 the invalid port is what the test needs
	_, err := url.Parse(dsn)
	if err == nil {
		t.Fatal("expected url.Parse to fail")
	}
	msg := redact(err.Error(), dsnSecrets(dsn))
	if strings.Contains(msg, "Sup3r") || strings.Contains(msg, "Secret") {
		t.Fatalf("password survived redaction: %s", msg)
	}
	if !strings.Contains(msg, "invalid port") {
		t.Fatalf("redaction removed the cause: %s", msg)
	}
}

func TestRedactKeepsOtherText(t *testing.T) {
	msg := redact(errors.New(`pq: password authentication failed for user "folio" (28P01)`).Error(), dsnSecrets("postgres://folio:pw-1234@h/db"))
	if msg != `pq: password authentication failed for user "folio" (28P01)` {
		t.Fatalf("message changed: %s", msg)
	}
}

func TestRedactLongestFirst(t *testing.T) {
	// "ab" is the URL form, "a b" wouldn't be found; make sure a secret that
	// contains another secret is replaced whole, leaving no tail behind.
	secrets := dsnSecrets("postgres://u:abc%21def@h/db") // "abc%21def" and "abc!def"
	msg := redact("x abc%21def y abc!def z", secrets)
	if msg != "x "+redacted+" y "+redacted+" z" {
		t.Fatalf("got %q", msg)
	}
}
