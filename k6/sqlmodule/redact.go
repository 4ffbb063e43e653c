package sqlmodule

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// redacted replaces a password wherever an error message would repeat it.
const redacted = "xxxxx"

// dsnSecrets returns the password of a PostgreSQL connection string in every
// spelling an error message might repeat it: as written, URL-decoded and
// Go-quoted. Driver and net/url errors echo the raw DSN (e.g.
// `parse "postgres://u:PASSWORD@h:x/db": invalid port`), and JS exceptions
// end up in k6's output, so every message is passed through redact.
//
// Both forms lib/pq accepts are covered: URLs (userinfo and ?password=) and
// key/value strings (password=... or password='...').
func dsnSecrets(dsn string) []string {
	var found []string
	if i := strings.Index(dsn, "://"); i >= 0 {
		found = append(found, urlSecrets(dsn[i+3:])...)
	} else {
		found = append(found, keyValueSecrets(dsn)...)
	}

	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, s := range found {
		add(s)
		if dec, err := url.PathUnescape(s); err == nil {
			add(dec)
		}
		if dec, err := url.QueryUnescape(s); err == nil {
			add(dec)
		}
		q := strconv.Quote(s)
		add(q[1 : len(q)-1])
	}
	// Longest first, so a password that contains another is replaced whole.
	sort.Slice(out, func(a, b int) bool { return len(out[a]) > len(out[b]) })
	return out
}

// urlSecrets scans by hand instead of url.Parse because the DSNs that most
// need redacting are the malformed ones url.Parse rejects.
func urlSecrets(rest string) []string {
	var out []string
	authority, query := rest, ""
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		authority, query = rest[:q], rest[q+1:]
	}
	// The userinfo ends at the last '@' of the authority; a password may
	// (wrongly, but people do it) contain '/' or '@', so do not stop at '/'.
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		userinfo := authority[:at]
		if c := strings.IndexByte(userinfo, ':'); c >= 0 {
			out = append(out, userinfo[c+1:])
		}
	}
	for _, pair := range strings.Split(query, "&") {
		k, v, ok := strings.Cut(pair, "=")
		if ok && strings.EqualFold(k, "password") {
			out = append(out, v)
		}
	}
	return out
}

// keyValueSecrets finds password=value in libpq's key/value syntax, where a
// value is a bare word or single-quoted with backslash escapes.
func keyValueSecrets(dsn string) []string {
	var out []string
	s := dsn
	for {
		i := strings.Index(s, "password")
		if i < 0 {
			return out
		}
		s = s[i+len("password"):]
		t := strings.TrimLeft(s, " \t\n")
		if !strings.HasPrefix(t, "=") {
			continue
		}
		t = strings.TrimLeft(t[1:], " \t\n")
		if strings.HasPrefix(t, "'") {
			var raw, val strings.Builder
			for j := 1; j < len(t); j++ {
				if t[j] == '\\' && j+1 < len(t) {
					raw.WriteByte(t[j])
					raw.WriteByte(t[j+1])
					val.WriteByte(t[j+1])
					j++
					continue
				}
				if t[j] == '\'' {
					break
				}
				raw.WriteByte(t[j])
				val.WriteByte(t[j])
			}
			out = append(out, raw.String(), val.String())
		} else {
			end := strings.IndexAny(t, " \t\n")
			if end < 0 {
				end = len(t)
			}
			out = append(out, t[:end])
		}
		s = t
	}
}

// redact removes every secret from msg.
func redact(msg string, secrets []string) string {
	for _, s := range secrets {
		msg = strings.ReplaceAll(msg, s, redacted)
	}
	return msg
}
