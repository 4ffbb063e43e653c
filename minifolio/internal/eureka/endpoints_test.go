package eureka_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// The endpoints the Sunflower and Trillium UIs read after login, through
// Kong and the sidecars, with the operator's cookie only (as the UI sends).
func TestEurekaUIEndpoints(t *testing.T) {
	p := sharedPlatform(t, "trillium")
	ctx := context.Background()
	sp := storage.NewUUID()
	insert := func(schema, table, id string, doc map[string]any) {
		b, _ := json.Marshal(doc)
		if err := storage.Insert(ctx, p.pool, p.tenant, storage.MustLookup(schema, table), id, b); err != nil {
			t.Fatal(err)
		}
	}
	insert("mod_inventory_storage", "service_point", sp, map[string]any{"id": sp, "name": "Circ desk 1", "code": "cd1",
		"discoveryDisplayName": "Circ desk 1"})
	spu := storage.NewUUID()
	insert("mod_inventory_storage", "service_point_user", spu, map[string]any{"id": spu, "userId": p.operator.id,
		"servicePointsIds": []string{sp}, "defaultServicePointId": sp})
	entry := storage.NewUUID()
	insert("mod_settings", "settings", entry, map[string]any{"id": entry, "scope": "ui-checkout", "key": "prefs",
		"value": map[string]any{"audioAlertsEnabled": true}})
	access, _ := p.login()
	get := func(path string) raw {
		return do(t, "GET", p.kong+path, map[string]string{"X-Okapi-Tenant": p.tenant, "Cookie": "folioAccessToken=" + access}, "")
	}

	r := get("/users-keycloak/_self?expandPermissions=true&fullPermissions=true&overrideUser=true")
	if r.statusLine != "HTTP/1.1 200 OK" || !strings.HasPrefix(r.body, `{"user":{"username":"eu_admin","id":"`+p.operator.id+`","active":true,"type":"staff"`) ||
		!strings.Contains(r.body, `,"permissions":{"userId":"`+p.operator.id+`","permissions":[]},"servicePointsUser":{"id":"`+spu+`","userId":"`+p.operator.id+`","servicePointsIds":["`+sp+`"],"servicePoints":[{`) ||
		strings.Contains(r.body, `"patronGroup"`) || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("users-keycloak/_self: %s %s %s", r.statusLine, r.header.Get("Content-Type"), r.body)
	}
	r = get("/bl-users/_self")
	if r.statusLine != "HTTP/1.1 200 OK" || !strings.HasPrefix(r.body, `{"user":{"username":"eu_admin","id":"`+p.operator.id+`"`) ||
		!strings.Contains(r.body, `"permissions":{"permissions":[]},"servicePointsUser":{"id":"`+spu+`"`) ||
		!strings.Contains(r.body, `"defaultServicePointId":"`+sp+`"`) {
		t.Errorf("bl-users/_self: %s %s", r.statusLine, r.body)
	}
	if b := get("/bl-users/by-id/" + p.operator.id); b.body != r.body {
		t.Errorf("bl-users/by-id: %s %s, want the _self answer", b.statusLine, b.body)
	}
	// mod-settings streams its answer with its own framing; the operator's
	// X-Okapi-Permissions (from the sidecar) let it read global entries.
	r = get("/settings/entries?query=scope==ui-checkout")
	if r.statusLine != "HTTP/1.1 200 OK" || r.header.Get("Transfer-Encoding") != "chunked" ||
		!regexp.MustCompile(`^\{ "items" : \[\{"id":"`+entry+`","scope":"ui-checkout","key":"prefs","value":\{"audioAlertsEnabled":true\}\}\], "resultInfo": \{"totalRecords":1,"diagnostics":\[\]\}\}$`).MatchString(r.body) {
		t.Errorf("settings/entries: %s %v %q", r.statusLine, r.header, r.body)
	}
	r = get("/locale")
	if r.statusLine != "HTTP/1.1 200 OK" || r.body != `{"locale":"en-US","currency":"USD","timezone":"UTC"}` {
		t.Errorf("locale: %s %q", r.statusLine, r.body)
	}
	for path, key := range map[string]string{"/user/settings": "settings", "/circulation/settings?query=(name==other_settings)": "circulationSettings",
		"/configurations/entries?query=(module==CHECKOUT and configName==other_settings)":             "configs",
		"/loan-storage/loans?query=itemId==" + storage.NewUUID() + " and status.name<>Closed&limit=1": "loans"} {
		r := get(strings.ReplaceAll(path, " ", "%20"))
		var page map[string]json.RawMessage
		if r.statusLine != "HTTP/1.1 200 OK" || json.Unmarshal([]byte(r.body), &page) != nil || string(page["totalRecords"]) != "0" || page[key] == nil {
			t.Errorf("%s: %s %q", path, r.statusLine, r.body)
		}
	}
	r = get("/version")
	if r.statusLine != "HTTP/1.1 200 OK" {
		t.Errorf("version: %s %q", r.statusLine, r.body)
	}
}

// Sunflower has neither mod-settings' locale nor mod-users' user/settings:
// Kong has no route for them.
func TestSunflowerLacksTrilliumRoutes(t *testing.T) {
	p := sharedPlatform(t, "sunflower")
	access, _ := p.login()
	for _, path := range []string{"/locale", "/user/settings"} {
		r := do(t, "GET", p.kong+path, map[string]string{"X-Okapi-Tenant": p.tenant, "Cookie": "folioAccessToken=" + access}, "")
		if m := kongJSON.FindStringSubmatch(r.body); r.statusLine != "HTTP/1.1 404 Not Found" || m == nil || m[1] != "no Route matched with those values" {
			t.Errorf("%s on Sunflower: %s %q", path, r.statusLine, r.body)
		}
	}
}
