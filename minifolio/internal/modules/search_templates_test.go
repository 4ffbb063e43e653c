package modules

import (
	"strings"
	"testing"
)

// searchTemplates are the 46 request templates of the Lotus mod-search report
// (their labels, as the k6 workflow tags them), each with a query of the
// template's shape as PTF sends it (terms unquoted) over the search corpus,
// and what mod-search answers: instance names, or the count of authority
// headings (authorized + references: 6 in all).
var searchTemplates = []struct {
	label, path, query string
	want               string // instances: sorted corpus names
	authorities        int
}{
	{"GET /search/authorities keyword <> random sentence", "authorities", `keyword <> adam smith economist`, "", 5},
	{"GET /search/authorities keyword <> randomword", "authorities", `keyword <> smith`, "", 3},
	{"GET /search/authorities keyword = *random sentence*", "authorities", `keyword = *library association*`, "", 1},
	{"GET /search/authorities keyword = random sentence", "authorities", `keyword = american library association`, "", 1},
	{"GET /search/authorities keyword = randomword", "authorities", `keyword = water`, "", 1},
	{"GET /search/authorities keyword == random sentence", "authorities", `keyword == water supply`, "", 1},
	{"GET /search/authorities keyword == randomword", "authorities", `keyword == ala`, "", 1},
	{"GET /search/authorities keyword all *randomword*", "authorities", `keyword all *librar*`, "", 1},
	{"GET /search/authorities keyword all random sentence", "authorities", `keyword all smith adam`, "", 2},
	{"GET /search/authorities keyword all randomword", "authorities", `keyword all smith`, "", 3},
	{"GET /search/authorities keyword any random sentence", "authorities", `keyword any water ala`, "", 2},
	{"GET /search/authorities keyword any randomword", "authorities", `keyword any ala`, "", 1},
	{"GET /search/instances: contributors <> 2random words", "instances", `contributors <> brown john`, "climate,covid,policy,primer,travel", 0},
	{"GET /search/instances: contributors = *randomword", "instances", `contributors = *john`, "water", 0},
	{"GET /search/instances: contributors = randomword*", "instances", `contributors = brown*`, "climate,covid,water", 0},
	{"GET /search/instances: contributors == 2random words", "instances", `contributors == brown john`, "water", 0},
	{"GET /search/instances: contributors all 2random words", "instances", `contributors all brown john`, "water", 0},
	{"GET /search/instances: contributors all randomword", "instances", `contributors all brown`, "covid,water", 0},
	{"GET /search/instances: contributors any 2random words", "instances", `contributors any brown mary`, "covid,policy,water", 0},
	{"GET /search/instances: keyword <> 1word", "instances", `keyword <> africa`, "covid,primer,travel", 0},
	{"GET /search/instances: keyword <> random 2words", "instances", `keyword <> water africa`, "climate,covid,primer,travel", 0},
	{"GET /search/instances: keyword = 1word*", "instances", `keyword = covid*`, "covid", 0},
	{"GET /search/instances: keyword = random 2words", "instances", `keyword = water africa`, "policy,water", 0},
	{"GET /search/instances: keyword == random 2words", "instances", `keyword == in africa`, "climate,water", 0},
	{"GET /search/instances: keyword all random 2words", "instances", `keyword all water africa`, "policy,water", 0},
	{"GET /search/instances: keyword all random sentence AND languages == randomlang", "instances", `keyword all water in africa AND languages == eng`, "water", 0},
	{"GET /search/instances: keyword any random 2words", "instances", `keyword any water covid`, "covid,policy,water", 0},
	{`GET /search/instances: languages == (lang) AND items.status.name == ("Available" OR "In transit")`, "instances", `languages == (eng) AND items.status.name == ("Available" OR "In transit")`, "climate,water", 0},
	{"GET /search/instances: languages == lang", "instances", `languages == eng`, "climate,covid,water", 0},
	{`GET /search/instances: languages == lang AND items.status.name == "Available"`, "instances", `languages == eng AND items.status.name == "Available"`, "water", 0},
	{"GET /search/instances: subjects <> 1randomword", "instances", `subjects <> music`, "climate,covid,primer,travel,water", 0},
	{"GET /search/instances: subjects = (randomword OR randomword)", "instances", `subjects = (music OR medicine)`, "covid,policy", 0},
	{"GET /search/instances: subjects = *1randomword", "instances", `subjects = *history`, "climate,water", 0},
	{"GET /search/instances: subjects = 1randomword*", "instances", `subjects = washington*`, "travel,water", 0},
	{"GET /search/instances: subjects == 1randomword", "instances", `subjects == music`, "policy", 0},
	{"GET /search/instances: subjects all 1randomword", "instances", `subjects all washington`, "travel,water", 0},
	{"GET /search/instances: subjects all randomword AND title all randomword", "instances", `subjects all washington AND title all guide`, "travel", 0},
	{"GET /search/instances: subjects all randomword NOT title all randomword", "instances", `subjects all washington NOT title all guide`, "water", 0},
	{"GET /search/instances: subjects all randomword OR title all randomword", "instances", `subjects all music OR title all covid`, "covid,policy", 0},
	{"GET /search/instances: subjects any 2random words", "instances", `subjects any music medicine`, "covid,policy", 0},
	{"GET /search/instances: title <> 3 word sentence", "instances", `title <> water in africa`, "climate,covid,policy,primer,travel", 0},
	{"GET /search/instances: title == 3 word sentence", "instances", `title == water in africa`, "water", 0},
	{"GET /search/instances: title all *1randomword", "instances", `title all *africa`, "climate,water", 0},
	{"GET /search/instances: title all 1randomword*", "instances", `title all water*`, "water", 0},
	{"GET /search/instances: title all 3 word sentence", "instances", `title all water in africa`, "water", 0},
	{"GET /search/instances: title any 3 word sentence", "instances", `title any water in africa`, "climate,policy,water", 0},
}

// TestSearchTemplates answers every template of the report through the
// module on OpenSearch, with mod-search's results.
func TestSearchTemplates(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range searchTemplates {
		seen[c.label] = true
	}
	if len(searchTemplates) != 46 || len(seen) != 46 {
		t.Fatalf("%d templates (%d labels), want the report's 46", len(searchTemplates), len(seen))
	}
	se := newSearchEnv(t, openSearchURL(t))
	se.legacyReindex(t, "instance", true)
	se.legacyReindex(t, "authority", true)
	for _, c := range searchTemplates {
		res, r := se.search(t, "/search/"+c.path, c.query)
		if r.status != 200 {
			t.Errorf("%s (%s): %d %s", c.label, c.query, r.status, r.body)
			continue
		}
		if c.path == "authorities" {
			if res.TotalRecords != c.authorities || len(res.Authorities) != c.authorities {
				t.Errorf("%s (%s): %d authorities, want %d: %s", c.label, c.query, res.TotalRecords, c.authorities, r.body)
			}
			continue
		}
		if got := strings.Join(se.names(res), ","); got != c.want {
			t.Errorf("%s (%s): [%s], want [%s]", c.label, c.query, got, c.want)
		}
	}
}
