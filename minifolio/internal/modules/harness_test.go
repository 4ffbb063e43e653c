package modules

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/okapi"
	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// env is every module of catalog.Modules on its own httptest server behind a
// router that plays Okapi's routing part (path prefix → module, X-Okapi-Url,
// X-Okapi-User-Id for the logged-in staff member). Authentication is the
// gateway's own test subject; these tests are about the modules.
type env struct {
	t      testing.TB
	url    string
	tenant string
	pool   *pgxpool.Pool
	hc     *http.Client
	staff  string
}

func newEnv(t testing.TB, pool *pgxpool.Pool, tenant, profileName string) *env {
	t.Helper()
	return newEnvWrapped(t, pool, tenant, profileName, nil)
}

// newEnvWrapped is newEnv with wrap (when not nil) put in front of every
// module's handler, e.g. to inject a fault before one real storage module.
func newEnvWrapped(t testing.TB, pool *pgxpool.Pool, tenant, profileName string, wrap func(module string, h http.Handler) http.Handler) *env {
	t.Helper()
	return newEnvWith(t, pool, tenant, profileName, wrap, nil)
}

// newEnvWith is newEnvWrapped with configure (when not nil) applied to every
// module's Config, e.g. to give the modules a clock the test reads.
func newEnvWith(t testing.TB, pool *pgxpool.Pool, tenant, profileName string, wrap func(module string, h http.Handler) http.Handler, configure func(*Config)) *env {
	t.Helper()
	prof, err := profile.Load("../../profiles", profileName)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, tenant: tenant, pool: pool, staff: newUUID(),
		hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100}, Timeout: 60 * time.Second}}
	backends := map[string]*url.URL{}
	router := httptest.NewUnstartedServer(nil)
	router.Config.MaxHeaderBytes = okapi.MaxHeaderBytes // the gateway's limit, which module-to-module calls pass too
	router.Start()
	t.Cleanup(router.Close)
	e.url = router.URL
	for _, m := range catalog.Modules {
		cfg := Config{Name: m.Name, OkapiURL: router.URL, Profile: profileName}
		if configure != nil {
			configure(&cfg)
		}
		h, err := Handler(cfg, pool, prof)
		if err != nil {
			t.Fatal(err)
		}
		if wrap != nil {
			h = wrap(m.Name, h)
		}
		s := httptest.NewServer(h)
		t.Cleanup(s.Close)
		backends[m.Name], _ = url.Parse(s.URL)
	}
	proxyTransport := &http.Transport{MaxIdleConnsPerHost: 200}
	router.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m, ok := catalog.ForPath(r.URL.Path)
		if !ok {
			http.Error(w, "No suitable module found for path "+r.URL.Path, http.StatusNotFound)
			return
		}
		r.Header.Set("X-Okapi-Url", router.URL)
		if r.Header.Get("X-Okapi-User-Id") == "" && r.Header.Get("X-No-User") == "" {
			r.Header.Set("X-Okapi-User-Id", e.staff)
		}
		p := httputil.NewSingleHostReverseProxy(backends[m.Name])
		p.Transport = proxyTransport
		p.ServeHTTP(w, r)
	})
	return e
}

// newTenant makes a throw-away tenant with the test library's data.
func newTenant(t testing.TB) (*pgxpool.Pool, string, *fixture) {
	return newTenantWith(t, fixtureItems)
}

func newTenantWith(t testing.TB, items int) (*pgxpool.Pool, string, *fixture) {
	t.Helper()
	// Every module of the test shares this pool (in FOLIO each has its own,
	// 8 connections here), so it is sized like several module pools.
	pool, err := storage.Open(context.Background(), storagetest.DSN(t), 24)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	tenant := storagetest.Tenant(t, pool, "mods", storage.DDLOptions{})
	f := loadFixture(t, pool, tenant, items)
	return pool, tenant, f
}

type response struct {
	status int
	body   []byte
	header http.Header
}

func (r response) json(t testing.TB) obj {
	t.Helper()
	var o obj
	if err := json.Unmarshal(r.body, &o); err != nil {
		t.Fatalf("response %d is not a JSON object: %s", r.status, r.body)
	}
	return o
}

func (e *env) do(method, path string, body any, hdr ...string) response {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		switch b := body.(type) {
		case string:
			rd = strings.NewReader(b)
		default:
			j, _ := json.Marshal(b)
			rd = bytes.NewReader(j)
		}
	}
	req, _ := http.NewRequestWithContext(context.Background(), method, e.url+path, rd)
	req.Header.Set("X-Okapi-Tenant", e.tenant)
	req.Header.Set("X-Okapi-Token", "test-token")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		// Errorf, not Fatalf: concurrent tests call do from goroutines.
		e.t.Errorf("%s %s: %v", method, path, err)
		return response{}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, body: b, header: resp.Header}
}

// fixture is a small library: two service points, one location served by the
// first, items, patrons in two groups, policies, rules, block limits.
type fixture struct {
	sp1, sp2, location, group, limitedGroup, instance, holdings string
	items                                                       []string // barcodes it-000..it-0NN, Available
	itemIDs                                                     map[string]string
	users                                                       map[string]string // barcode → id
	loanPolicy, overduePolicy, lostPolicy                       string
}

const fixtureItems = 60

func loadFixture(t testing.TB, pool *pgxpool.Pool, tenant string, items int) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{sp1: newUUID(), sp2: newUUID(), location: newUUID(), group: newUUID(), limitedGroup: newUUID(),
		instance: newUUID(), holdings: newUUID(), itemIDs: map[string]string{}, users: map[string]string{},
		loanPolicy: newUUID(), overduePolicy: newUUID(), lostPolicy: newUUID()}
	put := func(schema, table string, rec obj) {
		tb := storage.MustLookup(schema, table)
		id := str(rec, "id")
		if id == "" {
			id = newUUID()
			rec["id"] = id
		}
		doc, _ := json.Marshal(rec)
		if err := storage.Insert(ctx, pool, tenant, tb, id, doc); err != nil {
			t.Fatalf("fixture %s.%s: %v", schema, table, err)
		}
	}
	inv, circ, users, ff := "mod_inventory_storage", "mod_circulation_storage", "mod_users", "mod_feesfines"
	put(inv, "service_point", obj{"id": f.sp1, "name": "Circ Desk 1", "code": "cd1", "discoveryDisplayName": "Circulation Desk -- Hallway", "pickupLocation": true})
	put(inv, "service_point", obj{"id": f.sp2, "name": "Circ Desk 2", "code": "cd2", "discoveryDisplayName": "Circulation Desk -- Back Entrance", "pickupLocation": true})
	put(inv, "location", obj{"id": f.location, "name": "Main Library", "code": "KU/CC/DI/M", "primaryServicePoint": f.sp1, "servicePointIds": []string{f.sp1}})
	mt, lt, itype := newUUID(), newUUID(), newUUID()
	put(inv, "material_type", obj{"id": mt, "name": "book"})
	put(inv, "loan_type", obj{"id": lt, "name": "Can circulate"})
	put(inv, "instance", obj{"id": f.instance, "title": "A semantic web primer", "source": "FOLIO", "instanceTypeId": itype,
		"contributors": []obj{{"name": "Antoniou, Grigoris", "primary": true}, {"name": "Van Harmelen, Frank"}}})
	put(inv, "holdings_record", obj{"id": f.holdings, "instanceId": f.instance, "permanentLocationId": f.location, "callNumber": "TK5105.88815 .A58 2004"})
	for i := 0; i < items; i++ {
		bc := fmt.Sprintf("it-%03d", i)
		id := newUUID()
		f.items = append(f.items, bc)
		f.itemIDs[bc] = id
		put(inv, "item", obj{"id": id, "barcode": bc, "holdingsRecordId": f.holdings, "materialTypeId": mt, "permanentLoanTypeId": lt,
			"permanentLocationId": f.location, "effectiveLocationId": f.location, "status": obj{"name": "Available"}})
	}
	put(inv, "item", obj{"id": newUUID(), "barcode": "it-missing", "holdingsRecordId": f.holdings, "materialTypeId": mt,
		"permanentLoanTypeId": lt, "effectiveLocationId": f.location, "status": obj{"name": "Missing"}})
	put(inv, "item", obj{"id": newUUID(), "barcode": "it-withdrawn", "holdingsRecordId": f.holdings, "materialTypeId": mt,
		"permanentLoanTypeId": lt, "effectiveLocationId": f.location, "status": obj{"name": "Withdrawn"}})

	put(users, "groups", obj{"id": f.group, "group": "undergrad", "desc": "Undergraduate Student"})
	put(users, "groups", obj{"id": f.limitedGroup, "group": "limited", "desc": "Two items at most"})
	addUser := func(barcode, group string, active bool) {
		id := newUUID()
		f.users[barcode] = id
		put(users, "users", obj{"id": id, "username": "user-" + barcode, "barcode": barcode, "active": active, "type": "patron",
			"patronGroup": group, "personal": obj{"lastName": "Patron " + barcode, "firstName": "Test"}})
	}
	for i := 0; i < 60; i++ {
		addUser(fmt.Sprintf("u-%03d", i), f.group, true)
	}
	addUser("u-inactive", f.group, false)
	addUser("u-manual", f.group, true)
	addUser("u-limited", f.limitedGroup, true)
	addUser("u-history", f.group, true)
	put(ff, "manualblocks", obj{"userId": f.users["u-manual"], "desc": "Lost library card", "borrowing": true, "renewals": true,
		"requests": true, "type": "Manual"})
	put(ff, "manualblocks", obj{"userId": f.users["u-manual"], "desc": "Unpaid invoice", "borrowing": true, "type": "Manual"})
	put(ff, "manualblocks", obj{"userId": f.users["u-manual"], "desc": "Renewals only", "borrowing": false, "renewals": true, "type": "Manual"})

	put(circ, "loan_policy", obj{"id": f.loanPolicy, "name": "Example Loan Policy", "loanable": true, "renewable": true,
		"loansPolicy": obj{"profileId": "Rolling", "period": obj{"duration": 3, "intervalId": "Weeks"}}})
	put(ff, "overdue_fine_policy", obj{"id": f.overduePolicy, "name": "Overdue fine policy"})
	put(ff, "lost_item_fee_policy", obj{"id": f.lostPolicy, "name": "Lost item fee policy"})
	put(circ, "circulation_rules", obj{"rulesAsText": fmt.Sprintf("priority: t, s, c, b, a, m, g\nfallback-policy: l %s r %s n %s o %s i %s\n",
		f.loanPolicy, newUUID(), newUUID(), f.overduePolicy, f.lostPolicy)})
	put(circ, "staff_slips", obj{"name": "Transit", "active": true, "template": "<p></p>"})

	put("mod_patron_blocks", "patron_block_conditions", obj{"id": condItemsChargedOut, "name": "Maximum number of items charged out",
		"blockBorrowing": true, "blockRenewals": false, "blockRequests": false, "valueType": "Integer",
		"message": "Patron has reached maximum allowed number of items charged out"})
	put("mod_patron_blocks", "patron_block_limits", obj{"patronGroupId": f.limitedGroup, "conditionId": condItemsChargedOut, "value": 2})
	// A generous limit for everyone else, so the blocks are evaluated (not
	// short-cut) on every GET without ever blocking.
	put("mod_patron_blocks", "patron_block_limits", obj{"patronGroupId": f.group, "conditionId": condItemsChargedOut, "value": 100000})

	put("mod_configuration", "config_data", obj{"module": "CHECKOUT", "configName": "other_settings", "enabled": true,
		"value": `{"audioAlertsEnabled":false,"checkoutTimeout":true,"checkoutTimeoutDuration":3}`})
	put("mod_notes", "note", obj{"typeId": newUUID(), "title": "Prefers large print", "domain": "users",
		"links": []obj{{"type": "user", "id": f.users["u-000"]}}})
	return f
}
