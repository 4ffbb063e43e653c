package modules

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/jsonlayout"
	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
	"github.com/folio-perf/folio-perf/minifolio/internal/search"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5/pgxpool"
)

// openSearchURL is the test stack's OpenSearch (FP_OPENSEARCH_URL). Like
// PostgreSQL, a missing node skips the test unless FP_REQUIRE_STACK is set.
func openSearchURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("FP_OPENSEARCH_URL")
	if u == "" {
		if os.Getenv("FP_REQUIRE_STACK") != "" {
			t.Fatal("FP_OPENSEARCH_URL is not set but FP_REQUIRE_STACK is: start OpenSearch and export FP_OPENSEARCH_URL=http://127.0.0.1:<port>")
		}
		t.Skip("FP_OPENSEARCH_URL not set (start OpenSearch and export FP_OPENSEARCH_URL)")
	}
	hc := &http.Client{Timeout: 5 * time.Second}
	resp, err := hc.Get(u)
	if err != nil {
		t.Fatalf("OpenSearch does not answer at FP_OPENSEARCH_URL=%s (%v): start it with the stack (stack/stack.sh up search; the test stack of tools/test-env.sh runs it)", u, err)
	}
	resp.Body.Close()
	return u
}

// searchEnv is the module harness with mod-search on a real OpenSearch node
// (osURL), over a fresh tenant with the search corpus below.
type searchEnv struct {
	*env
	pool   *pgxpool.Pool
	corpus map[string]string // name → instance id
	items  map[string]string // name → item id
	hold   map[string]string // name → holdings id
	fix    *fixture
}

func newSearchEnv(t *testing.T, osURL string) *searchEnv {
	t.Helper()
	pool, tenant, f := newTenantWith(t, 0)
	prof, err := profile.Load("../../profiles", "fast")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWrapped(t, pool, tenant, "fast", func(module string, h http.Handler) http.Handler {
		if module != "mod-search" {
			return h
		}
		sh, err := Handler(Config{Name: module, Profile: "fast", OpenSearchURL: osURL}, pool, prof)
		if err != nil {
			t.Fatal(err)
		}
		return sh
	})
	t.Cleanup(func() {
		c := search.NewClient(osURL, 10*time.Second)
		for _, r := range []string{"instance", "authority"} {
			_ = c.Delete(context.Background(), search.IndexName(r, tenant))
		}
	})
	se := &searchEnv{env: e, pool: pool, corpus: map[string]string{}, items: map[string]string{}, hold: map[string]string{}, fix: f}
	se.load(t)
	return se
}

// corpus: a few instances whose fields tell the relations apart, and
// authorities with see-from references.
var corpus = []struct {
	name, title   string
	contributors  []string
	subjects      []string
	langs         []string
	status        string
	staffSuppress bool
	source        string
}{
	{"water", "Water in Africa", []string{"Brown, John"}, []string{"Washington history"}, []string{"eng"}, "Available", false, "MARC"},
	{"policy", "Africa and water policy", []string{"Johnson, Mary"}, []string{"Music"}, []string{"fre"}, "Checked out", false, "FOLIO"},
	{"climate", "Climate change in Africa", []string{"Brownstone, Alice"}, []string{"Climate", "History"}, []string{"ita", "eng"}, "In transit", true, "MARC"},
	{"travel", "International travel guide", []string{"Smith, Adam"}, []string{"Washington"}, []string{"ukr"}, "Available", false, "FOLIO"},
	{"covid", "Covid pandemic chronicle", []string{"Brown, Jon"}, []string{"Medicine"}, []string{"eng"}, "Missing", false, "FOLIO"},
}

func (se *searchEnv) load(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	put := func(table string, rec obj) string {
		tb := storage.MustLookup("mod_inventory_storage", table)
		id := newUUID()
		rec["id"] = id
		doc, _ := json.Marshal(rec)
		if err := storage.Insert(ctx, se.pool, se.tenant, tb, id, doc); err != nil {
			t.Fatal(err)
		}
		return id
	}
	for i, c := range corpus {
		var cs, ss []obj
		for _, n := range c.contributors {
			cs = append(cs, obj{"name": n, "primary": true})
		}
		for _, s := range c.subjects {
			ss = append(ss, obj{"value": s})
		}
		id := put("instance", obj{"title": c.title, "source": c.source, "instanceTypeId": newUUID(), "hrid": fmt.Sprintf("in%05d", i),
			"contributors": cs, "subjects": ss, "languages": c.langs, "staffSuppress": c.staffSuppress, "discoverySuppress": false,
			"identifiers": []obj{{"value": fmt.Sprintf("isbn-%d", i), "identifierTypeId": newUUID()}}})
		se.corpus[c.name] = id
		h := put("holdings_record", obj{"instanceId": id, "permanentLocationId": se.fix.location, "hrid": fmt.Sprintf("ho%05d", i)})
		se.hold[c.name] = h
		se.items[c.name] = put("item", obj{"barcode": "s-" + c.name, "holdingsRecordId": h, "materialTypeId": newUUID(),
			"permanentLoanTypeId": newUUID(), "effectiveLocationId": se.fix.location, "status": obj{"name": c.status}})
	}
	// The authority table is the infrastructure's (seeded by minifolio seed);
	// the same layout is created here when it is not there yet.
	schema := storage.SchemaName(se.tenant, "mod_inventory_storage")
	if _, err := se.pool.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+schema+".authority (id uuid PRIMARY KEY, jsonb jsonb NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	for i, a := range []obj{
		{"personalName": "Smith, Adam", "sftPersonalName": []string{"Smith, A.", "Adam Smith economist"}, "naturalId": "n001"},
		{"corporateName": "American Library Association", "saftCorporateName": []string{"ALA"}, "naturalId": "n002"},
		{"topicalTerm": "Water supply", "naturalId": "n003"},
	} {
		id := newUUID()
		a["id"], a["source"] = id, "MARC"
		doc, _ := json.Marshal(a)
		if _, err := se.pool.Exec(ctx, "INSERT INTO "+schema+".authority (id, jsonb) VALUES ($1, $2)", id, doc); err != nil {
			t.Fatalf("authority %d: %v", i, err)
		}
	}
}

// legacyReindex runs a legacy reindex to its end and returns the final job.
func (se *searchEnv) legacyReindex(t *testing.T, resource string, recreate bool) obj {
	t.Helper()
	r := se.do("POST", "/search/index/inventory/reindex", obj{"recreateIndex": recreate, "resourceName": resource})
	if r.status != 200 {
		t.Fatalf("reindex %s: %d %s", resource, r.status, r.body)
	}
	job := r.json(t)
	if job["jobStatus"] != search.LegacyInProgress || job["submittedDate"] == nil {
		t.Fatalf("reindex job: %s", r.body)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		p := se.do("GET", "/instance-storage/reindex/"+str(job, "id"), nil)
		if p.status != 200 {
			t.Fatalf("progress: %d %s", p.status, p.body)
		}
		v := p.json(t)
		if v["jobStatus"] != search.LegacyInProgress {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("reindex still in progress: %s", p.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type searchResult struct {
	TotalRecords int   `json:"totalRecords"`
	Instances    []obj `json:"instances"`
	Authorities  []obj `json:"authorities"`
}

func (se *searchEnv) search(t *testing.T, path, query string, extra ...string) (searchResult, response) {
	t.Helper()
	u := path + "?query=" + url.QueryEscape(query)
	if !strings.Contains(strings.Join(extra, "&"), "limit=") {
		u += "&limit=100"
	}
	for _, x := range extra {
		u += "&" + x
	}
	r := se.do("GET", u, nil)
	var res searchResult
	if r.status == 200 {
		if err := json.Unmarshal(r.body, &res); err != nil {
			t.Fatalf("%s: %v: %s", u, err, r.body)
		}
	}
	return res, r
}

// names are the corpus names of the instances found (the CICO fixture's own
// instance is "primer").
func (se *searchEnv) names(res searchResult) []string {
	byID := map[string]string{se.fix.instance: "primer"}
	for n, id := range se.corpus {
		byID[id] = n
	}
	var out []string
	for _, in := range res.Instances {
		out = append(out, byID[str(in, "id")])
	}
	sort.Strings(out)
	return out
}

func TestSearchEndToEnd(t *testing.T) {
	osURL := openSearchURL(t)
	se := newSearchEnv(t, osURL)

	job := se.legacyReindex(t, "instance", true)
	if job["jobStatus"] != search.LegacyPublished || job["published"] != float64(len(corpus)+1) || job["resourceName"] != "instance" {
		t.Fatalf("legacy instance reindex: %v", job)
	}
	if job := se.legacyReindex(t, "authority", true); job["jobStatus"] != search.LegacyPublished || job["published"] != float64(3) {
		t.Fatalf("legacy authority reindex: %v", job)
	}

	t.Run("correctness", func(t *testing.T) {
		cases := []struct {
			query string
			want  string // sorted names, comma-separated
		}{
			// A seeded title, contributor and subject find their instance.
			{`title all "International travel guide"`, "travel"},
			{`contributors all "Johnson Mary"`, "policy"},
			{`subjects all "Medicine"`, "covid"},
			// all: every word anywhere; == : the words as a phrase; wildcard: the whole value.
			{`title all "water africa"`, "policy,water"},
			{`title == "water in africa"`, "water"},
			{`title == "africa water"`, ""},
			{`title all "water*"`, "water"},
			{`title all "*africa"`, "climate,water"},
			{`title all "*water*"`, "policy,water"},
			{`title any "travel pandemic"`, "covid,travel"},
			// cql-java 1.13's unquoted terms: after two words a relation word is a word.
			{`title any pandemic travel adj`, "covid,travel"},
			{`keyword all Curious among any`, ""},
			{`title <> "africa"`, "covid,primer,travel"},
			{`title = "water africa"`, "policy,water"},
			{`title = "Water in Africa"`, "water"},
			{`title ==/string "water in africa"`, "water"},
			{`contributors all "Brown"`, "covid,water"},
			{`contributors = "Brown*"`, "climate,covid,water"},
			{`contributors = "*John"`, "water"},
			{`contributors == "Brown John"`, "water"},
			{`contributors <> "Brown John"`, "climate,covid,policy,primer,travel"},
			{`keyword all "smith"`, "travel"},
			{`keyword all "primer"`, "primer"},
			{`subjects = ("Music" OR "Medicine")`, "covid,policy"},
			{`subjects all washington AND title all international`, "travel"},
			{`subjects all washington OR title all covid`, "covid,travel,water"},
			{`subjects all washington NOT title all international`, "water"},
			{`languages == "eng"`, "climate,covid,water"},
			{`languages == ("fre" OR "ukr")`, "policy,travel"},
			{`languages == "eng" AND items.status.name == "Available"`, "water"},
			{`languages == eng AND item.status.name == ("Available" OR "In transit")`, "climate,water"},
			{`keyword all "water africa" AND languages == "eng"`, "water"},
			{`items.status.name == "Missing"`, "covid,primer"},
			{`staffSuppress == "true"`, "climate"},
			{`(staffSuppress=="false" and source=="MARC") sortby title`, "water"},
			{`hrid == "in00001"`, "policy"},
			{`hrid = "in0000*"`, "climate,covid,policy,travel,water"},
			{`identifiers.value == "isbn-3"`, "travel"},
			{`id == "` + se.corpus["covid"] + `"`, "covid"},
			{`id = *`, "climate,covid,policy,primer,travel,water"},
			{`cql.allRecords=1`, "climate,covid,policy,primer,travel,water"},
		}
		for _, c := range cases {
			res, r := se.search(t, "/search/instances", c.query)
			if r.status != 200 {
				t.Errorf("%s: %d %s", c.query, r.status, r.body)
				continue
			}
			if got := strings.Join(se.names(res), ","); got != c.want || res.TotalRecords != len(res.Instances) {
				t.Errorf("%s: got [%s] (totalRecords %d), want [%s]", c.query, got, res.TotalRecords, c.want)
			}
		}
	})

	t.Run("sort, paging and expandAll", func(t *testing.T) {
		res, r := se.search(t, "/search/instances", `cql.allRecords=1 sortBy title/sort.descending`, "limit=2", "offset=1")
		if r.status != 200 || res.TotalRecords != 6 || len(res.Instances) != 2 ||
			res.Instances[0]["title"] != "International travel guide" || res.Instances[1]["title"] != "Covid pandemic chronicle" {
			t.Fatalf("sorted page: %d %s", r.status, r.body)
		}
		if _, ok := res.Instances[0]["items"]; ok {
			t.Errorf("basic answer carries items: %s", r.body)
		}
		res, r = se.search(t, "/search/instances", `hrid == "in00000"`, "expandAll=true")
		items, _ := res.Instances[0]["items"].([]any)
		if r.status != 200 || len(items) != 1 || items[0].(map[string]any)["status"].(map[string]any)["name"] != "Available" {
			t.Fatalf("expandAll: %s", r.body)
		}
	})

	// TestSearchAnswerIsCompact: the answer is written without the layout
	// pass when OpenSearch filtered the sources, so OpenSearch's own text
	// must already be Jackson's compact layout; with expandAll (stored
	// documents, jsonb spacing) the layout pass must still run.
	t.Run("answer layout", func(t *testing.T) {
		for _, c := range []struct{ query, extra string }{
			{`cql.allRecords=1`, "limit=100"},
			{`contributors all "Brown"`, "limit=100"},
			{`title <> "africa"`, "limit=100"},
			{`cql.allRecords=1`, "expandAll=true"},
			{`title == "no such title at all"`, "limit=100"},
		} {
			_, r := se.search(t, "/search/instances", c.query, c.extra)
			if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
				t.Fatalf("%s %s: %d %s %s", c.query, c.extra, r.status, r.header.Get("Content-Type"), r.body)
			}
			if want := jsonlayout.Compact(r.body); string(want) != string(r.body) {
				t.Errorf("%s %s: answer is not in the compact layout:\n got %s\nwant %s", c.query, c.extra, r.body, want)
			}
			if !json.Valid(r.body) {
				t.Errorf("%s %s: answer is not JSON: %s", c.query, c.extra, r.body)
			}
		}
	})

	t.Run("authorities", func(t *testing.T) {
		cases := []struct {
			query string
			want  int
		}{
			{`keyword all "smith"`, 3}, // the authorized heading and both see-from references
			{`keyword == "adam smith"`, 1},
			{`keyword any "ala water"`, 2},
			{`keyword = "americ*"`, 1},
			{`keyword all "*library*"`, 1},
			{`keyword <> "smith"`, 3},
			{`authRefType == "Authorized"`, 3},
			{`(keyword all "water" or naturalId="n001")`, 4},
			{`id=*`, 6},
		}
		for _, c := range cases {
			res, r := se.search(t, "/search/authorities", c.query)
			if r.status != 200 || res.TotalRecords != c.want {
				t.Errorf("%s: %d, totalRecords %d, want %d: %s", c.query, r.status, res.TotalRecords, c.want, r.body)
			}
		}
		res, _ := se.search(t, "/search/authorities", `naturalId == "n001" and authRefType == "Authorized"`)
		if len(res.Authorities) != 1 || res.Authorities[0]["headingRef"] != "Smith, Adam" || res.Authorities[0]["headingType"] != "Personal Name" {
			t.Errorf("authorized heading: %+v", res.Authorities)
		}
	})

	t.Run("facets", func(t *testing.T) {
		r := se.do("GET", "/search/instances/facets?query="+url.QueryEscape("cql.allRecords=1")+"&facet=source&facet=item.status.name:2,languages", nil)
		if r.status != 200 {
			t.Fatalf("facets: %d %s", r.status, r.body)
		}
		var f struct {
			Facets map[string]struct {
				Values []struct {
					ID           string `json:"id"`
					TotalRecords int    `json:"totalRecords"`
				} `json:"values"`
			} `json:"facets"`
			TotalRecords int `json:"totalRecords"`
		}
		_ = json.Unmarshal(r.body, &f)
		src := map[string]int{}
		for _, v := range f.Facets["source"].Values {
			src[v.ID] = v.TotalRecords
		}
		if f.TotalRecords != 6 || src["FOLIO"] != 4 || src["MARC"] != 2 || len(f.Facets["item.status.name"].Values) != 2 || len(f.Facets["languages"].Values) != 4 {
			t.Fatalf("facets: %s", r.body)
		}
		// Values as the records have them (not the normalised search form).
		for _, v := range f.Facets["item.status.name"].Values {
			if (v.ID != "Available" && v.ID != "Missing") || v.TotalRecords != 2 {
				t.Errorf("item.status.name facet value %+v", v)
			}
		}
		r = se.do("GET", "/search/authorities/facets?query="+url.QueryEscape("id=*")+"&facet=headingType", nil)
		if r.status != 200 || !strings.Contains(string(r.body), `"totalRecords":6`) || !strings.Contains(string(r.body), `{"id":"Personal Name","totalRecords":3}`) {
			t.Fatalf("authority facets: %d %s", r.status, r.body)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		cases := []struct {
			path, msg, code string
		}{
			{"/search/instances?query=" + url.QueryEscape(`title all "x`), "Failed to parse CQL query [cql: 'title all \"x', resource: instance]", "service_error"},
			{"/search/instances?query=" + url.QueryEscape(`title all x)`), "Failed to parse CQL query", "service_error"},
			{"/search/instances?query=" + url.QueryEscape(`nosuchfield all x`), "Invalid search field provided in the CQL query", "validation_error"},
			{"/search/authorities?query=" + url.QueryEscape(`title all x`), "Invalid search field provided in the CQL query", "validation_error"},
			{"/search/instances?query=" + url.QueryEscape(`title all x sortBy nosuch`), "Sort field not found or cannot be used", "validation_error"},
			{"/search/instances?query=title%20all%20x&limit=501", "must be less than or equal to 500", "validation_error"},
			{"/search/instances?query=title%20all%20x&limit=-1", "must be greater than or equal to 0", "validation_error"},
			{"/search/instances?query=title%20all%20x&offset=10000", "must be less than or equal to 9999", "validation_error"},
			{"/search/instances?query=title%20all%20x&limit=ten", "Failed to convert value", "validation_error"},
			{"/search/instances", "Required request parameter 'query'", "validation_error"},
			{"/search/instances/facets?query=id%3D*&facet=nosuch", "Invalid facet value", "validation_error"},
		}
		for _, c := range cases {
			r := se.do("GET", c.path, nil)
			var body struct {
				Errors []struct {
					Message, Type, Code string
					Parameters          []Param
				} `json:"errors"`
				TotalRecords int `json:"total_records"`
			}
			_ = json.Unmarshal(r.body, &body)
			if r.status != 400 || len(body.Errors) != 1 || !strings.HasPrefix(body.Errors[0].Message, c.msg) ||
				body.Errors[0].Code != c.code || body.Errors[0].Type == "" || body.TotalRecords != 1 {
				t.Errorf("%s: %d %s, want 400 %q (%s)", c.path, r.status, r.body, c.msg, c.code)
			}
		}
		// An unknown field names itself in the parameters, as mod-search does.
		r := se.do("GET", "/search/instances?query="+url.QueryEscape("nosuchfield all x"), nil)
		if !strings.Contains(string(r.body), `{"key":"field","value":"nosuchfield"}`) {
			t.Errorf("unknown field parameter: %s", r.body)
		}
	})

	t.Run("unknown tenant cannot be reindexed", func(t *testing.T) {
		for _, p := range []string{"/search/index/inventory/reindex", "/search/index/instance-records/reindex/full"} {
			r := se.do("POST", p, obj{"resourceName": "instance"}, "X-Okapi-Tenant", "nosuchtenant_x1")
			if r.status != 400 || !strings.Contains(string(r.body), "Tenant not found: nosuchtenant_x1") {
				t.Errorf("%s for an unknown tenant: %d %s", p, r.status, r.body)
			}
		}
		if r := se.do("POST", "/search/index/inventory/reindex", obj{"resourceName": "holdings"}); r.status != 400 {
			t.Errorf("reindex of an unsupported resource: %d %s", r.status, r.body)
		}
		if r := se.do("GET", "/instance-storage/reindex/"+newUUID(), nil); r.status != 404 {
			t.Errorf("progress of an unknown job: %d %s", r.status, r.body)
		}
	})

	t.Run("item status follows check-out", func(t *testing.T) {
		// The item write goes through mod-inventory-storage as check-out's does.
		id := se.items["travel"]
		r := se.do("GET", "/item-storage/items/"+id, nil)
		item := r.json(t)
		item["status"] = obj{"name": "Checked out"}
		if r := se.do("PUT", "/item-storage/items/"+id, item); r.status != 204 {
			t.Fatalf("item PUT: %d %s", r.status, r.body)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			res, _ := se.search(t, "/search/instances", `items.status.name == "Checked out"`)
			if got := strings.Join(se.names(res), ","); got == "policy,travel" {
				break
			} else if time.Now().After(deadline) {
				t.Fatalf("items.status.name not refreshed after the item PUT: [%s]", got)
			}
			time.Sleep(200 * time.Millisecond)
		}
	})

	t.Run("current reindex generation", func(t *testing.T) {
		if r := se.do("POST", "/search/index/instance-records/reindex/full", obj{}); r.status != 200 {
			t.Fatalf("full reindex: %d %s", r.status, r.body)
		}
		deadline := time.Now().Add(2 * time.Minute)
		for {
			r := se.do("GET", "/search/index/instance-records/reindex/status", nil)
			var st []search.EntityStatus
			if err := json.Unmarshal(r.body, &st); err != nil || r.status != 200 || len(st) != 3 {
				t.Fatalf("status: %d %s", r.status, r.body)
			}
			byType := map[string]search.EntityStatus{}
			for _, e := range st {
				byType[e.EntityType] = e
			}
			in := byType["INSTANCE"]
			if in.Status == search.UploadCompleted {
				if byType["HOLDINGS"].Status != search.MergeCompleted || byType["ITEM"].Status != search.MergeCompleted ||
					in.ProcessedUploadRanges != in.TotalUploadRanges || in.TotalUploadRanges != 1 || in.EndTimeUpload == "" || in.StartTimeMerge == "" {
					t.Fatalf("completed status: %s", r.body)
				}
				break
			}
			if strings.Contains(string(r.body), "FAILED") || time.Now().After(deadline) {
				t.Fatalf("full reindex did not complete: %s", r.body)
			}
			time.Sleep(100 * time.Millisecond)
		}
		res, _ := se.search(t, "/search/instances", "cql.allRecords=1")
		if res.TotalRecords != 6 {
			t.Fatalf("after the full reindex: %d instances", res.TotalRecords)
		}
	})
}

// TestSearchTenantIsolation: tenant B's searches never see tenant A's index.
func TestSearchTenantIsolation(t *testing.T) {
	osURL := openSearchURL(t)
	a := newSearchEnv(t, osURL)
	b := newSearchEnv(t, osURL)
	a.legacyReindex(t, "instance", true)
	// B has no index yet: nothing, not A's records.
	if res, r := b.search(t, "/search/instances", "cql.allRecords=1"); r.status != 200 || res.TotalRecords != 0 {
		t.Fatalf("tenant B before its reindex: %d %s", r.status, r.body)
	}
	b.legacyReindex(t, "instance", false)
	res, _ := b.search(t, "/search/instances", `title all "water africa"`)
	for _, in := range res.Instances {
		if id := str(in, "id"); id == a.corpus["water"] || id == a.corpus["policy"] {
			t.Fatalf("tenant B found tenant A's instance %s", id)
		}
	}
	if got := strings.Join(b.names(res), ","); got != "policy,water" {
		t.Fatalf("tenant B: [%s]", got)
	}
}

// TestSearchOpenSearchDown: a node that refuses connections gives a 500 with
// mod-search's body at once, and one that accepts but never answers gives it
// when the request's OpenSearch timeout ends, never a hung request.
func TestSearchOpenSearchDown(t *testing.T) {
	pool, tenant, _ := newTenantWith(t, 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	prof, _ := profile.Load("../../profiles", "fast")
	e := newEnvWrapped(t, pool, tenant, "fast", func(module string, h http.Handler) http.Handler {
		if module != "mod-search" {
			return h
		}
		sh, err := Handler(Config{Name: module, Profile: "fast", OpenSearchURL: dead}, pool, prof)
		if err != nil {
			t.Fatal(err)
		}
		return sh
	})
	for _, p := range []string{"/search/instances?query=title%20all%20x", "/search/authorities?query=keyword%20all%20x",
		"/search/instances/facets?query=id%3D*&facet=source"} {
		r := e.do("GET", p, nil)
		if r.status != 500 || !strings.Contains(string(r.body), `"code":"elasticsearch_error"`) || !strings.Contains(string(r.body), "OpenSearch is unavailable") {
			t.Errorf("%s with OpenSearch down: %d %s", p, r.status, r.body)
		}
	}
	// A node that accepts connections but never answers: a 500 when the
	// module's OpenSearch timeout ends, not a request held open.
	hung, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hung.Close() })
	go func() {
		for {
			c, err := hung.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	eh := newEnvWrapped(t, pool, tenant, "fast", func(module string, h http.Handler) http.Handler {
		if module != "mod-search" {
			return h
		}
		sh, err := Handler(Config{Name: module, Profile: "fast", OpenSearchURL: "http://" + hung.Addr().String(), SearchTimeout: 300 * time.Millisecond}, pool, prof)
		if err != nil {
			t.Fatal(err)
		}
		return sh
	})
	if r := eh.do("GET", "/search/instances?query=title%20all%20x", nil); r.status != 500 ||
		!strings.Contains(string(r.body), "OpenSearch did not answer within 300ms") || !strings.Contains(string(r.body), `"code":"elasticsearch_error"`) {
		t.Errorf("search with a hung OpenSearch: %d %s", r.status, r.body)
	}

	// A reindex started against a dead node fails and says so.
	r := e.do("POST", "/search/index/inventory/reindex", obj{"resourceName": "instance"})
	job := r.json(t)
	for i := 0; i < 100; i++ {
		v := e.do("GET", "/instance-storage/reindex/"+str(job, "id"), nil).json(t)
		if v["jobStatus"] == search.LegacyFailed {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("a reindex against a dead OpenSearch did not fail")
}

// TestSearchPassthrough: the benchmark's floor route sends a registered
// OpenSearch request as it was registered and answers OpenSearch's body as it
// is; without the setting the route does not exist.
func TestSearchPassthrough(t *testing.T) {
	osURL := openSearchURL(t)
	pool, tenant, _ := newTenantWith(t, 0)
	prof, _ := profile.Load("../../profiles", "fast")
	for _, on := range []bool{true, false} {
		h, err := Handler(Config{Name: "mod-search", Profile: "fast", OpenSearchURL: osURL, SearchPassthrough: on}, pool, prof)
		if err != nil {
			t.Fatal(err)
		}
		do := func(method, path, body string) *httptest.ResponseRecorder {
			req := httptest.NewRequest(method, path, strings.NewReader(body))
			req.Header.Set("X-Okapi-Tenant", tenant)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			return w
		}
		register := func(path, body string) string {
			t.Helper()
			b, _ := json.Marshal(map[string]string{"path": path, "body": body})
			w := do("POST", "/search/passthrough", string(b))
			var out struct{ ID string }
			if w.Code != 201 || json.Unmarshal(w.Body.Bytes(), &out) != nil || out.ID == "" {
				t.Fatalf("register %s: %d %s", path, w.Code, w.Body)
			}
			return out.ID
		}
		if !on {
			if w := do("POST", "/search/passthrough", `{"path":"/_count","body":"{}"}`); w.Code/100 == 2 {
				t.Fatalf("pass-through registered a request without the setting: %d %s", w.Code, w.Body)
			}
			continue
		}
		count := register("/_count?filter_path=count", `{"query":{"match_all":{}}}`)
		missing := register("/no_such_index_"+tenant+"/_search", `{"query":{"match_all":{}}}`)
		if w := do("GET", "/search/passthrough?id="+count, ""); w.Code != 200 || !regexp.MustCompile(`^\{"count":[0-9]+\}$`).Match(w.Body.Bytes()) {
			t.Fatalf("pass-through of _count: %d %s", w.Code, w.Body)
		}
		// OpenSearch's own error status and body go through unchanged.
		if w := do("GET", "/search/passthrough?id="+missing, ""); w.Code != 404 || !strings.Contains(w.Body.String(), "index_not_found_exception") {
			t.Fatalf("pass-through of a search on a missing index: %d %s", w.Code, w.Body)
		}
		if w := do("GET", "/search/passthrough?id=999999", ""); w.Code != 404 {
			t.Fatalf("an id never registered: %d %s", w.Code, w.Body)
		}
		if w := do("POST", "/search/passthrough", `{"path":"no-slash"}`); w.Code != 400 {
			t.Fatalf("a path without its slash was registered: %d %s", w.Code, w.Body)
		}
	}
}

// mod-search's reindex API by release: from 4.0 (Ramsons; Sunflower's 5.0.4)
// the legacy endpoint refuses "instance" (its resourceName enum lost it) and
// instance-records/reindex/full answers 200 with an empty body.
func TestReindexAPIByRelease(t *testing.T) {
	osURL := openSearchURL(t)
	pool, tenant, _ := newTenantWith(t, 0)
	t.Cleanup(func() {
		c := search.NewClient(osURL, 10*time.Second)
		for _, r := range []string{"instance", "authority"} {
			_ = c.Delete(context.Background(), search.IndexName(r, tenant))
		}
	})
	serve := func(profileName string) string {
		prof, err := profile.Load("../../profiles", profileName)
		if err != nil {
			t.Fatal(err)
		}
		h, err := Handler(Config{Name: "mod-search", Profile: profileName, OpenSearchURL: osURL}, pool, prof)
		if err != nil {
			t.Fatal(err)
		}
		s := httptest.NewServer(h)
		t.Cleanup(s.Close)
		return s.URL
	}
	post := func(base, path, body string) (int, http.Header, string) {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("X-Okapi-Tenant", tenant)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	sunflower := serve("sunflower")
	st, _, body := post(sunflower, "/search/index/inventory/reindex", `{"resourceName":"instance"}`)
	if want := `{"errors":[{"code":"validation_error","message":"Unexpected value 'instance'","parameters":[],"type":"IllegalArgumentException"}],"total_records":1}`; st != 400 || body != want {
		t.Errorf("legacy reindex of instance on mod-search 5: %d %s, want 400 %s", st, body, want)
	}
	st, hdr, body := post(sunflower, "/search/index/instance-records/reindex/full", `{}`)
	if st != 200 || body != "" || hdr.Get("Content-Length") != "0" {
		t.Errorf("full reindex on mod-search 5: %d %q %v", st, body, hdr)
	}
	req, _ := http.NewRequest("GET", sunflower+"/search/index/instance-records/reindex/status", nil)
	req.Header.Set("X-Okapi-Tenant", tenant)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(string(b), "[") {
		t.Errorf("reindex status: %d %s, want an array", resp.StatusCode, b)
	}
	// Lotus' mod-search 1.6 still reindexes instances on the legacy endpoint.
	if st, _, body := post(serve("lotus"), "/search/index/inventory/reindex", `{"resourceName":"instance"}`); st != 200 || !strings.Contains(body, `"jobStatus"`) {
		t.Errorf("legacy reindex on mod-search 1.6: %d %s", st, body)
	}
}
