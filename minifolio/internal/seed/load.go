package seed

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync/atomic"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// parallelism: concurrent COPY / CREATE INDEX connections. The server parses
// jsonb and sorts index keys on its own cores; two or three streams keep a
// small machine busy without thrashing it.
const parallelism = 3

// progressEvery is how often a long seed says how far it got.
const progressEvery = 10 * time.Second

// job is one transaction of the load: it empties its bulk tables (so
// COPY ... FREEZE may fill them), writes its small records, then COPYs.
type job struct {
	bulks []bulk
	small func(context.Context, pgx.Tx) error // reference data, special records
	after func(context.Context, pgx.Tx) error // records that must follow the COPY
}

// jobs are the load's transactions, the longest first (instances carry the
// bibliographic text), so the last to finish is a short one.
func (g *gen) jobs() []job {
	return []job{
		{bulks: []bulk{g.instanceBulk()}},
		{bulks: []bulk{g.itemBulk(), g.loanBulk()}, after: g.missingItems},
		{bulks: []bulk{g.holdingsBulk()}},
		{bulks: []bulk{g.userBulk(), g.eventBulk(false), g.eventBulk(true)}, small: g.reference},
		{bulks: []bulk{g.authorityBulk()}},
	}
}

func (g *gen) totalRows() int64 {
	var n int64
	for _, j := range g.jobs() {
		for _, b := range j.bulks {
			n += int64(b.n)
		}
	}
	return n
}

// ticker prints line() every progressEvery until stop is called.
func (g *gen) ticker(line func(time.Duration) string) (stop func()) {
	if g.o.Progress == nil {
		return func() {}
	}
	start := time.Now()
	t := time.NewTicker(progressEvery)
	quit := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for {
			select {
			case <-t.C:
				g.progress("%s", line(time.Since(start)))
			case <-quit:
				return
			}
		}
	}()
	return func() { t.Stop(); close(quit); <-ended }
}

// ProgressLine says how far a load got and, from its rate so far, how long
// the rest takes.
func ProgressLine(done, total int64, elapsed time.Duration) string {
	pct := 100 * float64(done) / float64(max(total, 1))
	rate := float64(done) / max(elapsed.Seconds(), 1e-3)
	s := fmt.Sprintf("%s of %s rows (%.0f %%) in %s, %s rows/s", millions(done), millions(total), pct,
		elapsed.Round(time.Second), millions(int64(rate)))
	if done > 0 && done < total {
		s += fmt.Sprintf(", about %s to go", (time.Duration(float64(total-done)/rate) * time.Second).Round(time.Second))
	}
	return s
}

// millions formats n as "1.23 M" from a million up, else as it is.
func millions(n int64) string {
	if n >= 1e6 {
		return fmt.Sprintf("%.2f M", float64(n)/1e6)
	}
	return fmt.Sprint(n)
}

// load creates the schemas, COPYs the data and builds the indexes, the big
// tables in parallel, each job in its own transaction.
func (g *gen) load(ctx context.Context, pool *pgxpool.Pool) error {
	if err := storage.CreateSchemas(ctx, pool, g.t, storage.DDLOptions{NoIndexes: true, NoRegister: true}); err != nil {
		return err
	}
	inTx := func(f func(pgx.Tx) error) func() error {
		return func() error {
			return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				// Three builds at a time already keep the cores busy: parallel
				// workers per build would only add their merge on top.
				for _, s := range []string{"SET LOCAL maintenance_work_mem = '512MB'", "SET LOCAL synchronous_commit = off",
					"SET LOCAL max_parallel_maintenance_workers = 0"} {
					if _, err := tx.Exec(ctx, s); err != nil {
						return err
					}
				}
				return f(tx)
			})
		}
	}
	var done rowsDone
	total := g.totalRows()
	g.progress("loading %s rows (%d COPY streams in parallel)", millions(total), parallelism)
	stop := g.ticker(func(d time.Duration) string { return ProgressLine(done.n.Load(), total, d) })
	var fns []func() error
	var pkeys []string
	for _, j := range g.jobs() {
		for _, b := range j.bulks {
			if b.n > 0 {
				// The primary key is built after the load, like every index:
				// sorting once beats inserting each key into a growing b-tree.
				pkeys = append(pkeys, fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s_pkey PRIMARY KEY (id)", b.t.QualifiedName(g.t), b.t.Name))
			}
		}
		fns = append(fns, inTx(func(tx pgx.Tx) error {
			for _, b := range j.bulks {
				if b.n == 0 {
					continue
				}
				q := b.t.QualifiedName(g.t)
				if _, err := tx.Exec(ctx, "TRUNCATE "+q); err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT %s_pkey", q, b.t.Name)); err != nil {
					return err
				}
			}
			if j.small != nil {
				if err := j.small(ctx, tx); err != nil {
					return err
				}
			}
			for _, b := range j.bulks {
				if err := g.copyIn(ctx, tx, b, &done); err != nil {
					return err
				}
			}
			if j.after != nil {
				return j.after(ctx, tx)
			}
			return nil
		}))
	}
	err := runAll(ctx, fns)
	stop()
	if err != nil {
		return err
	}
	ddl := append(pkeys, storage.AllIndexDDL(g.t, storage.DDLOptions{})...)
	g.progress("creating %d indexes", len(ddl))
	start := time.Now()
	var built atomic.Int64
	stop = g.ticker(func(d time.Duration) string {
		return fmt.Sprintf("indexes: %d of %d built in %s", built.Load(), len(ddl), d.Round(time.Second))
	})
	fns = nil
	for _, s := range ddl {
		fns = append(fns, inTx(func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, s)
			built.Add(1)
			return err
		}))
	}
	err = runAll(ctx, fns)
	stop()
	if err != nil {
		return err
	}
	g.progress("indexes built in %s; analyzing", time.Since(start).Round(time.Millisecond))
	fns = nil
	for _, t := range []*storage.Table{itemT, holdingsT, instanceT, authorityT, usersT, loanT, checkedOutT, checkedInT} {
		fns = append(fns, func() error { _, err := pool.Exec(ctx, "ANALYZE "+t.QualifiedName(g.t)); return err })
	}
	return runAll(ctx, fns)
}

// writeFiles writes every bulk table's COPY stream into dir instead of
// loading it (Options.CopyDir: the bytes the seed would send, for a floor
// that loads them with PostgreSQL alone).
func (g *gen) writeFiles(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var done rowsDone
	total := g.totalRows()
	stop := g.ticker(func(d time.Duration) string { return ProgressLine(done.n.Load(), total, d) })
	defer stop()
	var bulks []bulk
	for _, j := range g.jobs() {
		bulks = append(bulks, j.bulks...)
	}
	sort.SliceStable(bulks, func(a, b int) bool { return bulks[a].n > bulks[b].n })
	var fns []func() error
	for _, b := range bulks {
		fns = append(fns, func() error { return g.copyToFile(ctx, dir, b, &done) })
	}
	return runAll(ctx, fns)
}

// runAll runs jobs, at most parallelism at a time, and returns the first error.
func runAll(ctx context.Context, jobs []func() error) error {
	sem := make(chan struct{}, parallelism)
	errs := make(chan error, len(jobs))
	for _, j := range jobs {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- j()
		}()
	}
	var first error
	for range jobs {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first == nil {
		first = ctx.Err()
	}
	return first
}
