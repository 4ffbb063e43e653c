package profile

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
)

const dir = "../../profiles"

func TestEveryShippedProfileLoads(t *testing.T) {
	names := Names(dir)
	for _, want := range []string{"fast", "lotus", "juniper-patron-blocks", "missing-index", "leak"} {
		if !strings.Contains(","+strings.Join(names, ",")+",", ","+want+",") {
			t.Errorf("profile %s missing from %s (have %v)", want, dir, names)
		}
	}
	for _, n := range names {
		p, err := Load(dir, n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if len(p.Description) < 40 {
			t.Errorf("%s: description too short to document the profile", n)
		}
	}
}

func TestMechanismsAreSwitchedOnByTheRightProfiles(t *testing.T) {
	fast, _ := Load(dir, "fast")
	jun, _ := Load(dir, "juniper-patron-blocks")
	mi, _ := Load(dir, "missing-index")
	leak, _ := Load(dir, "leak")
	if fast.PatronBlocks.Mode != "summary" || jun.PatronBlocks.Mode != "events" || jun.PatronBlocks.EventLimit != 10000 {
		t.Fatalf("patron block modes: fast=%+v juniper=%+v", fast.PatronBlocks, jun.PatronBlocks)
	}
	if got := mi.Unindexed("mod-circulation-storage", "loan"); len(got) != 1 || got[0] != "userId" {
		t.Fatalf("missing-index loan fields = %v", got)
	}
	if len(fast.Unindexed("mod-circulation-storage", "loan")) != 0 || fast.Leak != nil {
		t.Fatal("fast must switch no regression on")
	}
	if leak.Leak == nil || leak.Leak.Module != "mod-circulation" {
		t.Fatalf("leak = %+v", leak.Leak)
	}
	if fast.Delay("mod-circulation", "POST", "/circulation/check-out-by-barcode", nil) != 0 {
		t.Fatal("fast adds service time")
	}
}

func TestDelayMatchesFirstRuleAndStaysInRange(t *testing.T) {
	p, err := Parse([]byte(`{"name":"x","description":"d","serviceTime":[
	 {"module":"m","method":"POST","path":"/a/b","fixedMs":100,"jitterMs":50},
	 {"module":"m","path":"/p","fixedMs":7},
	 {"module":"m","fixedMs":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		d := p.Delay("m", "post", "/a/b", r)
		if d < 100*time.Millisecond || d >= 150*time.Millisecond {
			t.Fatalf("delay %v outside [100ms,150ms)", d)
		}
	}
	cases := []struct {
		module, method, path string
		want                 time.Duration
	}{
		{"m", "GET", "/a/b", time.Millisecond},       // method does not match the first rule
		{"m", "GET", "/p/123", 7 * time.Millisecond}, // sub-path
		{"m", "GET", "/px", time.Millisecond},        // not a sub-path
		{"other", "GET", "/p", 0},
	}
	for _, c := range cases {
		if got := p.Delay(c.module, c.method, c.path, r); got != c.want {
			t.Errorf("Delay(%s %s %s) = %v, want %v", c.module, c.method, c.path, got, c.want)
		}
	}
}

// The lotus numbers themselves are calibrated by measurement (BenchmarkCICO
// in internal/modules, figures in profiles/README.md); this test keeps the
// profile's shape: every module costs something, and the two POSTs are the
// slowest APIs as in the Lotus report (check-out's total is higher than
// check-in's through the calls it makes, not through its own share).
func TestLotusShape(t *testing.T) {
	p, err := Load(dir, "lotus")
	if err != nil {
		t.Fatal(err)
	}
	mean := func(module, method, path string) float64 {
		var n float64
		r := rand.New(rand.NewPCG(3, 4))
		for i := 0; i < 2000; i++ {
			n += float64(p.Delay(module, method, path, r).Microseconds())
		}
		return n / 2000 / 1000
	}
	for _, m := range []string{"mod-configuration", "mod-users", "mod-inventory-storage", "mod-circulation-storage",
		"mod-feesfines", "mod-notes", "mod-patron-blocks", "mod-inventory", "mod-circulation"} {
		if mean(m, "GET", "/x") <= 0 {
			t.Errorf("lotus adds no service time to %s", m)
		}
	}
	co := mean("mod-circulation", "POST", "/circulation/check-out-by-barcode")
	ci := mean("mod-circulation", "POST", "/circulation/check-in-by-barcode")
	blocks := mean("mod-patron-blocks", "GET", "/automated-patron-blocks/0f1e")
	if co <= blocks || ci <= blocks || blocks <= mean("mod-users", "GET", "/users") {
		t.Errorf("lotus order of slow APIs: check-out %.0f ms, check-in %.0f, patron blocks %.0f, users %.0f", co, ci, blocks, mean("mod-users", "GET", "/users"))
	}
}

// The tail is log-normal with the given median and sigma: its median and p95
// over many draws match the distribution's (median * exp(1.645 * sigma)), on
// top of the fixed part; a seeded source keeps the test deterministic.
func TestDelayTailIsLogNormal(t *testing.T) {
	p, err := Parse([]byte(`{"name":"x","description":"d","serviceTime":[
	 {"module":"m","fixedMs":20,"tailMedianMs":100,"tailSigma":0.5}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	const n = 20000
	ms := make([]float64, n)
	for i := range ms {
		d := p.Delay("m", "GET", "/x", r)
		if d < 20*time.Millisecond {
			t.Fatalf("delay %v below the fixed part", d)
		}
		ms[i] = float64(d-20*time.Millisecond) / float64(time.Millisecond)
	}
	sort.Float64s(ms)
	near := func(what string, got, want float64) {
		if math.Abs(got-want)/want > 0.05 {
			t.Errorf("tail %s = %.1f ms, want %.1f ms (within 5 %%)", what, got, want)
		}
	}
	near("median", ms[n/2], 100)
	near("p95", ms[n*95/100], 100*math.Exp(1.645*0.5))

	for _, bad := range []string{
		`{"module":"m","fixedMs":1,"tailMedianMs":100}`,
		`{"module":"m","fixedMs":1,"tailSigma":0.5}`,
		`{"module":"m","fixedMs":1,"tailMedianMs":100,"tailSigma":2.5}`,
		`{"module":"m","fixedMs":1,"tailMedianMs":-1,"tailSigma":0.5}`,
		`{"module":"m","fixedMs":1,"tailMedianMs":1e12,"tailSigma":0.5}`,
	} {
		_, err := Parse([]byte(`{"name":"x","description":"d","serviceTime":[` + bad + `]}`))
		if err == nil || !strings.Contains(err.Error(), "tailMedianMs and tailSigma go together") {
			t.Errorf("Parse(%s) = %v, want the tail's error", bad, err)
		}
	}
}

// A draw far out in the tail is held at a minute, never wrapped into a
// negative (no) delay.
func TestDelayTailIsBounded(t *testing.T) {
	p, err := Parse([]byte(`{"name":"x","description":"d","serviceTime":[
	 {"module":"m","fixedMs":60000,"jitterMs":60000,"tailMedianMs":60000,"tailSigma":2}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 2000; i++ {
		if d := p.Delay("m", "GET", "/x", r); d < time.Minute || d > 3*time.Minute {
			t.Fatalf("delay %v outside [1m, 3m]", d)
		}
	}
	if _, err := Parse([]byte(`{"name":"x","description":"d","serviceTime":[{"module":"m","fixedMs":60001}]}`)); err == nil {
		t.Error("fixedMs above a minute accepted")
	}
}

func TestBadProfilesGetActionableErrors(t *testing.T) {
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, "typo.json"), []byte(`{"name":"typo","description":"d","patronBlock":{}}`), 0o644)
	os.WriteFile(filepath.Join(d, "fast.json"), []byte(`{"name":"fast","description":"d"}`), 0o644)
	os.WriteFile(filepath.Join(d, "other.json"), []byte(`{"name":"else","description":"d"}`), 0o644)
	for name, want := range map[string]string{
		"nope":   `unknown profile "nope": use one of fast, other, typo`,
		"typo":   `unknown field "patronBlock"`,
		"other":  `names itself "else"`,
		"../etc": "invalid profile name",
	} {
		_, err := Load(d, name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%q) = %v, want error containing %q", name, err, want)
		}
	}
	if p, err := Load(d, ""); err != nil || p.Name != "fast" {
		t.Errorf(`Load("") = %v, %v; want fast`, p, err)
	}
	if _, err := Parse([]byte(`{"name":"x","description":"d","patronBlocks":{"mode":"sometimes"}}`)); err == nil {
		t.Error("unknown patronBlocks mode accepted")
	}
}

// The module ids Okapi's list reports: the profile's versions (lotus: the
// Lotus release's), the defaults for the rest, mod-search only when it runs.
func TestModuleIDsFollowTheProfile(t *testing.T) {
	lotus, err := Load("../../profiles", "lotus")
	if err != nil {
		t.Fatal(err)
	}
	fast, err := Load("../../profiles", "fast")
	if err != nil {
		t.Fatal(err)
	}
	has := func(ids []string, id string) bool {
		for _, x := range ids {
			if x == id {
				return true
			}
		}
		return false
	}
	okapiModules := 0
	for _, m := range catalog.Modules {
		if m.On(catalog.Okapi) {
			okapiModules++
		}
	}
	ids := catalog.ModuleIDs(lotus.ModuleVersions, false)
	// Every Okapi module but mod-search, plus the three the gateway plays.
	if !has(ids, "mod-circulation-23.0.1") || !has(ids, "mod-login-7.6.0") || has(ids, "mod-search-1.6.4") ||
		!has(ids, "okapi-4.13.2") || !has(ids, "mod-users-bl-7.4.0") || has(ids, "mod-login-keycloak-3.0.0") ||
		len(ids) != okapiModules+2 {
		t.Errorf("lotus without search: %v", ids)
	}
	if ids := catalog.ModuleIDs(lotus.ModuleVersions, true); !has(ids, "mod-search-1.6.4") || !sort.StringsAreSorted(ids) {
		t.Errorf("lotus with search: %v", ids)
	}
	if ids := catalog.ModuleIDs(fast.ModuleVersions, false); !has(ids, "mod-circulation-"+catalog.DefaultVersions["mod-circulation"]) {
		t.Errorf("fast: %v", ids)
	}
	for _, bad := range []string{`{"mod-circ": "1.0.0"}`, `{"mod-circulation": "23"}`} {
		if _, err := Parse([]byte(`{"name":"x","description":"d","moduleVersions":` + bad + `}`)); err == nil {
			t.Errorf("moduleVersions %s accepted", bad)
		}
	}
}

func TestSlowdownRules(t *testing.T) {
	p, err := Load("../../profiles", "fast-checkout-plus25")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		module, method, path string
		want                 float64
	}{
		{"mod-circulation", "POST", "/circulation/check-out-by-barcode", 25},
		{"mod-circulation", "POST", "/circulation/check-in-by-barcode", 0},
		{"mod-circulation", "GET", "/circulation/check-out-by-barcode", 0},
		{"mod-users", "POST", "/circulation/check-out-by-barcode", 0},
	} {
		if got := p.SlowdownPercent(c.module, c.method, c.path); got != c.want {
			t.Errorf("%s %s %s: %v %%, want %v", c.module, c.method, c.path, got, c.want)
		}
	}
	for _, bad := range []string{
		`{"name":"x","description":"d","slowdown":[{"module":"mod-circulation","percent":0}]}`,
		`{"name":"x","description":"d","slowdown":[{"module":"mod-circulation","percent":5000}]}`,
		`{"name":"x","description":"d","slowdown":[{"percent":10}]}`,
	} {
		if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "slowdown[0]") {
			t.Errorf("%s: err %v, want a slowdown[0] error", bad, err)
		}
	}
}
