// Package storage is minifolio's RMB: FOLIO's per-tenant PostgreSQL layout
// (schema <tenant>_<module>, tables (id uuid primary key, jsonb jsonb not null)
// with FOLIO's table names, foreign-key uuid columns and declared indexes), a
// connection pool, record CRUD and a generic collection HTTP handler that
// speaks RMB's query/limit/offset/envelope dialect.
//
// The table list is data (Tables): the DDL, the CQL translator's field map,
// the seed, the reset and profiles that drop indexes all read the same list.
package storage

import (
	"strings"
)

// Index is one index FOLIO's schema.json declares on a jsonb field.
type Index struct {
	Field  string // jsonb path as CQL names it, e.g. "status.name"
	Unique bool
	// Where makes the index partial (e.g. one open loan per item). SQL text on
	// the table's own columns; the CQL translator never needs it.
	Where string
	// Name overrides RMB's derived name <table>_<field>_idx[_unique].
	Name string
}

// FK is a foreign-key uuid column RMB adds next to the jsonb (lower-cased
// field name), kept in sync with the jsonb by PostgreSQL (generated column),
// so that inserts of only (id, jsonb), as PTF's seed loader does, still fill it.
type FK struct {
	Field string // jsonb field, e.g. "holdingsRecordId"
}

// Column is the SQL column name RMB gives the FK: unquoted, so lower-cased.
func (f FK) Column() string { return strings.ToLower(f.Field) }

// Table describes one RMB table.
type Table struct {
	Module string // catalog module name, e.g. "mod-inventory-storage"
	Schema string // module schema suffix, e.g. "mod_inventory_storage"
	Name   string // FOLIO's table name, e.g. "item"
	Key    string // JSON collection property, e.g. "items" ("" when no API lists it)
	Path   string // storage API collection path, e.g. "/item-storage/items" ("" when none)
	// ResultInfo: the collection schema carries resultInfo (mod-users, feesfines, configuration).
	ResultInfo bool
	FKs        []FK
	Indexes    []Index
	Required   []string // jsonb paths a POST/PUT must carry (422 otherwise)
	Metadata   bool     // RMB withMetadata: POST/PUT fill jsonb.metadata
	Locking    Locking  // RMB withOptimisticLocking (see Update)
}

// Locking is RMB's withOptimisticLocking of a table (schema.json, RMB's
// optimistic_locking.ftl): every write stamps jsonb._version, and an update
// whose _version is not the stored one fails (RMB's trigger raises SQLSTATE
// 23F09, the API answers 409), so two clients that read a record and write
// it back whole cannot silently undo each other's change.
//
// mod-inventory-storage only logged conflicts up to v22 (Kiwi); from v23
// (Lotus) instances, holdings and items fail on them, and from v25 (Nolana)
// a request _version of -1 overwrites ("UnlessSuppressed"); authorities fail
// from v24. minifolio plays the v25 rules for every profile (its oldest,
// lotus, differs only in refusing -1).
type Locking int

const (
	LockingOff Locking = iota
	// LockingFail is "failOnConflict".
	LockingFail
	// LockingFailUnlessSuppressed is "failOnConflictUnlessSuppressed".
	LockingFailUnlessSuppressed
)

// QualifiedName is "<tenant>_<schema>.<table>", safe to splice into SQL
// because tenant names are validated (ValidTenant) and the rest is constant.
func (t *Table) QualifiedName(tenant string) string {
	return SchemaName(tenant, t.Schema) + "." + t.Name
}

// Indexed reports whether CQL on field can use an index of this table (the
// id column and FK columns count, as in RMB).
func (t *Table) Indexed(field string) bool {
	if field == "id" {
		return true
	}
	for _, f := range t.FKs {
		if f.Field == field {
			return true
		}
	}
	for _, ix := range t.Indexes {
		if ix.Field == field && ix.Where == "" {
			return true
		}
	}
	return false
}

// FKColumn returns the SQL column of field when it is a FK column.
func (t *Table) FKColumn(field string) (string, bool) {
	for _, f := range t.FKs {
		if f.Field == field {
			return f.Column(), true
		}
	}
	return "", false
}

// IndexName is RMB's naming: <table>_<field with . as _>_idx[_unique], lower-cased.
func (t *Table) IndexName(ix Index) string {
	if ix.Name != "" {
		return ix.Name
	}
	n := t.Name + "_" + strings.ReplaceAll(ix.Field, ".", "_") + "_idx"
	if ix.Unique {
		n += "_unique"
	}
	return strings.ToLower(n)
}

// WithoutIndexes returns a copy of t lacking the indexes on the given fields.
// Partial indexes stay: they guard correctness (one open loan per item), not
// speed. Profiles such as missing-index use it both for the DDL (DropIndexes)
// and for the collection handler, so the translator's "unindexed field"
// warning matches what the database really has.
func (t *Table) WithoutIndexes(fields ...string) *Table {
	drop := map[string]bool{}
	for _, f := range fields {
		drop[f] = true
	}
	c := *t
	c.Indexes = nil
	for _, ix := range t.Indexes {
		if !drop[ix.Field] || ix.Where != "" {
			c.Indexes = append(c.Indexes, ix)
		}
	}
	return &c
}

// SchemaName is RMB's naming: lower-cased tenant + "_" + module schema suffix.
func SchemaName(tenant, moduleSchema string) string {
	return strings.ToLower(tenant) + "_" + moduleSchema
}

// ValidTenant mirrors Okapi's tenant id rule (letters, digits, underscore,
// starting with a letter, at most 31 chars so schema names fit in 63 bytes).
// Tenant names end up in SQL identifiers, so nothing else may pass.
func ValidTenant(t string) bool {
	if t == "" || len(t) > 31 {
		return false
	}
	for i, r := range t {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case (r >= '0' && r <= '9' || r == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// Lookup finds a table by module schema suffix and table name.
func Lookup(schema, name string) (*Table, bool) {
	for _, t := range Tables {
		if t.Schema == schema && t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// MustLookup is Lookup for tables that are known to exist (package-level vars).
func MustLookup(schema, name string) *Table {
	t, ok := Lookup(schema, name)
	if !ok {
		panic("storage: no table " + schema + "." + name)
	}
	return t
}

// ByPath finds the table whose storage API collection path is path.
func ByPath(path string) (*Table, bool) {
	for _, t := range Tables {
		if t.Path != "" && t.Path == path {
			return t, true
		}
	}
	return nil, false
}

// ForSchema lists the tables of one module schema, in DDL order.
func ForSchema(schema string) []*Table {
	var out []*Table
	for _, t := range Tables {
		if t.Schema == schema {
			out = append(out, t)
		}
	}
	return out
}

// Schemas lists the distinct module schema suffixes, in DDL order.
func Schemas() []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range Tables {
		if !seen[t.Schema] {
			seen[t.Schema] = true
			out = append(out, t.Schema)
		}
	}
	return out
}

func idx(fields ...string) []Index {
	out := make([]Index, len(fields))
	for i, f := range fields {
		out[i] = Index{Field: f}
	}
	return out
}

func uniq(fields ...string) []Index {
	out := make([]Index, len(fields))
	for i, f := range fields {
		out[i] = Index{Field: f, Unique: true}
	}
	return out
}

func cat(lists ...[]Index) []Index {
	var out []Index
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func fks(fields ...string) []FK {
	out := make([]FK, len(fields))
	for i, f := range fields {
		out[i] = FK{Field: f}
	}
	return out
}

// Tables is every table minifolio creates per tenant, with FOLIO's names
// (mod-*-storage schema.json files) and the indexes the CICO workflow's
// queries rely on. Order matters only for readability of the DDL.
var Tables = []*Table{
	// mod-inventory-storage
	{Module: "mod-inventory-storage", Schema: "mod_inventory_storage", Name: "instance", Key: "instances",
		Path: "/instance-storage/instances", Metadata: true, FKs: fks("instanceTypeId"), Locking: LockingFailUnlessSuppressed,
		Indexes: cat(uniq("hrid"), idx("title")), Required: []string{"source", "title", "instanceTypeId"}},
	{Module: "mod-inventory-storage", Schema: "mod_inventory_storage", Name: "holdings_record", Key: "holdingsRecords",
		Path: "/holdings-storage/holdings", Metadata: true, FKs: fks("instanceId", "permanentLocationId", "effectiveLocationId"),
		Locking: LockingFailUnlessSuppressed,
		Indexes: uniq("hrid"), Required: []string{"instanceId", "permanentLocationId"}},
	{Module: "mod-inventory-storage", Schema: "mod_inventory_storage", Name: "item", Key: "items",
		Path: "/item-storage/items", Metadata: true, Locking: LockingFailUnlessSuppressed,
		FKs:      fks("holdingsRecordId", "materialTypeId", "permanentLoanTypeId", "temporaryLoanTypeId", "effectiveLocationId"),
		Indexes:  cat(uniq("barcode", "hrid"), idx("status.name")),
		Required: []string{"materialTypeId", "permanentLoanTypeId", "holdingsRecordId", "status.name"}},
	// MARC authorities as mod-inventory-storage kept them until Orchid (the
	// storage the Lotus search report ran on): mod-search indexes them.
	{Module: "mod-inventory-storage", Schema: "mod_inventory_storage", Name: "authority", Key: "authorities",
		Path: "/authority-storage/authorities", Metadata: true, Locking: LockingFail},
	{Module: "mod-inventory-storage", Schema: "mod_inventory_storage", Name: "service_point", Key: "servicepoints",
		Path: "/service-points", Metadata: true, Indexes: uniq("name", "code"),
		Required: []string{"name", "code", "discoveryDisplayName"}},
	{Module: "mod-inventory-storage", Schema: "mod_inventory_storage", Name: "service_point_user", Key: "servicePointsUsers",
		Path: "/service-points-users", Metadata: true, Indexes: uniq("userId"), Required: []string{"userId"}},
	{Module: "mod-inventory-storage", Schema: "mod_inventory_storage", Name: "location", Key: "locations",
		Path: "/locations", Metadata: true, Indexes: cat(uniq("code"), idx("primaryServicePoint")),
		Required: []string{"name", "code", "primaryServicePoint"}},
	{Module: "mod-inventory-storage", Schema: "mod_inventory_storage", Name: "material_type", Key: "mtypes",
		Path: "/material-types", Metadata: true, Indexes: uniq("name"), Required: []string{"name"}},
	{Module: "mod-inventory-storage", Schema: "mod_inventory_storage", Name: "loan_type", Key: "loantypes",
		Path: "/loan-types", Metadata: true, Indexes: uniq("name"), Required: []string{"name"}},

	// mod-circulation-storage
	{Module: "mod-circulation-storage", Schema: "mod_circulation_storage", Name: "loan", Key: "loans",
		Path: "/loan-storage/loans", Metadata: true,
		Indexes: cat(idx("userId", "itemId", "status.name"),
			// FOLIO's "at most one open loan per item" guard; check-out's
			// concurrency correctness rests on it.
			[]Index{{Field: "itemId", Unique: true, Name: "loan_itemid_idx_unique",
				Where: "lower(jsonb->'status'->>'name') = 'open'"}}),
		Required: []string{"itemId", "loanDate", "action"}},
	{Module: "mod-circulation-storage", Schema: "mod_circulation_storage", Name: "audit_loan"},
	{Module: "mod-circulation-storage", Schema: "mod_circulation_storage", Name: "request", Key: "requests",
		Path: "/request-storage/requests", Metadata: true, Indexes: idx("requesterId", "itemId", "status"),
		Required: []string{"requestType", "requestDate", "requesterId"}},
	{Module: "mod-circulation-storage", Schema: "mod_circulation_storage", Name: "patron_action_session",
		Key: "patronActionSessions", Path: "/patron-action-session-storage/patron-action-sessions", Metadata: true,
		Indexes: idx("patronId", "loanId"), Required: []string{"patronId", "loanId", "actionType"}},
	{Module: "mod-circulation-storage", Schema: "mod_circulation_storage", Name: "scheduled_notice",
		Key: "scheduledNotices", Path: "/scheduled-notice-storage/scheduled-notices", Metadata: true,
		Indexes: idx("loanId")},
	{Module: "mod-circulation-storage", Schema: "mod_circulation_storage", Name: "check_in", Key: "checkIns",
		Path: "/check-in-storage/check-ins", Metadata: true, Indexes: idx("itemId")},
	{Module: "mod-circulation-storage", Schema: "mod_circulation_storage", Name: "loan_policy", Key: "loanPolicies",
		Path: "/loan-policy-storage/loan-policies", Metadata: true, Indexes: uniq("name"), Required: []string{"name"}},
	{Module: "mod-circulation-storage", Schema: "mod_circulation_storage", Name: "request_policy", Key: "requestPolicies",
		Path: "/request-policy-storage/request-policies", Metadata: true, Indexes: uniq("name"), Required: []string{"name"}},
	{Module: "mod-circulation-storage", Schema: "mod_circulation_storage", Name: "patron_notice_policy",
		Key: "patronNoticePolicies", Path: "/patron-notice-policy-storage/patron-notice-policies", Metadata: true,
		Indexes: uniq("name"), Required: []string{"name"}},
	{Module: "mod-circulation-storage", Schema: "mod_circulation_storage", Name: "circulation_rules"},
	{Module: "mod-circulation-storage", Schema: "mod_circulation_storage", Name: "staff_slips", Key: "staffSlips",
		Path: "/staff-slips-storage/staff-slips", Metadata: true, Indexes: uniq("name"), Required: []string{"name"}},
	{Module: "mod-circulation-storage", Schema: "mod_circulation_storage", Name: "fixed_due_date_schedule",
		Key: "fixedDueDateSchedules", Path: "/fixed-due-date-schedule-storage/fixed-due-date-schedules",
		Metadata: true, Indexes: uniq("name"), Required: []string{"name"}},
	// Circulation settings (mod-circulation 24.x serves them as /circulation/settings).
	{Module: "mod-circulation-storage", Schema: "mod_circulation_storage", Name: "circulation_settings",
		Key: "circulationSettings", Path: "/circulation-settings-storage/circulation-settings", Metadata: true,
		Indexes: uniq("name"), Required: []string{"name", "value"}},

	// mod-users
	{Module: "mod-users", Schema: "mod_users", Name: "users", Key: "users", Path: "/users", ResultInfo: true,
		Metadata: true, FKs: fks("patronGroup"),
		Indexes: cat(uniq("barcode", "username", "externalSystemId"), idx("active"))},
	{Module: "mod-users", Schema: "mod_users", Name: "groups", Key: "usergroups", Path: "/groups", Metadata: true,
		Indexes: uniq("group"), Required: []string{"group"}},
	{Module: "mod-users", Schema: "mod_users", Name: "proxyfor", Key: "proxiesFor", Path: "/proxiesfor", Metadata: true,
		Indexes: idx("userId", "proxyUserId"), Required: []string{"userId", "proxyUserId"}},
	// The users.settings interface (mod-users 19.6, read by Trillium's check-out).
	{Module: "mod-users", Schema: "mod_users", Name: "settings", Key: "settings", Path: "/user/settings", Metadata: true,
		Indexes: idx("key"), Required: []string{"scope", "key", "value"}},

	// mod-feesfines
	{Module: "mod-feesfines", Schema: "mod_feesfines", Name: "accounts", Key: "accounts", Path: "/accounts",
		ResultInfo: true, Metadata: true, Indexes: idx("userId", "loanId", "itemId", "status.name"),
		Required: []string{"userId", "amount", "remaining", "feeFineId", "ownerId"}},
	{Module: "mod-feesfines", Schema: "mod_feesfines", Name: "feefines", Key: "feefines", Path: "/feefines",
		ResultInfo: true, Metadata: true, Indexes: idx("ownerId"), Required: []string{"feeFineType"}},
	{Module: "mod-feesfines", Schema: "mod_feesfines", Name: "feefineactions", Key: "feefineactions",
		Path: "/feefineactions", ResultInfo: true, Metadata: true, Indexes: idx("accountId", "userId")},
	{Module: "mod-feesfines", Schema: "mod_feesfines", Name: "owners", Key: "owners", Path: "/owners",
		ResultInfo: true, Metadata: true, Indexes: uniq("owner"), Required: []string{"owner"}},
	{Module: "mod-feesfines", Schema: "mod_feesfines", Name: "manualblocks", Key: "manualblocks", Path: "/manualblocks",
		ResultInfo: true, Metadata: true, Indexes: idx("userId"), Required: []string{"userId"}},
	{Module: "mod-feesfines", Schema: "mod_feesfines", Name: "overdue_fine_policy", Key: "overdueFinePolicies",
		Path: "/overdue-fines-policies", ResultInfo: true, Metadata: true, Indexes: uniq("name"), Required: []string{"name"}},
	{Module: "mod-feesfines", Schema: "mod_feesfines", Name: "lost_item_fee_policy", Key: "lostItemFeePolicies",
		Path: "/lost-item-fees-policies", ResultInfo: true, Metadata: true, Indexes: uniq("name"), Required: []string{"name"}},

	// mod-patron-blocks: the summary the automated blocks are computed from,
	// and the event tables the Juniper regression re-reads on every request.
	{Module: "mod-patron-blocks", Schema: "mod_patron_blocks", Name: "user_summary", Indexes: uniq("userId"),
		Required: []string{"userId"}},
	{Module: "mod-patron-blocks", Schema: "mod_patron_blocks", Name: "item_checked_out_event", Indexes: idx("userId")},
	{Module: "mod-patron-blocks", Schema: "mod_patron_blocks", Name: "item_checked_in_event", Indexes: idx("userId")},
	{Module: "mod-patron-blocks", Schema: "mod_patron_blocks", Name: "loan_due_date_changed_event", Indexes: idx("userId")},
	{Module: "mod-patron-blocks", Schema: "mod_patron_blocks", Name: "loan_closed_event", Indexes: idx("userId")},
	{Module: "mod-patron-blocks", Schema: "mod_patron_blocks", Name: "fee_fine_balance_changed_event", Indexes: idx("userId")},
	{Module: "mod-patron-blocks", Schema: "mod_patron_blocks", Name: "item_declared_lost_event", Indexes: idx("userId")},
	{Module: "mod-patron-blocks", Schema: "mod_patron_blocks", Name: "item_aged_to_lost_event", Indexes: idx("userId")},
	{Module: "mod-patron-blocks", Schema: "mod_patron_blocks", Name: "item_claimed_returned_event", Indexes: idx("userId")},
	{Module: "mod-patron-blocks", Schema: "mod_patron_blocks", Name: "patron_block_conditions", Key: "patronBlockConditions",
		Path: "/patron-block-conditions", Metadata: true, Required: []string{"name"}},
	{Module: "mod-patron-blocks", Schema: "mod_patron_blocks", Name: "patron_block_limits", Key: "patronBlockLimits",
		Path: "/patron-block-limits", Metadata: true, Indexes: idx("patronGroupId", "conditionId"),
		Required: []string{"patronGroupId", "conditionId", "value"}},

	// mod-configuration
	{Module: "mod-configuration", Schema: "mod_configuration", Name: "config_data", Key: "configs",
		Path: "/configurations/entries", ResultInfo: true, Metadata: true, Indexes: idx("module", "configName", "code"),
		Required: []string{"module", "configName"}},

	// mod-notes (a Spring module upstream with relational tables; here one
	// jsonb table whose records carry their links[]).
	{Module: "mod-notes", Schema: "mod_notes", Name: "note", Key: "notes", Path: "/notes", Metadata: true,
		Required: []string{"typeId", "title"}},

	// mod-settings (a Vert.x module with relational tables upstream; here one
	// jsonb table of {id, scope, key, value, userId} entries).
	{Module: "mod-settings", Schema: "mod_settings", Name: "settings", Indexes: idx("scope", "userId")},

	// mod-notify: only truncated by PTF's reset.
	{Module: "mod-notify", Schema: "mod_notify", Name: "notify_data", Key: "notifications", Indexes: idx("recipientId")},

	// mod-login: salted hashes (see package credentials); the gateway reads it.
	{Module: "mod-login", Schema: "mod_login", Name: "auth_credentials", Indexes: uniq("userId"),
		Required: []string{"userId", "hash", "salt"}},
}
