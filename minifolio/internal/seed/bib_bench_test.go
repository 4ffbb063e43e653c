package seed

import (
	"fmt"
	"testing"
)

// The text must stay cheap next to the COPY it feeds: a million instances
// are seeded in about 80 s, so a few microseconds per document is noise.
func BenchmarkInstanceDoc(b *testing.B) {
	words, err := LoadVocabulary(DictPath)
	if err != nil {
		b.Skip(err)
	}
	g := newGen(Options{Tenant: "bench", TextSeed: 1, Words: words})
	var buf []byte
	id := fmtUUID(ID("bench", "instance", 0))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = g.instanceDoc(buf[:0], id, i)
	}
}

// The instance document of the seed before bibliographic fields, for scale.
func BenchmarkInstanceDocPlain(b *testing.B) {
	g := newGen(Options{Tenant: "bench"})
	id := fmtUUID(ID("bench", "instance", 0))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = fmt.Appendf(nil, `{"id":%q,"hrid":"in%08d","source":"FOLIO","title":%q,"indexTitle":%q,"instanceTypeId":%q,`+
			`"contributors":[{"name":%q,"primary":true,"contributorNameTypeId":%q}],"languages":["eng"],`+
			`"discoverySuppress":false,"staffSuppress":false,"metadata":%s}`,
			id, i, "Silent River 1", "Silent River 1", g.itype, "Abbott, Ada", g.contribTyp, metadataJSON)
	}
}

func BenchmarkAuthorityDoc(b *testing.B) {
	words, err := LoadVocabulary(DictPath)
	if err != nil {
		b.Skip(err)
	}
	g := newGen(Options{Tenant: "bench", TextSeed: 1, Words: words})
	var buf []byte
	id := fmtUUID(ID("bench", "authority", 0))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = g.authorityDoc(buf[:0], id, i)
	}
}
