package seed_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/folio-perf/folio-perf/minifolio/internal/seed"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

func TestLoadVocabulary(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := 0; i < 150; i++ {
		lines = append(lines, "word"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	// Kept: 3-12 lower-case letters, first occurrence only, in file order.
	lines = append([]string{"zebra", "Zebra", "zebra's", "ab", "abcdefghijklm", "café", "zebra", "abc"}, lines...)
	p := filepath.Join(dir, "words")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	words, err := seed.LoadVocabulary(p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(words[:3], []string{"zebra", "abc", "wordaa"}) || len(words) != 152 {
		t.Errorf("vocabulary starts %q, has %d words; want [zebra abc wordaa], 152", words[:3], len(words))
	}

	_, err = seed.LoadVocabulary(filepath.Join(dir, "missing"))
	if !errors.Is(err, seed.ErrNoDict) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing word list: %v, want ErrNoDict naming the path", err)
	}
	if err := os.WriteFile(p, []byte("abc\ndef\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := seed.LoadVocabulary(p); !errors.Is(err, seed.ErrNoDict) {
		t.Errorf("a two-word list: %v, want ErrNoDict", err)
	}
}

// docs returns the jsonb of every row of table, by id.
func docs(t *testing.T, pool *pgxpool.Pool, table string) map[string]map[string]any {
	t.Helper()
	rows, err := pool.Query(context.Background(), "SELECT id::text, jsonb FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]map[string]any{}
	for rows.Next() {
		var id string
		var raw []byte
		if err := rows.Scan(&id, &raw); err != nil {
			t.Fatal(err)
		}
		var d map[string]any
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("%s %s: %v", table, id, err)
		}
		out[id] = d
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSeedBibliographicDataAndAuthorities(t *testing.T) {
	pool := storagetest.Pool(t)
	ctx := context.Background()
	words, err := seed.LoadVocabulary(seed.DictPath)
	if err != nil {
		t.Fatalf("%v (the bibliographic seed needs Debian's wamerican: apt-get install wamerican)", err)
	}
	vocab := map[string]bool{}
	for _, w := range words {
		vocab[w] = true
	}
	a, b := storagetest.TenantName("seedbiba"), storagetest.TenantName("seedbibb")
	t.Cleanup(func() {
		_ = storage.DropTenant(context.Background(), pool, a)
		_ = storage.DropTenant(context.Background(), pool, b)
	})
	o := seed.Options{Tenant: a, AdminUser: "folio_admin", AdminPassword: "admin", Items: 400, Users: 2, Authorities: 250, TextSeed: 7}
	if _, err := seed.Run(ctx, pool, o); err != nil {
		t.Fatal(err)
	}
	inv := a + "_mod_inventory_storage"
	if n := count(t, pool, "SELECT count(*) FROM "+inv+".authority"); n != 250 {
		t.Errorf("%d authorities, want 250", n)
	}
	m, _, _, err := seed.SeededMarker(ctx, pool, a)
	if err != nil || m.Authorities != 250 || m.TextSeed != 7 {
		t.Errorf("marker %+v (%v): want 250 authorities, text seed 7", m, err)
	}

	// Every word of the generated text is from the vocabulary.
	inVocab := func(what, text string) {
		t.Helper()
		for _, w := range regexp.MustCompile(`[A-Za-z]+`).FindAllString(text, -1) {
			if !vocab[strings.ToLower(w)] && w != "Press" && w != "Society" {
				t.Errorf("%s %q: %q is not from the word list", what, text, w)
				return
			}
		}
	}
	instances := docs(t, pool, inv+".instance")
	languages, sources := map[string]int{}, map[string]int{}
	for id, d := range instances {
		title, _ := d["title"].(string)
		if n := len(strings.Fields(title)); n < 2 || n > 8 || d["indexTitle"] != title {
			t.Fatalf("instance %s: title %q (%d words), indexTitle %q; want 2-8 words, indexTitle = title", id, title, n, d["indexTitle"])
		}
		inVocab("title", title)
		cs, _ := d["contributors"].([]any)
		if len(cs) < 1 || len(cs) > 3 {
			t.Fatalf("instance %s: %d contributors", id, len(cs))
		}
		for k, c := range cs {
			c := c.(map[string]any)
			name, _ := c["name"].(string)
			if !regexp.MustCompile(`^[A-Z][a-z]+, [A-Z][a-z]+$`).MatchString(name) || c["primary"] != (k == 0) || c["contributorNameTypeId"] == "" {
				t.Fatalf("instance %s: contributor %v", id, c)
			}
			inVocab("contributor", name)
		}
		ss, _ := d["subjects"].([]any)
		if len(ss) < 1 || len(ss) > 3 {
			t.Fatalf("instance %s: %d subjects", id, len(ss))
		}
		for _, s := range ss {
			v, _ := s.(map[string]any)["value"].(string)
			if n := len(strings.Fields(v)); n < 1 || n > 3 {
				t.Fatalf("instance %s: subject %q", id, v)
			}
			inVocab("subject", v)
		}
		for _, l := range d["languages"].([]any) {
			languages[l.(string)]++
		}
		sources[d["source"].(string)]++
		ids, _ := d["identifiers"].([]any)
		if len(ids) == 0 || ids[0].(map[string]any)["identifierTypeId"] != seed.IdentifierTypeISBN ||
			!regexp.MustCompile(`^978\d{10}$`).MatchString(ids[0].(map[string]any)["value"].(string)) {
			t.Fatalf("instance %s: identifiers %v", id, ids)
		}
		pub, _ := d["publication"].([]any)
		if len(pub) != 1 || !regexp.MustCompile(`^(19|20)\d\d$`).MatchString(pub[0].(map[string]any)["dateOfPublication"].(string)) {
			t.Fatalf("instance %s: publication %v", id, pub)
		}
		for _, f := range []string{"hrid", "instanceTypeId", "staffSuppress", "discoverySuppress", "metadata"} {
			if _, ok := d[f]; !ok {
				t.Fatalf("instance %s has no %s", id, f)
			}
		}
	}
	for l := range languages {
		if !slices.Contains(seed.Languages, l) {
			t.Errorf("language %q is not one of %v", l, seed.Languages)
		}
	}
	if languages["eng"] < 150 || len(languages) < 5 || sources["MARC"] == 0 || sources["FOLIO"] == 0 {
		t.Errorf("languages %v, sources %v: want mostly eng, most codes used, both sources", languages, sources)
	}

	kinds := map[string]int{}
	for id, d := range docs(t, pool, inv+".authority") {
		var heading []string
		for _, f := range []string{"personalName", "corporateName", "topicalTerm", "geographicName"} {
			if h, ok := d[f].(string); ok {
				heading = append(heading, f)
				inVocab(f, h)
				kinds[f]++
			}
		}
		if len(heading) != 1 || d["source"] != "MARC" || !strings.HasPrefix(d["naturalId"].(string), "n") {
			t.Fatalf("authority %s: headings %v, source %v, naturalId %v", id, heading, d["source"], d["naturalId"])
		}
	}
	if len(kinds) != 4 || kinds["personalName"] < kinds["geographicName"] {
		t.Errorf("heading kinds %v: want all four, personal names the most", kinds)
	}
	// The see-from references of a personal-name authority are names too.
	if n := count(t, pool, "SELECT count(*) FROM "+inv+".authority WHERE jsonb ? 'personalName' AND jsonb_array_length(jsonb->'sftPersonalName') > 0"); n == 0 {
		t.Error("no personal-name authority has see-from references")
	}

	// Deterministic: the same seed on another tenant gives the same text
	// (ids differ: they derive from the tenant); another seed differs.
	o.Tenant = b
	if _, err := seed.Run(ctx, pool, o); err != nil {
		t.Fatal(err)
	}
	text := func(tenant string) string {
		var s string
		if err := pool.QueryRow(ctx, "SELECT string_agg(jsonb->>'title' || '|' || jsonb_path_query_array(jsonb, '$.contributors[*].name')::text || (jsonb->'subjects')::text, ';' ORDER BY jsonb->>'hrid') FROM "+
			tenant+"_mod_inventory_storage.instance").Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if text(a) != text(b) {
		t.Error("the same --seed gave different text on two tenants")
	}
	o.TextSeed, o.Force = 8, true
	if _, err := seed.Run(ctx, pool, o); err != nil {
		t.Fatal(err)
	}
	if text(a) == text(b) {
		t.Error("--seed 7 and --seed 8 gave the same text")
	}
}
