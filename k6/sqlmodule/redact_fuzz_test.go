package sqlmodule

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// FuzzRedactURLPassword: whatever the password, the error net/url gives for
// the DSN (which quotes it) and the DSN itself come out without it.
func FuzzRedactURLPassword(f *testing.F) {
	for _, seed := range []string{"s3cret", "p@ss/w:rd", "with space", `q"uo'te\`, "ünïcode", "%41%42", "\x01ctl"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, pw string) {
		// '?' and '#' end a URL's authority, so no DSN can carry them
		// unescaped. A password with an 'x' could be re-formed by the mask
		// "xxxxx" and its neighbours without anything having leaked.
		if pw == "" || strings.ContainsAny(pw, "?#x") {
			t.Skip()
		}
		quoted := strconv.Quote(pw)
		quoted = quoted[1 : len(quoted)-1]
		for _, dsn := range []string{
			"postgres://folio:" + pw + "@127.0.0.1:notaport/folio",
			"postgres://folio:" + url.PathEscape(pw) + "@127.0.0.1:notaport/folio?sslmode=disable",
			"postgres://folio@127.0.0.1:notaport/folio?password=" + url.QueryEscape(pw),
		} {
			msg := dsn
			if _, err := url.Parse(dsn); err != nil {
				msg = err.Error() + " | " + dsn
			}
			got := redact(msg, dsnSecrets(dsn))
			if strings.Contains(got, pw) {
				t.Fatalf("password %q survives in %q", pw, got)
			}
			if !strings.Contains(quoted, "x") && strings.Contains(got, quoted) {
				t.Fatalf("quoted password %q survives in %q", quoted, got)
			}
		}
	})
}
