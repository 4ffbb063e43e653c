package seed

import (
	"fmt"
	"sort"
	"strings"
)

// The inventory of FOLIO's performance team's mod-search tests (the Lotus
// mod-search report: 7.3 M instances, 7.8 M holdings, 8.9 M items). The `ptf`
// preset is this size and `1m` keeps its proportions at one million
// instances; the CICO reports give no other counts, so the remaining sizes
// are minifolio's choices, stated with each preset (docs/scale.md).
const (
	PTFInstances = 7_300_000
	PTFHoldings  = 7_800_000
	PTFItems     = 8_900_000
)

// Scale is a named set of seed sizes (`minifolio seed --scale`, SEED_SCALE).
type Scale struct {
	Name          string
	Instances     int
	Holdings      int
	Items         int
	Users         int
	Loans         int // open loans (PTF's pre-test loans; reset truncates them)
	ClosedLoans   int // loans of the past, spread over every patron and item (reset keeps them)
	EventUsers    int // patrons with a patron-block history: the first ones, whom a run takes
	EventsPerUser int // past loans per such patron (mod-patron-blocks' events)
	Authorities   int
	Why           string // what the sizes are chosen for
	// shape is the instances : holdings : items the preset keeps when only
	// some of them are given.
	shape [3]int
}

// scaled keeps the report's holdings and items per instance for n instances.
func scaled(n int) (instances, holdings, items int) {
	return n, ratio(n, PTFHoldings, PTFInstances), ratio(n, PTFItems, PTFInstances)
}

// ratio is n*num/den rounded to the nearest integer.
func ratio(n, num, den int) int { return (n*num + den/2) / den }

// Patron-block history of the presets' first patrons (a run's patrons are
// the first by barcode): 10,000 past loans each, the juniper-patron-blocks
// profile's LIMIT (its cost stops growing there). PTF's patrons had such
// histories: its restore SQL keeps the events while it truncates the loans,
// so every run added to them.
const historyPerPatron = 10_000

var presets = func() map[string]Scale {
	m := map[string]Scale{}
	// demo: what `make run` seeded before presets existed, so the demo and
	// the tests keep their data and their speed.
	m["demo"] = Scale{Name: "demo", Instances: 20_000, Holdings: 20_000, Items: 20_000, Users: 2_000, Loans: 500,
		Authorities: 2_000, Why: "make demo's default: one holdings record and one item per instance", shape: [3]int{1, 1, 1}}
	for _, p := range []struct {
		name      string
		instances int
		patrons   int // with a 10,000-loan history
		why       string
	}{
		{"1m", 1_000_000, 100, "one million instances in the report's proportions"},
		{"ptf", PTFInstances, 200, "the report's inventory"},
	} {
		in, ho, it := scaled(p.instances)
		m[p.name] = Scale{Name: p.name, Instances: in, Holdings: ho, Items: it,
			// the demo's proportions: a patron per 10 items, 2.5 % of the
			// items on loan, an authority per 10 instances; and a closed
			// loan per four items of the past
			Users: it / 10, Loans: it / 40, ClosedLoans: it / 4, Authorities: in / 10,
			EventUsers: p.patrons, EventsPerUser: historyPerPatron, Why: p.why,
			shape: [3]int{PTFInstances, PTFHoldings, PTFItems}}
	}
	return m
}()

// Preset returns the named scale.
func Preset(name string) (Scale, error) {
	s, ok := presets[name]
	if !ok {
		return Scale{}, fmt.Errorf("unknown --scale %q: one of %s", name, strings.Join(PresetNames(), ", "))
	}
	return s, nil
}

// PresetNames lists the presets, smallest first.
func PresetNames() []string {
	var names []string
	for n := range presets {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return presets[names[i]].Instances < presets[names[j]].Instances })
	return names
}

// Apply sets o's sizes from s, except the ones named in keep (flags the
// user gave explicitly, which win over the preset). Holdings records and
// instances given no size of their own follow the items (or holdings)
// given, in the preset's proportions: `--scale demo --items 3000` is 3,000
// of each, as before there were presets.
func (s Scale) Apply(o *Options, keep map[string]bool) {
	set := func(name string, dst *int, v int) {
		if !keep[name] {
			*dst = v
		}
	}
	set("items", &o.Items, s.Items)
	// the preset's own counts when nothing was given, else its shape
	if keep["items"] {
		set("holdings", &o.Holdings, ratio(o.Items, s.shape[1], s.shape[2]))
	} else {
		set("holdings", &o.Holdings, s.Holdings)
	}
	if keep["items"] || keep["holdings"] {
		set("instances", &o.Instances, ratio(o.Holdings, s.shape[0], s.shape[1]))
	} else {
		set("instances", &o.Instances, s.Instances)
	}
	set("users", &o.Users, s.Users)
	set("loans", &o.Loans, s.Loans)
	set("closed-loans", &o.ClosedLoans, s.ClosedLoans)
	set("event-users", &o.EventUsers, s.EventUsers)
	set("events-per-user", &o.EventsPerUser, s.EventsPerUser)
	set("authorities", &o.Authorities, s.Authorities)
}
