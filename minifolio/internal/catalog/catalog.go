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
}

// Modules is ordered so that storage modules start before the business
// modules that call them.
var Modules = []Module{
	{Name: "mod-configuration", Schema: "mod_configuration", Prefixes: []string{"configurations"}, Offset: 1},
	{Name: "mod-users", Schema: "mod_users", Prefixes: []string{"users", "groups", "proxiesfor"}, Offset: 2},
	{Name: "mod-inventory-storage", Schema: "mod_inventory_storage", Prefixes: []string{
		"item-storage", "holdings-storage", "instance-storage", "authority-storage", "service-points", "service-points-users",
		"locations", "material-types", "loan-types"}, Offset: 3},
	{Name: "mod-circulation-storage", Schema: "mod_circulation_storage", Prefixes: []string{
		"loan-storage", "request-storage", "patron-action-session-storage", "staff-slips-storage",
		"loan-policy-storage", "circulation-rules-storage"}, Offset: 4},
	{Name: "mod-feesfines", Schema: "mod_feesfines", Prefixes: []string{
		"accounts", "manualblocks", "lost-item-fees-policies", "overdue-fines-policies", "feefines"}, Offset: 5},
	{Name: "mod-notes", Schema: "mod_notes", Prefixes: []string{"note-links", "notes"}, Offset: 6},
	{Name: "mod-patron-blocks", Schema: "mod_patron_blocks", Prefixes: []string{
		"automated-patron-blocks", "patron-block-conditions", "patron-block-limits"}, Offset: 7},
	{Name: "mod-inventory", Schema: "mod_inventory", Prefixes: []string{"inventory"}, Offset: 8},
	{Name: "mod-circulation", Schema: "mod_circulation", Prefixes: []string{"circulation"}, Offset: 9},
	// The legacy reindex's progress lived in mod-inventory-storage
	// (/instance-storage/reindex/{id}); minifolio's mod-search runs that job
	// itself, so it serves that path too.
	{Name: "mod-search", Schema: "mod_search", Prefixes: []string{"search", "instance-storage/reindex"}, Offset: 10, OpenSearch: true},
}

// ForPath returns the module serving path ("/circulation/loans?x" →
// mod-circulation); the longest matching prefix wins
// ("/instance-storage/reindex/1" → mod-search, "/instance-storage/instances" →
// mod-inventory-storage).
func ForPath(path string) (Module, bool) {
	p := strings.TrimPrefix(path, "/")
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	var best Module
	n := -1
	for _, m := range Modules {
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
	"mod-search": "2.0.1",
}

// ModuleIDs are the Okapi module ids ("mod-circulation-23.5.6") a tenant has
// enabled, sorted as Okapi lists them: every module of the catalog (mod-search
// only when it runs) plus the three the gateway plays (okapi itself, enabled
// for a FOLIO tenant like any module), each at the version of versions, else
// DefaultVersions.
func ModuleIDs(versions map[string]string, search bool) []string {
	names := []string{"okapi", "mod-authtoken", "mod-login"}
	for _, m := range Modules {
		if m.OpenSearch && !search {
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
