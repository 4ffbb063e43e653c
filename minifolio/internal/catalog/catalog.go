// Package catalog lists the FOLIO modules minifolio runs and the paths each one
// serves. The gateway routes by this table and `minifolio up` starts one
// process per entry, so module CPU can be measured per module as in FOLIO.
package catalog

import "strings"

// Module is one backend module process behind the gateway.
type Module struct {
	Name     string   // FOLIO module name, e.g. "mod-circulation"
	Schema   string   // schema suffix: "mod_circulation" → "<tenant>_mod_circulation"
	Prefixes []string // first path segments the module serves, without leading slash
	Offset   int      // port = gateway port + Offset
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
}

// ForPath returns the module serving path ("/circulation/loans?x" → mod-circulation).
func ForPath(path string) (Module, bool) {
	p := strings.TrimPrefix(path, "/")
	if i := strings.IndexAny(p, "/?"); i >= 0 {
		p = p[:i]
	}
	for _, m := range Modules {
		for _, pre := range m.Prefixes {
			if pre == p {
				return m, true
			}
		}
	}
	return Module{}, false
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
