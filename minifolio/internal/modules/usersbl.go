package modules

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/folio-perf/folio-perf/minifolio/internal/eureka"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// usersBL plays mod-users-bl's composite user (BLUsersAPI.run): GET
// /bl-users/_self (the caller, by the token's user_id, else its sub as
// username) and GET /bl-users/by-id/{id}. The default includes are the patron
// group, the permissions and the service points; expandPermissions asks for
// the expanded permission names. minifolio has no mod-permissions (every token
// holds every permission), so the permissions are an empty list, as mod-users-bl
// writes them for a user without a permissions record.
type usersBL struct {
	okapi *okapiClient
}

func (u *usersBL) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /bl-users/_self", u.self)
	mux.HandleFunc("GET /bl-users/by-id/{id}", func(w http.ResponseWriter, r *http.Request) {
		u.composite(w, r, r.PathValue("id"), "")
	})
}

func (u *usersBL) self(w http.ResponseWriter, r *http.Request) {
	p, err := eureka.Payload(r.Header.Get("X-Okapi-Token"))
	if err != nil {
		writeText(w, http.StatusInternalServerError, "Cannot read the token")
		return
	}
	userID, _ := p["user_id"].(string)
	username, _ := p["sub"].(string)
	if strings.TrimSpace(username) == "" || strings.HasPrefix(username, "UNDEFINED_USER") || strings.TrimSpace(userID) == "" {
		u.composite(w, r, "", username)
		return
	}
	u.composite(w, r, userID, "")
}

// The property order of mod-users-bl's schemas (RMB's POJOs write their
// properties in schema order, the unknown ones after them).
var (
	userDataOrder    = []string{"username", "id", "externalSystemId", "barcode", "active", "type", "patronGroup", "meta", "proxyFor", "personal", "enrollmentDate", "expirationDate", "createdDate", "updatedDate", "metadata", "tags"}
	userGroupOrder   = []string{"group", "desc", "id", "metadata"}
	spUserOrder      = []string{"id", "userId", "servicePointsIds", "servicePoints", "defaultServicePointId", "defaultServicePoint", "metadata"}
	compositeOrder   = []string{"user", "patronGroup", "permissions", "proxiesFor", "servicePointsUser", "tokenExpiration", "tenant"}
	ukUserOrder      = []string{"username", "id", "externalSystemId", "barcode", "active", "type", "patronGroup", "departments", "meta", "proxyFor", "personal", "enrollmentDate", "expirationDate", "createdDate", "updatedDate", "metadata", "tags", "customFields"}
	ukCompositeOrder = []string{"user", "patronGroup", "permissions", "proxiesFor", "servicePointsUser", "originalTenantId"}
)

// composite answers mod-users-bl's composite user of userID (or of username).
func (u *usersBL) composite(w http.ResponseWriter, r *http.Request, userID, username string) {
	cl := callerOf(r, u.okapi.base)
	user, status, err := u.user(r.Context(), cl, userID, username)
	var ue *upstreamError
	switch {
	case errors.As(err, &ue):
		// handleResponse: mod-users' refusal (404 "User not found", 400) as is.
		writeText(w, ue.status, ue.body)
		return
	case err != nil:
		writeFailure(w, err)
		return
	case user == nil:
		writeText(w, status, "User not found")
		return
	}
	out := map[string]json.RawMessage{"user": ordered(user, userDataOrder)}
	if g := str(user, "patronGroup"); g != "" {
		var group obj
		if err := u.okapi.get(r.Context(), cl, "/groups/"+url.PathEscape(g), &group); err == nil {
			out["patronGroup"] = ordered(group, userGroupOrder)
		}
	}
	out["permissions"] = json.RawMessage(`{"permissions":[]}`)
	if spu, err := u.servicePoints(r.Context(), cl, str(user, "id"), true); err != nil {
		writeFailure(w, err)
		return
	} else if spu != nil {
		out["servicePointsUser"] = spu
	}
	storage.WriteJSON(w, http.StatusOK, orderedRaw(out, compositeOrder))
}

// user reads /users/{id} (or the one user with that username).
func (u *usersBL) user(ctx context.Context, cl caller, userID, username string) (obj, int, error) {
	if userID != "" {
		status, body, err := u.okapi.raw(ctx, cl, "/users/"+url.PathEscape(userID))
		if err != nil {
			return nil, 0, err
		}
		if status != http.StatusOK {
			return nil, status, &upstreamError{method: http.MethodGet, path: "/users/" + userID, status: status, body: string(body)}
		}
		var rec obj
		return rec, status, json.Unmarshal(body, &rec)
	}
	var page struct {
		Users []obj `json:"users"`
	}
	if err := u.okapi.get(ctx, cl, query("/users", "username=="+cqlString(username), 2), &page); err != nil {
		return nil, 0, err
	}
	if len(page.Users) == 0 {
		return nil, http.StatusNotFound, nil
	}
	return page.Users[0], http.StatusOK, nil
}

// servicePoints is the user's service-points-users record with its service
// points (and, for mod-users-bl, the default one) expanded; nil without one.
func (u *usersBL) servicePoints(ctx context.Context, cl caller, userID string, withDefault bool) (json.RawMessage, error) {
	var page struct {
		Users []obj `json:"servicePointsUsers"`
	}
	if err := u.okapi.get(ctx, cl, query("/service-points-users", "userId=="+userID, 1000), &page); err != nil {
		return nil, err
	}
	if len(page.Users) != 1 {
		return nil, nil
	}
	spu := page.Users[0]
	var ids []string
	if d := str(spu, "defaultServicePointId"); d != "" && withDefault {
		ids = append(ids, d)
	}
	if list, ok := spu["servicePointsIds"].([]any); ok {
		for _, x := range list {
			if s, ok := x.(string); ok && isUUID(s) {
				ids = append(ids, s)
			}
		}
	}
	if len(ids) > 0 {
		var sps struct {
			ServicePoints []obj `json:"servicepoints"`
		}
		var clauses []string
		for _, id := range ids {
			clauses = append(clauses, `id=="`+id+`"`)
		}
		if err := u.okapi.get(ctx, cl, query("/service-points", strings.Join(clauses, " or "), 1000), &sps); err != nil {
			return nil, err
		}
		list := make([]any, len(sps.ServicePoints))
		for i, sp := range sps.ServicePoints {
			list[i] = sp
		}
		spu["servicePoints"] = list
	}
	return ordered(spu, spUserOrder), nil
}

// ordered writes rec's properties in order, the others after them in their
// own (sorted) order.
func ordered(rec obj, order []string) json.RawMessage {
	raw := map[string]json.RawMessage{}
	for k, v := range rec {
		raw[k], _ = json.Marshal(v)
	}
	return orderedRaw(raw, order)
}

func orderedRaw(raw map[string]json.RawMessage, order []string) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	seen := map[string]bool{}
	write := func(k string) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(raw[k])
	}
	for _, k := range order {
		if _, ok := raw[k]; ok {
			seen[k] = true
			write(k)
		}
	}
	var rest []string
	for k := range raw {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		write(k)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// usersKeycloak plays mod-users-keycloak's GET /users-keycloak/_self
// (UserService.getUserBySelfReference): the user of X-Okapi-User-Id (else the
// token's user_id), its permissions (mod-roles-keycloak's; empty here, as for
// usersBL) and its service points; no patron group. Spring writes it compact.
type usersKeycloak struct{ bl *usersBL }

func (k *usersKeycloak) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /users-keycloak/_self", k.self)
}

func (k *usersKeycloak) self(w http.ResponseWriter, r *http.Request) {
	userID := r.Header.Get("X-Okapi-User-Id")
	if userID == "" {
		if p, err := eureka.Payload(r.Header.Get("X-Okapi-Token")); err == nil {
			userID, _ = p["user_id"].(string)
		}
	}
	notFound := func(msg string) {
		loginError(w, http.StatusNotFound, msg, "EntityNotFoundException", "not_found_error")
	}
	if userID == "" {
		notFound("User id was not found in header or token")
		return
	}
	cl := callerOf(r, k.bl.okapi.base)
	user, _, err := k.bl.user(r.Context(), cl, userID, "")
	var ue *upstreamError
	if errors.As(err, &ue) && ue.status == http.StatusNotFound {
		user, err = nil, nil
	}
	if err != nil {
		writeFailure(w, err)
		return
	}
	if user == nil {
		notFound("User was Not Found with: id = " + userID)
		return
	}
	perms, _ := json.Marshal(struct {
		UserID      string   `json:"userId"`
		Permissions []string `json:"permissions"`
	}{userID, []string{}})
	out := map[string]json.RawMessage{"user": ordered(user, ukUserOrder), "permissions": perms}
	if spu, err := k.bl.servicePoints(r.Context(), cl, userID, false); err == nil && spu != nil {
		out["servicePointsUser"] = spu
	}
	springJSON(w, http.StatusOK, orderedRaw(out, ukCompositeOrder))
}
