package seed

import (
	"strconv"
)

// Bibliographic text for instances and authorities, drawn from the word list
// with a PRNG seeded per record from (Options.TextSeed, record number): a
// record's text does not depend on the others, so the parallel COPY streams
// need no shared state and the same seed gives the same data set. Words are
// [a-z] only, so they go into the JSON text without escaping.

// FOLIO reference data ids (mod-inventory-storage reference-data/identifier-types).
const (
	IdentifierTypeISBN = "8261054f-be78-422d-bd51-4ed9f33c3422"
	IdentifierTypeOCLC = "439bfbae-75bc-4f74-9fc7-b2a2d47ce3ef"
)

// Languages are the codes instances carry, English the most frequent.
var Languages = []string{"eng", "fre", "ger", "ita", "spa", "ukr", "rus"}

// rng is splitmix64: tiny, fast, and good enough for picking words.
type rng uint64

func newRNG(seed int64, kind uint64, i int) rng {
	r := rng(uint64(seed)*0x9E3779B97F4A7C15 ^ kind<<56 ^ uint64(i))
	r.next()
	return r
}

func (r *rng) next() uint64 {
	*r += 0x9E3779B97F4A7C15
	z := uint64(*r)
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// intn returns a number in [0, n).
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

type textGen struct {
	words []string
	r     rng
}

func (t *textGen) word() string { return t.words[t.r.intn(len(t.words))] }

// appendCap appends w with its first letter upper-cased.
func appendCap(b []byte, w string) []byte {
	return append(append(b, w[0]-'a'+'A'), w[1:]...)
}

// appendWords appends n words separated by spaces, the first capitalised.
func (t *textGen) appendWords(b []byte, n int) []byte {
	for k := 0; k < n; k++ {
		if k == 0 {
			b = appendCap(b, t.word())
		} else {
			b = append(append(b, ' '), t.word()...)
		}
	}
	return b
}

// appendName appends a personal name as FOLIO stores it: "Lastname, Firstname".
func (t *textGen) appendName(b []byte) []byte {
	b = appendCap(b, t.word())
	return appendCap(append(b, ", "...), t.word())
}

// appendStr appends `"key":"value"` (value already JSON-safe).
func appendStr(b []byte, key string, value []byte) []byte {
	b = append(append(append(b, '"'), key...), `":"`...)
	return append(append(b, value...), '"')
}

// instanceDoc is one instance with FOLIO's instance schema fields.
func (g *gen) instanceDoc(b []byte, id string, i int) []byte {
	t := textGen{words: g.words, r: newRNG(g.o.TextSeed, 1, i)}
	title := t.appendWords(make([]byte, 0, 96), 2+t.r.intn(7)) // 2-8 words
	source := "FOLIO"
	if t.r.intn(3) > 0 {
		source = "MARC" // most of a real catalogue comes from MARC records
	}
	b = append(b, `{"id":"`...)
	b = append(b, id...)
	b = append(b, `","hrid":"in`...)
	b = appendPadded(b, i, 8)
	b = append(b, `","source":"`...)
	b = append(b, source...)
	b = append(b, `",`...)
	b = appendStr(b, "title", title)
	b = append(b, ',')
	b = appendStr(b, "indexTitle", title)
	b = append(b, `,"instanceTypeId":"`...)
	b = append(b, g.itype...)
	b = append(b, `","contributors":[`...)
	for k, n := 0, 1+t.r.intn(3); k < n; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":"`...)
		b = t.appendName(b)
		b = append(b, `","contributorNameTypeId":"`...)
		b = append(b, g.contribTyp...)
		b = append(b, `","primary":`...)
		b = strconv.AppendBool(b, k == 0)
		b = append(b, '}')
	}
	b = append(b, `],"subjects":[`...)
	for k, n := 0, 1+t.r.intn(3); k < n; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"value":"`...)
		b = t.appendWords(b, 1+t.r.intn(3))
		b = append(b, `"}`...)
	}
	b = append(b, `],"languages":["`...)
	if t.r.intn(10) < 6 {
		b = append(b, "eng"...)
	} else {
		b = append(b, Languages[1+t.r.intn(len(Languages)-1)]...)
	}
	if t.r.intn(10) == 0 {
		b = append(append(b, `","`...), Languages[t.r.intn(len(Languages))]...)
	}
	// ISBN-13 shaped, unique per record number.
	b = append(b, `"],"identifiers":[{"value":"978`...)
	b = appendPadded(b, i, 10)
	b = append(b, `","identifierTypeId":"`+IdentifierTypeISBN+`"}`...)
	if t.r.intn(2) == 0 {
		b = append(b, `,{"value":"(OCoLC)`...)
		b = strconv.AppendInt(b, int64(100000+i), 10)
		b = append(b, `","identifierTypeId":"`+IdentifierTypeOCLC+`"}`...)
	}
	b = append(b, `],"publication":[{"publisher":"`...)
	b = appendCap(b, t.word())
	b = append(b, ` Press","dateOfPublication":"`...)
	b = strconv.AppendInt(b, int64(1900+t.r.intn(126)), 10)
	b = append(b, `"}],"discoverySuppress":`...)
	b = strconv.AppendBool(b, t.r.intn(50) == 0)
	b = append(b, `,"staffSuppress":`...)
	b = strconv.AppendBool(b, t.r.intn(100) == 0)
	b = append(b, `,"metadata":`...)
	b = append(b, metadataJSON...)
	return append(b, '}')
}

// Authority heading kinds: the field of the authorized heading, and the
// see-from (sft) and see-also-from (saft) reference fields next to it, as in
// mod-inventory-storage's authority schema. Personal names are the most common.
var headingKinds = []struct{ field, sft, saft string }{
	{"personalName", "sftPersonalName", "saftPersonalName"},
	{"personalName", "sftPersonalName", "saftPersonalName"},
	{"corporateName", "sftCorporateName", "saftCorporateName"},
	{"topicalTerm", "sftTopicalTerm", "saftTopicalTerm"},
	{"geographicName", "sftGeographicName", "saftGeographicName"},
}

// authorityDoc is one MARC authority: one authorized heading, 0-2 see-from
// and 0-2 see-also-from references of the same kind.
func (g *gen) authorityDoc(b []byte, id string, i int) []byte {
	t := textGen{words: g.words, r: newRNG(g.o.TextSeed, 2, i)}
	k := headingKinds[t.r.intn(len(headingKinds))]
	heading := func(b []byte) []byte {
		switch k.field {
		case "personalName":
			return t.appendName(b)
		case "corporateName":
			return append(t.appendWords(b, 1+t.r.intn(2)), " Society"...)
		case "geographicName":
			return t.appendWords(b, 1)
		default:
			return t.appendWords(b, 1+t.r.intn(3))
		}
	}
	b = append(b, `{"id":"`...)
	b = append(b, id...)
	b = append(b, `","naturalId":"n`...)
	b = appendPadded(b, i, 8)
	b = append(b, `","source":"MARC","`...)
	b = append(b, k.field...)
	b = append(b, `":"`...)
	b = heading(b)
	b = append(b, '"')
	for _, f := range []string{k.sft, k.saft} {
		b = append(append(append(b, `,"`...), f...), `":[`...)
		for r, n := 0, t.r.intn(3); r < n; r++ {
			if r > 0 {
				b = append(b, ',')
			}
			b = append(heading(append(b, '"')), '"')
		}
		b = append(b, ']')
	}
	b = append(b, `,"metadata":`...)
	b = append(b, metadataJSON...)
	return append(b, '}')
}

// appendPadded appends i in decimal, left-padded with zeros to width.
func appendPadded(b []byte, i, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], int64(i), 10)
	for n := len(s); n < width; n++ {
		b = append(b, '0')
	}
	return append(b, s...)
}
