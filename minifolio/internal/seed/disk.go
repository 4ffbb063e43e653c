package seed

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Bytes on disk per row of the bulk tables, heap, TOAST and every index
// together (pg_total_relation_size / rows of a `--scale 1m` seed, PostgreSQL
// 15; docs/scale.md). Rounded up: an estimate that errs small fills a disk.
const (
	bytesPerInstance  = 1_400
	bytesPerHoldings  = 660
	bytesPerItem      = 1_020
	bytesPerUser      = 950
	bytesPerLoan      = 1_500 // open and closed loans
	bytesPerEvent     = 300   // each of a past loan's two patron-block events
	bytesPerAuthority = 480
	// diskMargin on top of the rows: reference data, free space in the last
	// pages, statistics.
	diskMargin = 1.10
	// diskReserve: what the seed needs besides its tables and what the disk
	// must keep afterwards: index builds' sort files (the biggest index spills
	// about its own size), the WAL of the small tables, and room for the
	// runs that follow.
	diskReserve = 2 << 30
)

// Estimate is the disk space the seed needs, in bytes.
func (o Options) Estimate() int64 {
	in, ho, it := o.inventory()
	events := int64(o.historyUsers()) * int64(o.EventsPerUser)
	loans := int64(o.Loans) + int64(o.ClosedLoans)
	rows := int64(in)*bytesPerInstance + int64(ho)*bytesPerHoldings + int64(it)*bytesPerItem +
		int64(o.Users)*bytesPerUser + loans*bytesPerLoan + 2*events*bytesPerEvent + int64(o.Authorities)*bytesPerAuthority
	return int64(float64(rows)*diskMargin) + diskReserve
}

// ErrDiskShort: the database's disk has less free space than the seed needs.
var ErrDiskShort = errors.New("not enough free disk")

// CheckDisk refuses a seed that needs more than free (plus what dropping
// the tenant's present copy gives back).
func CheckDisk(need, free, reclaim int64, where string) error {
	if free+reclaim >= need {
		return nil
	}
	have := HumanBytes(free)
	if reclaim > 0 {
		have += " + " + HumanBytes(reclaim) + " of the tenant it replaces"
	}
	return fmt.Errorf("%w: the seed needs about %s, %s has %s free", ErrDiskShort, HumanBytes(need), where, have)
}

// HumanBytes formats n as GB or MB (decimal, as df -H).
func HumanBytes(n int64) string {
	if n >= 1e9 {
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	}
	return fmt.Sprintf("%.0f MB", float64(n)/1e6)
}

// checkDisk measures the free space where the database keeps its files
// (or takes Options.DiskFree) and refuses a seed that would not fit.
func (g *gen) checkDisk(ctx context.Context, pool *pgxpool.Pool) error {
	need := g.o.Estimate()
	free, where := g.o.DiskFree, "the database's disk (--disk-free)"
	if free <= 0 {
		var dir string
		if err := pool.QueryRow(ctx, "SHOW data_directory").Scan(&dir); err != nil {
			g.progress("disk not checked: %v (the seed needs about %s)", err, HumanBytes(need))
			return nil
		}
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			// e.g. PostgreSQL in a container: its directory is not ours to see
			g.progress("disk not checked: %s is not on this machine (the seed needs about %s; --disk-free says what is free)",
				dir, HumanBytes(need))
			return nil
		}
		free, where = int64(st.Bavail)*st.Bsize, "the disk of "+dir
	}
	// What dropping the tenant's present copy gives back.
	var reclaim int64
	if err := pool.QueryRow(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'm')`,
		storage.TenantSchemas(g.t)).Scan(&reclaim); err != nil {
		return err
	}
	if err := CheckDisk(need, free, reclaim, where); err != nil {
		return err
	}
	g.progress("disk: the seed needs about %s, %s has %s free", HumanBytes(need), where, HumanBytes(free+reclaim))
	return nil
}
