package seed

import (
	"context"
	"io"
	"testing"
)

// BenchmarkBulkRows: the generator's cost per row of each bulk table (the
// seed's own share of a load; PostgreSQL's is make bench-minifolio-seed's).
func BenchmarkBulkRows(b *testing.B) {
	words, err := LoadVocabulary(DictPath)
	if err != nil {
		b.Skip(err)
	}
	p, _ := Preset("1m")
	o := Options{Tenant: "bench", Words: words, TextSeed: 1}
	p.Apply(&o, nil)
	g := newGen(o)
	for _, bk := range []bulk{g.instanceBulk(), g.holdingsBulk(), g.itemBulk(), g.loanBulk(), g.userBulk(), g.eventBulk(false), g.authorityBulk()} {
		b.Run(bk.t.Name, func(b *testing.B) {
			one := bk
			one.n = b.N
			if bk.t == loanT {
				one.row = func(i int, buf []byte) ([16]byte, []byte) { return g.closedLoan(i, buf) }
			}
			var done rowsDone
			if err := one.writeCopy(context.Background(), io.Discard, &done); err != nil {
				b.Fatal(err)
			}
		})
	}
}
