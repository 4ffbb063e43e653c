package modules

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// addHistory gives a user `events` past check-outs, all but `open` of them
// checked in again, and the summary mod-patron-blocks maintains for that.
func addHistory(t *testing.T, e *env, userID string, events, open int) {
	t.Helper()
	ctx := context.Background()
	pb := e.tenant + "_mod_patron_blocks"
	for _, sql := range []string{
		`INSERT INTO ` + pb + `.item_checked_out_event (id, jsonb)
		   SELECT gen_random_uuid(), jsonb_build_object('userId', $1::text, 'loanId', md5($1 || g)::uuid::text,
		     'dueDate', '2030-01-01T00:00:00.000Z') FROM generate_series(1, $2::int) g WHERE $3::int >= 0`,
		`INSERT INTO ` + pb + `.item_checked_in_event (id, jsonb)
		   SELECT gen_random_uuid(), jsonb_build_object('userId', $1::text, 'loanId', md5($1 || g)::uuid::text,
		     'returnDate', '2026-01-01T00:00:00.000Z') FROM generate_series(1, $2::int - $3::int) g`,
		`INSERT INTO ` + pb + `.user_summary (id, jsonb)
		   SELECT gen_random_uuid(), jsonb_build_object('userId', $1::text, 'openFeesFines', '[]'::jsonb, 'openLoans',
		     (SELECT jsonb_agg(jsonb_build_object('loanId', md5($1 || g)::uuid::text, 'dueDate', '2030-01-01T00:00:00.000Z',
		       'recall', false, 'itemLost', false, 'itemClaimedReturned', false))
		      FROM generate_series($2::int - $3::int + 1, $2::int) g))`,
	} {
		if _, err := e.pool.Exec(ctx, sql, userID, events, open); err != nil {
			t.Fatal(err)
		}
	}
	e.pool.Exec(ctx, "ANALYZE "+pb+".item_checked_out_event")
	e.pool.Exec(ctx, "ANALYZE "+pb+".item_checked_in_event")
}

// Under juniper-patron-blocks the blocks of a patron with a long history cost
// much more than under fast, by the mechanism (re-reading every event), and
// both profiles compute the same answer.
func TestJuniperPatronBlocksCostGrowsWithHistory(t *testing.T) {
	pool, tenant, f := newTenant(t)
	fast := newEnv(t, pool, tenant, "fast")
	juniper := newEnv(t, pool, tenant, "juniper-patron-blocks")
	uid := f.users["u-history"]
	addHistory(t, fast, uid, 2000, 10)
	path := "/automated-patron-blocks/" + uid + "?limit=100"

	for _, e := range []*env{fast, juniper} { // same answer; warms connections and plans
		r := e.do("GET", path, nil)
		if r.status != 200 || string(r.body) != `{"automatedPatronBlocks":[]}` {
			t.Fatalf("blocks: %d %s", r.status, r.body)
		}
	}
	// Medians of interleaved calls: a scheduling spike on the shared machine
	// moves a total, not a median.
	var fastTimes, juniperTimes []time.Duration
	const rounds = 21
	for i := 0; i < rounds; i++ {
		for _, x := range []struct {
			e     *env
			times *[]time.Duration
		}{{fast, &fastTimes}, {juniper, &juniperTimes}} {
			start := time.Now()
			if r := x.e.do("GET", path, nil); r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			*x.times = append(*x.times, time.Since(start))
		}
	}
	fastMed, juniperMed := pct(fastTimes, 0.5), pct(juniperTimes, 0.5)
	ratio := float64(juniperMed) / float64(fastMed)
	t.Logf("median of %d calls: fast %v, juniper-patron-blocks %v, ratio %.1f", rounds, fastMed, juniperMed, ratio)
	if ratio < 3 {
		t.Fatalf("juniper-patron-blocks is only %.1f× slower than fast for a patron with 2,000 events; want ≥ 3×", ratio)
	}
	// The rebuild kept the summary right: still exactly the 10 open loans.
	var n int
	pool.QueryRow(t.Context(), `SELECT jsonb_array_length(jsonb->'openLoans') FROM `+tenant+`_mod_patron_blocks.user_summary
		WHERE jsonb->>'userId' = $1`, uid).Scan(&n)
	if n != 10 {
		t.Fatalf("summary after rebuilds has %d open loans, want 10", n)
	}
}

// A patron at the group's limit is blocked under both profiles; under
// juniper-patron-blocks the block comes from replaying the events.
func TestBlocksFromEventsMatchTheSummary(t *testing.T) {
	pool, tenant, f := newTenant(t)
	for _, name := range []string{"fast", "juniper-patron-blocks"} {
		e := newEnv(t, pool, tenant, name)
		uid := f.users["u-limited"]
		blocks := func() string { return string(e.do("GET", "/automated-patron-blocks/"+uid, nil).body) }
		if name == "fast" {
			if b := blocks(); b != `{"automatedPatronBlocks":[]}` {
				t.Fatalf("%s: no loans yet but %s", name, b)
			}
			for _, it := range []string{"it-030", "it-031"} {
				if r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, it, "u-limited")); r.status != 201 {
					t.Fatalf("check-out: %d %s", r.status, r.body)
				}
			}
		}
		b := blocks()
		if !strings.Contains(b, `"patronBlockConditionId":"`+condItemsChargedOut+`"`) || !strings.Contains(b, `"blockBorrowing":true`) ||
			!strings.Contains(b, `"message":"Patron has reached maximum allowed number of items charged out"`) {
			t.Fatalf("%s: patron at the limit: %s", name, b)
		}
	}
	// after a check-in the patron is below the limit again
	e := newEnv(t, pool, tenant, "juniper-patron-blocks")
	if r := e.do("POST", "/circulation/check-in-by-barcode", map[string]any{"servicePointId": f.sp1, "checkInDate": "2026-11-22T11:00:00Z", "itemBarcode": "it-030"}); r.status != 200 {
		t.Fatalf("check-in: %d %s", r.status, r.body)
	}
	if b := string(e.do("GET", "/automated-patron-blocks/"+f.users["u-limited"], nil).body); b != `{"automatedPatronBlocks":[]}` {
		t.Fatalf("after check-in: %s", b)
	}
}

// syncBuffer collects slog output from concurrent handlers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// missing-index drops the loan/request indexes, the queries log RMB's line
// and PostgreSQL really scans; another profile puts the indexes back.
func TestMissingIndexProfileDropsAndRestoresIndexes(t *testing.T) {
	pool, tenant, f := newTenant(t)
	var logs syncBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })

	indexes := func() string {
		rows, _ := pool.Query(t.Context(), `SELECT indexname FROM pg_indexes WHERE schemaname = $1 ORDER BY 1`, tenant+"_mod_circulation_storage")
		var names []string
		for rows.Next() {
			var n string
			rows.Scan(&n)
			names = append(names, n)
		}
		return strings.Join(names, ",")
	}
	if !strings.Contains(indexes(), "loan_userid_idx") {
		t.Fatalf("fresh tenant lacks loan_userid_idx: %s", indexes())
	}
	e := newEnv(t, pool, tenant, "missing-index")
	uid := f.users["u-005"]
	r := e.do("GET", "/circulation/loans?query="+q("(userId=="+uid+" and status.name<>Closed)")+"&limit=1", nil)
	if r.status != 200 {
		t.Fatalf("loans: %d %s", r.status, r.body)
	}
	got := indexes()
	for _, gone := range []string{"loan_userid_idx,", "request_requesterid_idx", "request_itemid_idx"} {
		if strings.Contains(got, gone) {
			t.Errorf("missing-index left %s in place: %s", gone, got)
		}
	}
	if !strings.Contains(got, "loan_itemid_idx_unique") {
		t.Errorf("missing-index dropped the open-loan unique index: %s", got)
	}
	if !strings.Contains(logs.String(), "Doing LIKE search without index for userId") {
		t.Errorf("no RMB warning logged; logs:\n%s", logs.String())
	}
	var plan string
	pool.QueryRow(t.Context(), `EXPLAIN SELECT jsonb FROM `+tenant+`_mod_circulation_storage.loan WHERE `+storage.FieldExpr("userId")+` = $1`, uid).Scan(&plan)
	if !strings.Contains(plan, "Seq Scan") {
		t.Errorf("loan lookup by userId is not a scan under missing-index: %s", plan)
	}

	fast := newEnv(t, pool, tenant, "fast")
	if r := fast.do("GET", "/loan-storage/loans?query="+q("userId=="+uid), nil); r.status != 200 {
		t.Fatalf("loans: %d %s", r.status, r.body)
	}
	if got := indexes(); !strings.Contains(got, "loan_userid_idx,") || !strings.Contains(got, "request_requesterid_idx") {
		t.Fatalf("fast did not restore the indexes: %s", got)
	}
}

// A tenant whose schemas minifolio did not create (another system's, as when
// MINIFOLIO_DB points at a real FOLIO's database, whose RMB index names are
// the same) keeps its indexes under missing-index: the profile only logs.
func TestMissingIndexProfileLeavesForeignTenantsAlone(t *testing.T) {
	pool, tenant, f := newTenant(t)
	for _, s := range storage.TenantSchemas(tenant) {
		if _, err := pool.Exec(t.Context(), "COMMENT ON SCHEMA "+s+" IS NULL"); err != nil {
			t.Fatal(err)
		}
	}
	var logs syncBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	e := newEnv(t, pool, tenant, "missing-index")
	if r := e.do("GET", "/circulation/loans?query="+q("userId=="+f.users["u-005"])+"&limit=1", nil); r.status != 200 {
		t.Fatalf("loans: %d %s", r.status, r.body)
	}
	var n int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM pg_indexes WHERE schemaname = $1 AND indexname IN ('loan_userid_idx', 'request_requesterid_idx')`,
		tenant+"_mod_circulation_storage").Scan(&n); err != nil || n != 2 {
		t.Fatalf("missing-index dropped indexes of a tenant minifolio did not make: %d of 2 left (%v)", n, err)
	}
	if !strings.Contains(logs.String(), "indexes left alone: the tenant was not made by minifolio") {
		t.Errorf("no warning that the profile's indexes were not applied; logs:\n%s", logs.String())
	}
}

// leak: every request leaves bytesPerRequest behind in mod-circulation and
// is scanned by every later request; fast retains nothing.
func TestLeakProfileRetainsMemoryPerRequest(t *testing.T) {
	prof, err := profile.Load("../../profiles", "leak")
	if err != nil {
		t.Fatal(err)
	}
	l := &leakyHistory{size: prof.Leak.BytesPerRequest}
	h := l.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for i := 0; i < 500; i++ {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", fmt.Sprintf("/circulation/loans?i=%d", i), nil))
	}
	retained := 0
	for _, e := range l.entries {
		retained += len(e)
	}
	if len(l.entries) != 500 || retained != 500*prof.Leak.BytesPerRequest {
		t.Fatalf("retained %d entries / %d bytes after 500 requests", len(l.entries), retained)
	}
	fast, _ := profile.Load("../../profiles", "fast")
	if fast.Leak != nil {
		t.Fatal("fast leaks")
	}

	// ... and gets slower with what it retained: the same request after
	// 100,000 earlier ones costs far more than on a fresh process. Medians of
	// interleaved single requests, so a GC or a busy neighbour during one
	// measurement cannot decide the ratio (the machines running tests are shared).
	old := &leakyHistory{size: prof.Leak.BytesPerRequest}
	for i := 0; i < 100000; i++ {
		old.entries = append(old.entries, make([]byte, old.size))
	}
	freshH := (&leakyHistory{size: prof.Leak.BytesPerRequest}).wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	agedH := old.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	timeOf := func(h http.Handler) time.Duration {
		req, rec := httptest.NewRequest("GET", "/circulation/loans", nil), httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, req)
		return time.Since(start)
	}
	var fresh, aged []time.Duration
	for i := 0; i < 21; i++ {
		fresh = append(fresh, timeOf(freshH))
		aged = append(aged, timeOf(agedH))
	}
	slices.Sort(fresh)
	slices.Sort(aged)
	if f, a := fresh[len(fresh)/2], aged[len(aged)/2]; a < 10*f {
		t.Fatalf("median of one request: %v on a fresh process, %v after 100,000 requests; want ≥ 10× slower", f, a)
	}
	t.Logf("median of one request: fresh %v, after 100,000 requests %v", fresh[len(fresh)/2], aged[len(aged)/2])
}

// Under fast-checkout-plus10/25/50 mod-circulation holds its check-out
// answer for 10/25/50 % of the time it took to serve it, and nothing else;
// fast holds nothing. The modules run on a clock the test reads: each slowed
// request is served in a time the test chose, and the hold asked for must be
// that time × percent exactly. (Timing real check-outs instead gave ratios of
// 1.03–1.49 for plus25 on a loaded machine: its scheduler, not the rule.)
func TestCheckoutSlowdownProfiles(t *testing.T) {
	pool, tenant, f := newTenantWith(t, 40)
	n := 0
	for _, c := range []struct {
		profile string
		percent float64
	}{{"fast", 0}, {"fast-checkout-plus10", 10}, {"fast-checkout-plus25", 25}, {"fast-checkout-plus50", 50}} {
		clk := &scriptedClock{}
		e := newEnvWith(t, pool, tenant, c.profile, nil, func(cfg *Config) { cfg.clock = clk.clock() })
		var want []string
		for _, served := range []time.Duration{8 * time.Millisecond, 20 * time.Millisecond, 37 * time.Millisecond} {
			item, user := f.items[n], fmt.Sprintf("u-%03d", n%60)
			n++
			clk.serve(served)
			r := e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, item, user))
			// The held answer goes out whole: the loan, with mod-circulation's headers.
			if r.status != 201 || r.json(t)["status"].(map[string]any)["name"] != "Open" ||
				r.header.Get("Content-Type") != "application/json; charset=utf-8" {
				t.Fatalf("%s: check-out %s: %d %v %s", c.profile, item, r.status, r.header, r.body)
			}
			if c.percent > 0 {
				want = append(want, fmt.Sprintf("POST /circulation/check-out-by-barcode held %v", time.Duration(float64(served)*c.percent/100)))
			}
			// Check-in (the gate's control) and the GETs are never held.
			if r := e.do("POST", "/circulation/check-in-by-barcode", map[string]any{"servicePointId": f.sp1,
				"checkInDate": "2026-11-22T11:00:00Z", "itemBarcode": item}); r.status != 200 {
				t.Fatalf("%s: check-in %s: %d %s", c.profile, item, r.status, r.body)
			}
			if r := e.do("GET", "/circulation/loans?query="+q(`itemId==`+f.itemIDs[item]), nil); r.status != 200 {
				t.Fatalf("%s: loans: %d %s", c.profile, r.status, r.body)
			}
		}
		if got := clk.holds(); !slices.Equal(got, want) {
			t.Errorf("%s: holds\n%s\nwant\n%s", c.profile, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// scriptedClock is the slowdown's clock in a test: every slowed request takes
// the time the test set with serve, and each hold is recorded, not waited.
type scriptedClock struct {
	mu     sync.Mutex
	served time.Duration
	reads  int
	held   []string
}

func (c *scriptedClock) serve(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.served = d
}

func (c *scriptedClock) clock() *clock {
	base := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	return &clock{
		now: func() time.Time { // the start, then the end of a request
			c.mu.Lock()
			defer c.mu.Unlock()
			c.reads++
			if c.reads%2 == 1 {
				return base
			}
			return base.Add(c.served)
		},
		pause: func(r *http.Request, d time.Duration) bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.held = append(c.held, fmt.Sprintf("%s %s held %v", r.Method, r.URL.Path, d))
			return true
		},
	}
}

func (c *scriptedClock) holds() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.held)
}

// On the real clock the answer is held, never sent early: a handler that
// takes 20 ms under a 50 % rule answers after 30 ms or later (a lower bound
// only: a busy machine makes it later, never earlier); a client that went
// away gets nothing and frees the handler at once.
func TestSlowdownHoldsOnTheRealClock(t *testing.T) {
	prof, err := profile.Load("../../profiles", "fast-checkout-plus50")
	if err != nil {
		t.Fatal(err)
	}
	h := slowdown("mod-circulation", prof, realClock, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		w.WriteHeader(201)
		w.Write([]byte("loan"))
	}))
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/circulation/check-out-by-barcode", nil))
	if el := time.Since(start); el < 30*time.Millisecond || rec.Code != 201 || rec.Body.String() != "loan" {
		t.Fatalf("answered %d %q after %v, want 201 \"loan\" after 30 ms or more", rec.Code, rec.Body, el)
	}

	gone, cancel := context.WithCancel(context.Background())
	cancel()
	rec = httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		if pause(httptest.NewRequest("GET", "/", nil).WithContext(gone), time.Hour) {
			t.Error("pause held an answer for a client that went away")
		}
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/circulation/check-out-by-barcode", nil).WithContext(gone))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("pause did not end for a client that went away")
	}
	if rec.Body.Len() != 0 || rec.Code != 200 || len(rec.Header()) != 0 {
		t.Errorf("a client that went away was answered: %d %v %q", rec.Code, rec.Header(), rec.Body)
	}
}
