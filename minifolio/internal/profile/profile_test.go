package profile

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

func TestLotusBudgetsMatchTheReport(t *testing.T) {
	// Expected service time of the Orchid plan's requests under lotus, mean of
	// fixed + jitter/2; the inner calls mod-circulation makes are included.
	p, _ := Load(dir, "lotus")
	mean := func(module, method, path string) float64 {
		for _, s := range p.ServiceTime {
			if s.Module == module && (s.Method == "" || s.Method == method) &&
				(s.Path == "" || path == s.Path || strings.HasPrefix(path, s.Path+"/")) {
				return float64(s.FixedMs) + float64(s.JitterMs)/2
			}
		}
		return 0
	}
	// mod-circulation's own calls during one check-out / check-in.
	coInner := mean("mod-users", "GET", "/users") + mean("mod-feesfines", "GET", "/manualblocks") +
		mean("mod-patron-blocks", "GET", "/automated-patron-blocks/x") + 2*mean("mod-inventory-storage", "GET", "/item-storage/items") +
		mean("mod-circulation-storage", "GET", "/loan-storage/loans") + mean("mod-circulation-storage", "POST", "/loan-storage/loans") +
		mean("mod-inventory-storage", "PUT", "/item-storage/items/x") + mean("mod-circulation-storage", "POST", "/patron-action-session-storage/patron-action-sessions") +
		mean("mod-patron-blocks", "POST", "/automated-patron-blocks/handlers/item-checked-out")
	checkOut := 2*mean("mod-configuration", "GET", "/configurations/entries") + 2*mean("mod-users", "GET", "/groups") +
		mean("mod-users", "GET", "/users") + mean("mod-feesfines", "GET", "/accounts") +
		2*(mean("mod-circulation", "GET", "/circulation/loans")+mean("mod-circulation-storage", "GET", "/loan-storage/loans")) +
		3*(mean("mod-circulation", "GET", "/circulation/requests")+mean("mod-circulation-storage", "GET", "/request-storage/requests")) +
		3*mean("mod-users", "GET", "/proxiesfor") + mean("mod-notes", "GET", "/note-links/x") + mean("mod-feesfines", "GET", "/manualblocks") +
		2*mean("mod-patron-blocks", "GET", "/automated-patron-blocks/x") + mean("mod-inventory", "GET", "/inventory/items") +
		mean("mod-circulation", "POST", "/circulation/check-out-by-barcode") + coInner
	ciInner := 2*mean("mod-inventory-storage", "GET", "/item-storage/items") + mean("mod-circulation-storage", "GET", "/loan-storage/loans") +
		mean("mod-inventory-storage", "PUT", "/item-storage/items/x") + mean("mod-circulation-storage", "PUT", "/loan-storage/loans/x") +
		mean("mod-circulation-storage", "POST", "/patron-action-session-storage/patron-action-sessions") +
		mean("mod-patron-blocks", "POST", "/automated-patron-blocks/handlers/item-checked-in")
	checkIn := mean("mod-users", "GET", "/groups") + mean("mod-users", "GET", "/users") + mean("mod-circulation-storage", "GET", "/staff-slips-storage/staff-slips") +
		mean("mod-inventory-storage", "GET", "/service-points") + mean("mod-configuration", "GET", "/configurations/entries") +
		mean("mod-inventory", "GET", "/inventory/items") + mean("mod-circulation", "POST", "/circulation/check-in-by-barcode") + ciInner +
		mean("mod-circulation", "GET", "/circulation/requests") + mean("mod-circulation-storage", "GET", "/request-storage/requests") +
		3*mean("mod-feesfines", "GET", "/accounts") + mean("mod-feesfines", "GET", "/lost-item-fees-policies")
	if checkOut < 850 || checkOut > 1150 {
		t.Errorf("lotus check-out service time %.0f ms, want about 1000 (Lotus report: 0.97 s avg at 8 users)", checkOut)
	}
	if checkIn < 500 || checkIn > 700 {
		t.Errorf("lotus check-in service time %.0f ms, want about 600 (Lotus report: 0.62 s avg at 8 users)", checkIn)
	}
	t.Logf("lotus budget: check-out %.0f ms, check-in %.0f ms", checkOut, checkIn)
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
