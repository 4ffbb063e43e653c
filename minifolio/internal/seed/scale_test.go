package seed

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The presets keep the Lotus report's inventory proportions: 7.8 holdings
// and 8.9 items per 7.3 instances.
func TestPresetProportions(t *testing.T) {
	ptf, err := Preset("ptf")
	if err != nil {
		t.Fatal(err)
	}
	if ptf.Instances != 7_300_000 || ptf.Holdings != 7_800_000 || ptf.Items != 8_900_000 {
		t.Fatalf("ptf is the report's inventory: %+v", ptf)
	}
	for _, name := range []string{"1m", "ptf"} {
		s, _ := Preset(name)
		for _, c := range []struct {
			what      string
			got, want float64
		}{
			{"holdings per instance", float64(s.Holdings) / float64(s.Instances), 7.8 / 7.3},
			{"items per instance", float64(s.Items) / float64(s.Instances), 8.9 / 7.3},
			{"users per item", float64(s.Users) / float64(s.Items), 0.1},
			{"open loans per item", float64(s.Loans) / float64(s.Items), 0.025},
			{"authorities per instance", float64(s.Authorities) / float64(s.Instances), 0.1},
			{"closed loans per item", float64(s.ClosedLoans) / float64(s.Items), 0.25},
		} {
			if math.Abs(c.got/c.want-1) > 1e-4 { // integer rounding
				t.Errorf("%s: %s %.6f, want %.6f", name, c.what, c.got, c.want)
			}
		}
		if s.EventsPerUser != 10_000 || s.EventUsers == 0 || s.EventUsers > 1000 {
			t.Errorf("%s: a few patrons with a 10,000-loan patron-block history: %+v", name, s)
		}
	}
	if m, _ := Preset("1m"); m.Instances != 1_000_000 {
		t.Errorf("1m has a million instances: %+v", m)
	}
	// demo is what make run seeded before the presets: same data, same speed.
	demo, _ := Preset("demo")
	want := Scale{Name: "demo", Instances: 20_000, Holdings: 20_000, Items: 20_000, Users: 2_000, Loans: 500, Authorities: 2_000, Why: demo.Why,
		shape: [3]int{1, 1, 1}}
	if demo != want {
		t.Errorf("demo %+v, want %+v", demo, want)
	}
	if got := strings.Join(PresetNames(), ","); got != "demo,1m,ptf" {
		t.Errorf("names smallest first: %s", got)
	}
	if _, err := Preset("huge"); err == nil || !strings.Contains(err.Error(), "demo, 1m, ptf") {
		t.Errorf("an unknown preset names the known ones: %v", err)
	}
}

// A size flag given with a preset wins; the others come from the preset,
// holdings and instances in its proportions to the items given.
func TestPresetApplyKeepsGivenFlags(t *testing.T) {
	s, _ := Preset("1m")
	o := Options{Items: 8_900_000, Users: 7}
	s.Apply(&o, map[string]bool{"items": true})
	if o.Items != 8_900_000 || o.Holdings != 7_800_000 || o.Instances != 7_300_000 || o.Users != s.Users || o.ClosedLoans != s.ClosedLoans {
		t.Errorf("%+v", o)
	}
	demo, _ := Preset("demo")
	o = Options{Items: 3000}
	demo.Apply(&o, map[string]bool{"items": true})
	if o.Items != 3000 || o.Holdings != 3000 || o.Instances != 3000 || o.Users != 2000 || o.Loans != 500 {
		t.Errorf("demo with --items 3000 is 3,000 of each, as before presets: %+v", o)
	}
	o = Options{Items: 3000, Holdings: 1000}
	s.Apply(&o, map[string]bool{"items": true, "holdings": true})
	if o.Holdings != 1000 || o.Instances != ratio(1000, PTFInstances, PTFHoldings) {
		t.Errorf("instances follow the holdings given: %+v", o)
	}
	for _, name := range PresetNames() {
		p, _ := Preset(name)
		var o Options
		p.Apply(&o, nil)
		if o.Items != p.Items || o.Holdings != p.Holdings || o.Instances != p.Instances {
			t.Errorf("%s alone is its own sizes: %+v", name, o)
		}
	}
}

func TestInventoryAndValidate(t *testing.T) {
	in, ho, it := Options{Items: 30}.inventory()
	if in != 30 || ho != 30 || it != 30 {
		t.Errorf("defaults: one holdings record and instance per item: %d %d %d", in, ho, it)
	}
	base := Options{Tenant: "t1", AdminUser: "a", AdminPassword: "p", Users: 1}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Items: 10, Holdings: 11}, "every holdings record needs an item"},
		{Options{Items: 10, Holdings: 5, Instances: 6}, "every instance needs a holdings record"},
		{Options{Items: 10, Holdings: 5, Instances: 5}, ""},
		{Options{Items: 10, Instances: -1}, "must not be negative"},
	} {
		o := base
		o.Items, o.Holdings, o.Instances = c.o.Items, c.o.Holdings, c.o.Instances
		err := o.Validate()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

// spread gives every parent at least one child, in order, as evenly as
// integers allow.
func TestSpread(t *testing.T) {
	for _, c := range [][2]int{{89, 78}, {78, 73}, {1000, 1000}, {7, 1}, {1219178, 1068493}} {
		n, m := c[0], c[1]
		counts := make([]int, m)
		prev := 0
		for i := 0; i < n; i++ {
			p := spread(i, n, m)
			if p < prev || p >= m {
				t.Fatalf("%d onto %d: child %d -> %d after %d", n, m, i, p, prev)
			}
			prev = p
			counts[p]++
		}
		lo, hi := n/m, (n+m-1)/m
		for p, k := range counts {
			if k < lo || k > hi {
				t.Fatalf("%d onto %d: parent %d has %d children, want %d-%d", n, m, p, k, lo, hi)
			}
		}
	}
}

// The estimate grows with every size and refuses with both figures.
func TestDiskEstimateAndRefusal(t *testing.T) {
	small := Options{Items: 1000, Users: 100}
	if got := small.Estimate(); got < diskReserve || got > diskReserve+10e6 {
		t.Errorf("1,000 items: %d bytes", got)
	}
	ptf, _ := Preset("ptf")
	var o Options
	ptf.Apply(&o, nil)
	need := o.Estimate()
	// the 1m seed measured 5.2 GB; ptf is about seven times its inventory
	if need < 25e9 || need > 45e9 {
		t.Errorf("ptf estimate %s", HumanBytes(need))
	}
	for _, f := range []func(*Options){
		func(o *Options) { o.Instances++ }, func(o *Options) { o.Holdings++ }, func(o *Options) { o.Items++ },
		func(o *Options) { o.Users++ }, func(o *Options) { o.Loans++ }, func(o *Options) { o.Authorities++ },
		func(o *Options) { o.ClosedLoans++ },
		func(o *Options) { o.EventUsers++ },
	} {
		p := o
		f(&p)
		if p.Estimate() <= need {
			t.Errorf("one more row must need more disk: %+v", p)
		}
	}
	err := CheckDisk(need, 1e9, 0, "the disk of /data")
	if !errors.Is(err, ErrDiskShort) {
		t.Fatalf("1 GB free: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "needs about "+HumanBytes(need)) || !strings.Contains(msg, "/data has 1.0 GB free") {
		t.Errorf("the refusal gives both figures: %s", msg)
	}
	if err := CheckDisk(need, need-5e9, 5e9, "x"); err != nil {
		t.Errorf("dropping the tenant's present copy frees what it holds: %v", err)
	}
	if err := CheckDisk(need, need-5e9, 1e9, "x"); err == nil || !strings.Contains(err.Error(), "of the tenant it replaces") {
		t.Errorf("%v", err)
	}
}

func TestProgressLine(t *testing.T) {
	got := ProgressLine(1_500_000, 6_000_000, 30*time.Second)
	want := "1.50 M of 6.00 M rows (25 %) in 30s, 50000 rows/s, about 1m30s to go"
	if got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
	if got := ProgressLine(10, 10, time.Second); strings.Contains(got, "to go") {
		t.Errorf("nothing to go when done: %q", got)
	}
}

// IDs are what they were before they were built without fmt: tests, CSV
// files and the search index name records by them.
func TestIDUnchanged(t *testing.T) {
	for _, c := range []struct {
		tenant, kind string
		i            int
	}{{"fs09000000", "item", 0}, {"fs09000000", "user", 99999}, {"t", "history-loan", 1 << 30}} {
		h := sha1.Sum([]byte(fmt.Sprintf("minifolio/%s/%s/%d", c.tenant, c.kind, c.i)))
		var u [16]byte
		copy(u[:], h[:16])
		u[6] = u[6]&0x0f | 0x50
		u[8] = u[8]&0x3f | 0x80
		if ID(c.tenant, c.kind, c.i) != u {
			t.Errorf("%+v", c)
		}
		if want := fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]); IDString(c.tenant, c.kind, c.i) != want {
			t.Errorf("%s != %s", IDString(c.tenant, c.kind, c.i), want)
		}
	}
}

// Every bulk row is a JSON document whose id is its row's id, and the
// users' hand-built documents say what userDoc says.
func TestBulkRows(t *testing.T) {
	o := Options{Tenant: "t1", Items: 40, Holdings: 30, Instances: 20, Users: 10, Loans: 5, ClosedLoans: 6, EventsPerUser: 3, EventUsers: 2,
		Authorities: 4, Words: []string{"alpha", "beta", "gamma"}}
	g := newGen(o)
	for _, bk := range []bulk{g.instanceBulk(), g.holdingsBulk(), g.itemBulk(), g.loanBulk(), g.userBulk(), g.eventBulk(false), g.eventBulk(true), g.authorityBulk()} {
		for i := 0; i < bk.n; i++ {
			id, doc := bk.row(i, nil)
			var m map[string]any
			if err := json.Unmarshal(doc, &m); err != nil {
				t.Fatalf("%s row %d: %v\n%s", bk.t.Name, i, err, doc)
			}
			if m["id"] != fmtUUID(id) {
				t.Fatalf("%s row %d: id %v, row id %s", bk.t.Name, i, m["id"], fmtUUID(id))
			}
		}
	}
	if n := g.loanBulk().n; n != 5+2*3 {
		t.Errorf("loans: 5 open + 6 closed, got %d", n)
	}
	_, doc := g.userBulk().row(7, nil)
	want := g.userDoc(UserBarcode(7), 7, true)
	want["id"] = IDString("t1", "user", 7)
	want["metadata"] = json.RawMessage(metadataJSON)
	wb, _ := json.Marshal(want)
	var a, b any
	_ = json.Unmarshal(doc, &a)
	_ = json.Unmarshal(wb, &b)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("user row\n%s\nwant\n%s", doc, wb)
	}
	// the closed loans are the migration account's; the patron-block
	// history's patrons take turns (scattered over the table)
	_, loan := g.loanBulk().row(5+4, nil)
	var l map[string]any
	_ = json.Unmarshal(loan, &l)
	if l["status"].(map[string]any)["name"] != "Closed" || l["metadata"].(map[string]any)["createdByUserId"] != HistoryUserID("t1") {
		t.Errorf("closed loan %s", loan)
	}
	for k, want := range []int{0, 1, 0, 1} {
		if u, _ := g.pastLoan(k); u != want {
			t.Errorf("past loan %d is patron %d's, want %d's", k, u, want)
		}
	}
}

// The binary COPY stream is PostgreSQL's format: signature, rows of two
// length-prefixed fields (uuid, jsonb version 1 + text), trailer.
func TestCopyFormat(t *testing.T) {
	bk := bulk{itemT, 2, func(i int, b []byte) ([16]byte, []byte) {
		return [16]byte{byte(i)}, append(b, fmt.Sprintf(`{"n":%d}`, i)...)
	}}
	var buf bytes.Buffer
	var done rowsDone
	if err := bk.writeCopy(t.Context(), &buf, &done); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if !bytes.HasPrefix(b, []byte("PGCOPY\n\xff\r\n\x00")) || binary.BigEndian.Uint32(b[11:]) != 0 || binary.BigEndian.Uint32(b[15:]) != 0 {
		t.Fatalf("header % x", b[:19])
	}
	b = b[19:]
	for i := 0; i < 2; i++ {
		if binary.BigEndian.Uint16(b) != 2 || binary.BigEndian.Uint32(b[2:]) != 16 || b[6] != byte(i) {
			t.Fatalf("row %d: % x", i, b[:24])
		}
		b = b[22:]
		n := int(binary.BigEndian.Uint32(b))
		if b[4] != 1 || string(b[5:4+n]) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("row %d jsonb: % x", i, b[:4+n])
		}
		b = b[4+n:]
	}
	if !bytes.Equal(b, []byte{0xff, 0xff}) || done.n.Load() != 2 {
		t.Errorf("trailer % x, %d rows counted", b, done.n.Load())
	}
}

// --copy-dir writes each bulk table's stream, exactly its rows, and needs no
// database (the bench's floor loads these files with PostgreSQL alone).
func TestCopyDirWritesTheStreams(t *testing.T) {
	dir := t.TempDir()
	o := Options{Tenant: "t1", AdminUser: "a", AdminPassword: "b", Items: 30, Holdings: 20, Instances: 10, Users: 7,
		ClosedLoans: 4, Words: []string{"alpha", "beta"}, CopyDir: dir}
	if _, err := Run(t.Context(), nil, o); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		table string
		rows  int
	}{{"instance", 10}, {"holdings_record", 20}, {"item", 30}, {"users", 7}, {"loan", 4}} {
		schema := "mod_inventory_storage"
		switch c.table {
		case "users":
			schema = "mod_users"
		case "loan":
			schema = "mod_circulation_storage"
		}
		b, err := os.ReadFile(filepath.Join(dir, CopyFileName(schema, c.table)))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for b = b[19:]; binary.BigEndian.Uint16(b) == 2; n++ {
			b = b[22:]
			b = b[4+int(binary.BigEndian.Uint32(b)):]
		}
		if n != c.rows || !bytes.Equal(b, copyTrailer) {
			t.Errorf("%s: %d rows, want %d; tail % x", c.table, n, c.rows, b)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, CopyFileName("mod_inventory_storage", "authority"))); !os.IsNotExist(err) {
		t.Errorf("a table without rows gets no file: %v", err)
	}
}
