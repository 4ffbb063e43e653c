package seed

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5"
)

var (
	itemT        = storage.MustLookup("mod_inventory_storage", "item")
	holdingsT    = storage.MustLookup("mod_inventory_storage", "holdings_record")
	instanceT    = storage.MustLookup("mod_inventory_storage", "instance")
	authorityT   = storage.MustLookup("mod_inventory_storage", "authority")
	usersT       = storage.MustLookup("mod_users", "users")
	loanT        = storage.MustLookup("mod_circulation_storage", "loan")
	credsT       = storage.MustLookup("mod_login", "auth_credentials")
	checkedOutT  = storage.MustLookup("mod_patron_blocks", "item_checked_out_event")
	checkedInT   = storage.MustLookup("mod_patron_blocks", "item_checked_in_event")
	seedEpoch    = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC) // fixed, so documents are reproducible
	seedDate     = "2026-01-05T09:00:00.000+00:00"
	metadataJSON = `{"createdDate":"` + seedDate + `","updatedDate":"` + seedDate + `"}`
)

// FOLIO's patron block condition ids (mod-patron-blocks reference data).
const (
	CondItemsChargedOut = "3d7c52dc-c732-4223-8bf8-e5917801386f"
	CondLostItems       = "72b67965-5b73-4840-bc0b-be8f3f6e047e"
	CondOverdueItems    = "584fbd4f-6a34-4730-a6ca-73a6a6a9d845"
	CondFeeFineBalance  = "cf7a0d5f-a327-4ca1-aa9e-dc55ec006b8a"
)

// gen builds the documents of one seed; ids are derived from the tenant.
type gen struct {
	o          Options
	t          string
	eventUsers int
	// reference ids
	sp, loc                               [2]string
	mtype, ltype, itype, inst, camp, lib  string
	groups                                [4]string // staff, undergrad, graduate, faculty
	loanPolicy, reqPolicy, noticePolicy   string
	overduePolicy, lostPolicy, contribTyp string
	admin                                 string   // the operator's user id
	words                                 []string // vocabulary of titles, names, subjects, headings
	days                                  []string // day(d) for the history's days
}

func newGen(o Options) *gen {
	t := o.Tenant
	id := func(k string, i int) string { return IDString(t, k, i) }
	g := &gen{o: o, t: t, eventUsers: o.historyUsers(), words: o.Words}
	for d := 0; d <= o.EventsPerUser+21; d++ {
		g.days = append(g.days, seedEpoch.AddDate(0, 0, -d).Format(dateLayout))
	}
	g.sp = [2]string{PTFServicePointID, id("servicepoint", 1)}
	g.admin = id("user-admin", 0)
	g.loc = [2]string{id("location", 0), id("location", 1)}
	g.mtype, g.ltype, g.itype = id("materialtype", 0), id("loantype", 0), id("instancetype", 0)
	g.inst, g.camp, g.lib = id("institution", 0), id("campus", 0), id("library", 0)
	for i := range g.groups {
		g.groups[i] = id("group", i)
	}
	g.loanPolicy, g.reqPolicy, g.noticePolicy = id("loanpolicy", 0), id("requestpolicy", 0), id("noticepolicy", 0)
	g.overduePolicy, g.lostPolicy, g.contribTyp = id("overduepolicy", 0), id("lostpolicy", 0), id("contribnametype", 0)
	return g
}

func (g *gen) progress(format string, args ...any) {
	if g.o.Progress != nil {
		fmt.Fprintf(g.o.Progress, "seed %s: %s\n", g.t, fmt.Sprintf(format, args...))
	}
}

type obj = map[string]any

// reference writes the small reference data the CICO workflow reads, in the
// shapes the modules expect (service points, locations, types, groups,
// policies and circulation rules, block conditions/limits, configuration,
// staff slips) plus the operator and the special test users (not the
// special items: missingItems).
func (g *gen) reference(ctx context.Context, tx pgx.Tx) error {
	put := func(schema, table string, id string, rec obj) error { return g.put(ctx, tx, schema, table, id, rec) }
	id := func(k string, i int) string { return IDString(g.t, k, i) }
	inv, circ, users, ff, pb := "mod_inventory_storage", "mod_circulation_storage", "mod_users", "mod_feesfines", "mod_patron_blocks"
	steps := []func() error{
		func() error {
			return put(inv, "service_point", g.sp[0], obj{"name": "Circ Desk 1", "code": "cd1",
				"discoveryDisplayName": "Circulation Desk -- Hallway", "pickupLocation": true,
				"holdShelfExpiryPeriod": obj{"duration": 3, "intervalId": "Weeks"}, "staffSlips": []obj{}})
		},
		func() error {
			return put(inv, "service_point", g.sp[1], obj{"name": "Circ Desk 2", "code": "cd2",
				"discoveryDisplayName": "Circulation Desk -- Back Entrance", "pickupLocation": true,
				"holdShelfExpiryPeriod": obj{"duration": 5, "intervalId": "Days"}, "staffSlips": []obj{}})
		},
		func() error {
			return put(inv, "location", g.loc[0], obj{"name": "Main Library", "code": "KU/CC/DI/M", "isActive": true,
				"institutionId": g.inst, "campusId": g.camp, "libraryId": g.lib,
				"primaryServicePoint": g.sp[0], "servicePointIds": []string{g.sp[0]}})
		},
		func() error {
			return put(inv, "location", g.loc[1], obj{"name": "Annex", "code": "KU/CC/DI/A", "isActive": true,
				"institutionId": g.inst, "campusId": g.camp, "libraryId": g.lib,
				"primaryServicePoint": g.sp[1], "servicePointIds": []string{g.sp[1]}})
		},
		func() error { return put(inv, "material_type", g.mtype, obj{"name": "book", "source": "folio"}) },
		func() error {
			return put(inv, "material_type", id("materialtype", 1), obj{"name": "dvd", "source": "folio"})
		},
		func() error { return put(inv, "loan_type", g.ltype, obj{"name": "Can circulate"}) },
		func() error { return put(inv, "loan_type", id("loantype", 1), obj{"name": "Course reserves"}) },
	}
	groupNames := []string{"staff", "undergrad", "graduate", "faculty"}
	for i, n := range groupNames {
		steps = append(steps, func() error {
			return put(users, "groups", g.groups[i], obj{"group": n, "desc": n + " (minifolio seed)", "expirationOffsetInDays": 365})
		})
	}
	rules := fmt.Sprintf("priority: t, s, c, b, a, m, g\nfallback-policy: l %s r %s n %s o %s i %s\n",
		g.loanPolicy, g.reqPolicy, g.noticePolicy, g.overduePolicy, g.lostPolicy)
	steps = append(steps,
		func() error {
			return put(circ, "loan_policy", g.loanPolicy, obj{"name": "Example Loan Policy", "loanable": true, "renewable": true,
				"loansPolicy": obj{"profileId": "Rolling", "period": obj{"duration": 3, "intervalId": "Weeks"},
					"closedLibraryDueDateManagementId": "CURRENT_DUE_DATE"},
				"renewalsPolicy": obj{"unlimited": false, "numberAllowed": 3, "renewFromId": "CURRENT_DUE_DATE"}})
		},
		func() error {
			return put(circ, "request_policy", g.reqPolicy, obj{"name": "Example Request Policy",
				"requestTypes": []string{"Hold", "Page", "Recall"}})
		},
		func() error {
			return put(circ, "patron_notice_policy", g.noticePolicy, obj{"name": "Example Notice Policy", "active": true})
		},
		func() error { return put(circ, "circulation_rules", id("rules", 0), obj{"rulesAsText": rules}) },
		func() error {
			return put(ff, "overdue_fine_policy", g.overduePolicy, obj{"name": "Overdue Fine Policy",
				"overdueFine": obj{"quantity": 0.25, "intervalId": "day"}, "countClosed": true, "forgiveOverdueFine": true})
		},
		func() error {
			return put(ff, "lost_item_fee_policy", g.lostPolicy, obj{"name": "Lost Item Fee Policy",
				"chargeAmountItem": obj{"chargeType": "actualCost", "amount": 0}, "lostItemProcessingFee": 5,
				"chargeAmountItemPatron": true, "chargeAmountItemSystem": true, "returnedLostItemProcessingFee": false})
		},
	)
	for i, n := range []string{"Hold", "Transit", "Request delivery", "Pick slip", "Search slip (Hold requests)"} {
		steps = append(steps, func() error {
			return put(circ, "staff_slips", id("staffslip", i), obj{"name": n, "active": true,
				"template": "<p>{{item.title}} {{item.barcode}}</p>"})
		})
	}
	conds := []struct {
		id, name, msg string
		vt            string
	}{
		{CondItemsChargedOut, "Maximum number of items charged out", "Patron has reached maximum allowed number of items charged out", "Integer"},
		{CondLostItems, "Maximum number of lost items", "Patron has reached maximum allowed number of lost items", "Integer"},
		{CondOverdueItems, "Maximum number of overdue items", "Patron has reached maximum allowed number of overdue items", "Integer"},
		{CondFeeFineBalance, "Maximum outstanding fee/fine balance", "Patron has reached maximum allowed outstanding fee/fine balance", "Double"},
	}
	for _, c := range conds {
		steps = append(steps, func() error {
			return put(pb, "patron_block_conditions", c.id, obj{"name": c.name, "message": c.msg, "valueType": c.vt,
				"blockBorrowing": true, "blockRenewals": false, "blockRequests": false})
		})
	}
	// Generous limits: blocks are evaluated on every GET but never block
	// the load test's patrons.
	for i := range g.groups {
		steps = append(steps, func() error {
			return put(pb, "patron_block_limits", id("blocklimit", i), obj{"patronGroupId": g.groups[i],
				"conditionId": CondItemsChargedOut, "value": 100000})
		})
	}
	steps = append(steps,
		func() error {
			return put("mod_configuration", "config_data", id("config", 0), obj{"module": "CHECKOUT", "configName": "other_settings",
				"enabled": true, "value": `{"audioAlertsEnabled":false,"audioTheme":"classic","checkoutTimeout":true,"checkoutTimeoutDuration":3,"prefPatronIdentifier":"barcode,username","useCustomFieldsAsIdentifiers":false,"wildcardLookupEnabled":false}`})
		},
		func() error {
			return put("mod_configuration", "config_data", id("config", 1), obj{"module": "ORG", "configName": "localeSettings",
				"enabled": true, "value": `{"locale":"en-US","timezone":"UTC","currency":"USD"}`})
		},
	)
	for _, f := range steps {
		if err := f(); err != nil {
			return err
		}
	}
	return g.specialUsers(ctx, tx, put)
}

// put inserts one record (with RMB's metadata where the table has it).
func (g *gen) put(ctx context.Context, tx pgx.Tx, schema, table string, id string, rec obj) error {
	tb := storage.MustLookup(schema, table)
	rec["id"] = id
	if tb.Metadata {
		rec["metadata"] = json.RawMessage(metadataJSON)
	}
	doc, _ := json.Marshal(rec)
	if err := storage.Insert(ctx, tx, g.t, tb, id, doc); err != nil {
		return fmt.Errorf("seeding %s.%s: %w", schema, table, err)
	}
	return nil
}

// specialUsers: the operator (with credentials), inactive and manually
// blocked patrons, and items whose status forbids check-out.
func (g *gen) specialUsers(ctx context.Context, tx pgx.Tx, put func(string, string, string, obj) error) error {
	admin := g.admin
	if err := put("mod_users", "users", admin, obj{"username": g.o.AdminUser, "barcode": g.o.AdminUser, "active": true,
		"type": "staff", "patronGroup": g.groups[0], "personal": obj{"lastName": "Admin", "firstName": "minifolio"}}); err != nil {
		return err
	}
	cred, err := adminCredentials(admin, g.o.AdminPassword)
	if err != nil {
		return err
	}
	if err := storage.Insert(ctx, tx, g.t, credsT, IDString(g.t, "credentials", 0), cred); err != nil {
		return err
	}
	if err := put("mod_inventory_storage", "service_point_user", IDString(g.t, "spuser", 0), obj{"userId": admin,
		"servicePointsIds": g.sp[:], "defaultServicePointId": g.sp[0]}); err != nil {
		return err
	}
	for i := 0; i < SpecialUsers; i++ {
		if err := put("mod_users", "users", IDString(g.t, "user-inactive", i), g.userDoc(InactiveUserBarcode(i), i, false)); err != nil {
			return err
		}
		uid := IDString(g.t, "user-blocked", i)
		if err := put("mod_users", "users", uid, g.userDoc(BlockedUserBarcode(i), i, true)); err != nil {
			return err
		}
		if err := put("mod_feesfines", "manualblocks", IDString(g.t, "manualblock", i), obj{"userId": uid, "type": "Manual",
			"desc": "Seeded manual block", "patronMessage": "Please contact the library", "staffInformation": "minifolio seed",
			"borrowing": true, "renewals": true, "requests": true}); err != nil {
			return err
		}
	}
	return nil
}

// missingItems: items whose status forbids check-out, on holdings record 0
// (in the items' transaction: that one empties the item table first).
func (g *gen) missingItems(ctx context.Context, tx pgx.Tx) error {
	if g.o.Items == 0 {
		return nil // a missing item needs holdings record 0, made only when there are items
	}
	for i := 0; i < SpecialUsers; i++ {
		if err := g.put(ctx, tx, "mod_inventory_storage", "item", IDString(g.t, "item-missing", i),
			g.itemDoc(MissingItemBarcode(i), "Missing", IDString(g.t, "holdings", 0))); err != nil {
			return err
		}
	}
	return nil
}

var (
	firstNames = []string{"Ada", "Ben", "Chloe", "Dmitri", "Elif", "Farah", "Goran", "Hana", "Ivo", "Jun", "Kemal", "Lena"}
	lastNames  = []string{"Abbott", "Berg", "Castro", "Dumas", "Eriksen", "Fischer", "Garcia", "Horvat", "Ito", "Jensen", "Kowalski", "Lopez"}
)

func (g *gen) userDoc(barcode string, i int, active bool) obj {
	return obj{"username": barcode, "barcode": barcode, "externalSystemId": "ext-" + barcode, "active": active,
		"type": "patron", "patronGroup": g.groups[1+i%3],
		"personal": obj{"lastName": lastNames[i%len(lastNames)], "firstName": firstNames[(i/len(lastNames))%len(firstNames)],
			"email": barcode + "@example.org", "preferredContactTypeId": "002"},
		"enrollmentDate": "2025-09-01T00:00:00.000+00:00", "expirationDate": "2030-08-31T00:00:00.000+00:00",
		"departments": []string{}, "proxyFor": []string{}}
}

// appendUser appends userDoc(barcode, i, true) with its id and metadata, as
// the bulk load writes it (without encoding/json: a million patrons).
func (g *gen) appendUser(b []byte, id [16]byte, barcode string, i int) []byte {
	b = appendUUID(append(b, `{"id":"`...), id)
	b = append(append(b, `","username":"`...), barcode...)
	b = append(append(b, `","barcode":"`...), barcode...)
	b = append(append(b, `","externalSystemId":"ext-`...), barcode...)
	b = append(append(b, `","active":true,"type":"patron","patronGroup":"`...), g.groups[1+i%3]...)
	b = append(append(b, `","personal":{"lastName":"`...), lastNames[i%len(lastNames)]...)
	b = append(append(b, `","firstName":"`...), firstNames[(i/len(lastNames))%len(firstNames)]...)
	b = append(append(b, `","email":"`...), barcode...)
	b = append(b, `@example.org","preferredContactTypeId":"002"},"enrollmentDate":"2025-09-01T00:00:00.000+00:00",`+
		`"expirationDate":"2030-08-31T00:00:00.000+00:00","departments":[],"proxyFor":[],`...)
	b = append(b, `"metadata":`...)
	return append(append(b, metadataJSON...), '}')
}

// itemDoc is one special (non-bulk) item.
func (g *gen) itemDoc(barcode, status, holdings string) obj {
	return obj{"hrid": "it" + barcode, "barcode": barcode, "holdingsRecordId": holdings,
		"status":         obj{"name": status, "date": "2026-01-05T09:00:00.000+00:00"},
		"materialTypeId": g.mtype, "permanentLoanTypeId": g.ltype, "effectiveLocationId": g.loc[0],
		"discoverySuppress": false}
}
