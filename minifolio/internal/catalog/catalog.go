// Package catalog lists the FOLIO modules minifolio runs and the paths each one
// serves. The gateway routes by this table and `minifolio up` starts one
// process per entry, so module CPU can be measured per module as in FOLIO.
package catalog

import (
	"sort"
	"strings"
)

// Module is one backend module process behind the gateway.
type Module struct {
	Name     string   // FOLIO module name, e.g. "mod-circulation"
	Schema   string   // schema suffix: "mod_circulation" → "<tenant>_mod_circulation"
	Prefixes []string // path prefixes the module serves (whole segments), without leading slash
	Offset   int      // port = gateway port + Offset
	// OpenSearch: the module needs an OpenSearch node, so `up` starts it only
	// when one is given (CICO deployments run without it).
	OpenSearch bool
	// Platform: the module runs only on that platform (Okapi or Eureka); empty
	// on both. On Okapi the gateway itself plays mod-login and mod-authtoken.
	Platform string
	// Public are path prefixes of the module that need no permission (FOLIO's
	// routing entries with "permissionsRequired": []): the sidecar lets them
	// through without a token.
	Public []string
	// Desired are the routes whose ModuleDescriptor lists permissionsDesired:
	// the sidecar sends the caller's matching permissions in X-Okapi-Permissions.
	Desired []Desired
}

// Desired is one routing entry's permissionsDesired.
type Desired struct {
	Method, Path string // Path exact (no sub-paths)
	Permissions  []string
}

// The two platforms a release runs on.
const (
	Okapi  = "okapi"
	Eureka = "eureka"
)

// On reports whether m runs on platform.
func (m Module) On(platform string) bool { return m.Platform == "" || m.Platform == platform }

// SidecarOffset: the sidecar in front of a module listens on the module's
// port plus this (Eureka only), so the gateway's range stays contiguous.
const SidecarOffset = 50

// Modules is ordered so that storage modules start before the business
// modules that call them.
var Modules = []Module{
	{Name: "mod-configuration", Schema: "mod_configuration", Prefixes: []string{"configurations"}, Offset: 1},
	{Name: "mod-users", Schema: "mod_users", Prefixes: []string{"users", "groups", "proxiesfor", "user"}, Offset: 2},
	{Name: "mod-inventory-storage", Schema: "mod_inventory_storage", Prefixes: []string{
		"item-storage", "holdings-storage", "instance-storage", "authority-storage", "service-points", "service-points-users",
		"locations", "material-types", "loan-types"}, Offset: 3},
	{Name: "mod-circulation-storage", Schema: "mod_circulation_storage", Prefixes: []string{
		"loan-storage", "request-storage", "patron-action-session-storage", "staff-slips-storage", "circulation-settings-storage",
		"loan-policy-storage", "circulation-rules-storage"}, Offset: 4},
	{Name: "mod-feesfines", Schema: "mod_feesfines", Prefixes: []string{
		"accounts", "manualblocks", "lost-item-fees-policies", "overdue-fines-policies", "feefines"}, Offset: 5},
	{Name: "mod-notes", Schema: "mod_notes", Prefixes: []string{"note-links", "notes"}, Offset: 6},
	{Name: "mod-patron-blocks", Schema: "mod_patron_blocks", Prefixes: []string{
		"automated-patron-blocks", "patron-block-conditions", "patron-block-limits"}, Offset: 7},
	{Name: "mod-inventory", Schema: "mod_inventory", Prefixes: []string{"inventory"}, Offset: 8},
	{Name: "mod-circulation", Schema: "mod_circulation", Prefixes: []string{"circulation"}, Offset: 9,
		// mod-circulation 24.x ModuleDescriptor.
		Desired: []Desired{{Method: "POST", Path: "/circulation/check-out-by-barcode", Permissions: []string{
			"circulation.override-patron-block.post", "circulation.override-item-limit-block.post",
			"circulation.override-item-not-loanable-block.post"}}}},
	// mod-users-bl's composite user (/bl-users/_self, /bl-users/by-id/{id}), on
	// both platforms: the staff UI and PTF's plans read it after login.
	{Name: "mod-users-bl", Prefixes: []string{"bl-users"}, Offset: 11},
	// Eureka's login (Keycloak's tokens as cookies) and the user modules that
	// know Keycloak.
	{Name: "mod-login-keycloak", Schema: "mod_login", Prefixes: []string{"authn"}, Offset: 12, Platform: Eureka,
		Public: []string{"authn/login", "authn/login-with-expiry", "authn/refresh", "authn/logout", "authn/logout-all", "authn/token"}},
	{Name: "mod-users-keycloak", Prefixes: []string{"users-keycloak"}, Offset: 13, Platform: Eureka,
		Public: []string{"users-keycloak/_self"}},
	// mod-settings: settings entries (Trillium's UI reads them) and the tenant locale.
	{Name: "mod-settings", Schema: "mod_settings", Prefixes: []string{"settings", "locale"}, Offset: 14, Platform: Eureka,
		Desired: []Desired{{Method: "GET", Path: "/settings/entries", Permissions: []string{
			"mod-settings.global.*", "mod-settings.users.*", "mod-settings.owner.*"}}}},
	// The legacy reindex's progress lived in mod-inventory-storage
	// (/instance-storage/reindex/{id}); minifolio's mod-search runs that job
	// itself, so it serves that path too.
	{Name: "mod-search", Schema: "mod_search", Prefixes: []string{"search", "instance-storage/reindex"}, Offset: 10, OpenSearch: true},
}

// ForPath returns the module serving path ("/circulation/loans?x" →
// mod-circulation); the longest matching prefix wins
// ("/instance-storage/reindex/1" → mod-search, "/instance-storage/instances" →
// mod-inventory-storage).
func ForPath(path string) (Module, bool) { return ForPathOn(Okapi, path) }

// ForPathOn is ForPath among the modules that run on platform.
func ForPathOn(platform, path string) (Module, bool) {
	p := strings.TrimPrefix(path, "/")
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	var best Module
	n := -1
	for _, m := range Modules {
		if !m.On(platform) {
			continue
		}
		for _, pre := range m.Prefixes {
			if len(pre) > n && strings.HasPrefix(p, pre) && (len(p) == len(pre) || p[len(pre)] == '/') {
				best, n = m, len(pre)
			}
		}
	}
	return best, n >= 0
}

// ByName finds a module by its FOLIO name.
func ByName(name string) (Module, bool) {
	for _, m := range Modules {
		if m.Name == name {
			return m, true
		}
	}
	return Module{}, false
}

// DefaultVersions are the module versions a profile without its own
// moduleVersions reports: versions of the Orchid release line (R1-2023),
// whose CICO workflow folio-perf replays, each a release tag of the module's
// folio-org repository. okapi, mod-login and mod-authtoken are listed too:
// the gateway plays them (okapi's version decides its CORS answers).
var DefaultVersions = map[string]string{
	"okapi": "5.0.1", "mod-authtoken": "2.13.0", "mod-login": "7.9.0", "mod-users": "19.1.1", "mod-configuration": "5.9.1",
	"mod-inventory-storage": "26.0.0", "mod-inventory": "20.0.6", "mod-circulation-storage": "16.0.1",
	"mod-circulation": "23.5.6", "mod-feesfines": "18.2.1", "mod-notes": "5.0.1", "mod-patron-blocks": "1.8.0",
	"mod-search": "2.0.1", "mod-users-bl": "7.5.0",
	// Eureka only (Sunflower's versions, platform-lsp R1-2025): the modules
	// that know Keycloak, and the platform's own components, which no module
	// list names but whose version decides an answer (the sidecar's GET check).
	"mod-login-keycloak": "3.0.0", "mod-users-keycloak": "3.0.2", "mod-settings": "1.2.0",
	"folio-kong": "3.9.0", "folio-keycloak": "26.1.3", "folio-module-sidecar": "3.0.4",
	"mgr-applications": "3.0.0", "mgr-tenants": "3.0.0", "mgr-tenant-entitlements": "3.1.1",
}

// ModuleIDs are the Okapi module ids ("mod-circulation-23.5.6") a tenant has
// enabled, sorted as Okapi lists them: every module of the catalog (mod-search
// only when it runs) plus the three the gateway plays (okapi itself, enabled
// for a FOLIO tenant like any module), each at the version of versions, else
// DefaultVersions.
func ModuleIDs(versions map[string]string, search bool) []string {
	names := []string{"okapi", "mod-authtoken", "mod-login"}
	for _, m := range Modules {
		if (m.OpenSearch && !search) || !m.On(Okapi) {
			continue
		}
		names = append(names, m.Name)
	}
	ids := make([]string, 0, len(names))
	for _, n := range names {
		v := versions[n]
		if v == "" {
			v = DefaultVersions[n]
		}
		ids = append(ids, n+"-"+v)
	}
	sort.Strings(ids)
	return ids
}
