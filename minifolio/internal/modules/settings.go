package modules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5/pgxpool"
)

// modSettings plays mod-settings (1.2 Sunflower, 1.3 Trillium): GET
// /settings/entries filtered by the caller's X-Okapi-Permissions
// (SettingsStorage.getCqlLimitPermissions), streamed as its StreamHelper
// writes it, and GET /locale (1.3: the tenant's locale, mod-settings' default
// en-US, USD, UTC until one is PUT; PUT is not served here).
type modSettings struct {
	db *pgxpool.Pool
}

var settingsTable = storage.MustLookup("mod_settings", "settings")

func (s *modSettings) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /settings/entries", s.entries)
	mux.HandleFunc("GET /locale", func(w http.ResponseWriter, r *http.Request) {
		// Vert.x JsonObject.encode of LocaleSettings (nulls left out).
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"locale":"en-US","currency":"USD","timezone":"UTC"}`))
	})
}

// settingsScopes turns permissions into the CQL limits of mod-settings:
// "mod-settings.<global|users|owner>.read.<scope>" per scope. minifolio's
// sidecar passes a route's permissionsDesired as written ("mod-settings.global.*"),
// so a "<kind>.*" permission stands for reading every scope of that kind.
func settingsScopes(perms []string, user string) []string {
	rights := map[string]map[string]bool{} // scope ("" = every scope) → kinds
	for _, p := range perms {
		parts := strings.SplitN(p, ".", 4)
		if len(parts) < 3 || parts[0] != "mod-settings" {
			continue
		}
		scope := ""
		switch {
		case len(parts) == 3 && parts[2] == "*":
		case len(parts) == 4 && parts[2] == "read" && parts[3] != "":
			scope = parts[3]
		default:
			continue
		}
		if rights[scope] == nil {
			rights[scope] = map[string]bool{}
		}
		rights[scope][parts[1]] = true
	}
	var scopes []string
	for sc := range rights {
		scopes = append(scopes, sc)
	}
	sort.Strings(scopes)
	var limits []string
	for _, sc := range scopes {
		r := rights[sc]
		eq := `scope == "` + sc + `"`
		if sc == "" {
			eq = "cql.allRecords=1"
		}
		switch {
		case r["global"] && r["users"]:
			limits = append(limits, eq)
		case r["global"] && r["owner"] && user != "":
			limits = append(limits, "("+eq+` not userId = "")`, "("+eq+` and userId == "`+user+`")`)
		case r["global"]:
			limits = append(limits, "("+eq+` not userId = "")`)
		case r["users"]:
			limits = append(limits, "("+eq+` and userId = "")`)
		case r["owner"] && user != "":
			limits = append(limits, "("+eq+` and userId == "`+user+`")`)
		}
	}
	return limits
}

func (s *modSettings) entries(w http.ResponseWriter, r *http.Request) {
	hdr := r.Header.Get("X-Okapi-Permissions")
	if hdr == "" {
		writeText(w, http.StatusBadRequest, "Missing header X-Okapi-Permissions")
		return
	}
	var perms []string
	if err := json.Unmarshal([]byte(hdr), &perms); err != nil {
		writeText(w, http.StatusBadRequest, err.Error())
		return
	}
	limits := settingsScopes(perms, r.Header.Get("X-Okapi-User-Id"))
	if len(limits) == 0 {
		writeText(w, http.StatusForbidden, "Forbidden")
		return
	}
	q := strings.Join(limits, " or ")
	if uq := r.URL.Query().Get("query"); uq != "" {
		q = "(" + uq + ") and (" + q + ")"
	}
	limit, offset := 10, 0
	var err error
	if v := r.URL.Query().Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil {
			writeText(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	if v := r.URL.Query().Get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil {
			writeText(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	page, err := storage.Find(r.Context(), s.db, r.Header.Get("X-Okapi-Tenant"), settingsTable, q, limit, offset)
	var qe *storage.QueryError
	if errors.As(err, &qe) {
		writeText(w, http.StatusBadRequest, qe.Msg)
		return
	}
	if err != nil {
		writeText(w, http.StatusInternalServerError, err.Error())
		return
	}
	// StreamHelper.streamResult: its own framing, chunked, each entry as
	// Jackson writes Entry (id, scope, key, userId, then the value).
	var b bytes.Buffer
	b.WriteString(`{ "items" : [`)
	for i, rec := range page.Records {
		if i > 0 {
			b.WriteByte(',')
		}
		var e obj
		_ = json.Unmarshal(rec, &e)
		b.Write(ordered(e, []string{"id", "scope", "key", "userId", "value"}))
	}
	fmt.Fprintf(&b, `], "resultInfo": {"totalRecords":%d,"diagnostics":[]}}`, page.Total)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
	if f, ok := w.(http.Flusher); ok {
		f.Flush() // no Content-Length: chunked, as Vert.x streams it
	}
}
