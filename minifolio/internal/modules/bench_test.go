package modules

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The Orchid plan's GET/POST requests of one check-out and one check-in
// (folio-org/perf-testing : workflows-scripts/circulation/check-in-check-out/
// Orchid/circulation_checkInCheckOut_orchid.jmx; OPTIONS left out: Okapi
// answers those itself).
func checkOutRequests(f *fixture, ub, ib string) []func(e *env) response {
	uid := f.users[ub]
	get := func(p string) func(e *env) response { return func(e *env) response { return e.do("GET", p, nil) } }
	return []func(e *env) response{
		get("/configurations/entries?query=" + q("(module==CHECKOUT and configName==other_settings)")),
		get("/configurations/entries?query=" + q("(module==USERS and configName==profile_pictures)")),
		get("/groups"),
		get("/users?query=" + q(fmt.Sprintf(`(barcode=="%s" OR externalSystemId=="%s" OR id=="%s" OR username=="%s")`, ub, ub, ub, ub))),
		get("/groups?query=" + q("(id=="+f.group+")")),
		get("/accounts?query=" + q("(userId=="+uid+" and status.name<>Closed)") + "&limit=100"),
		get("/circulation/loans?query=" + q("(userId=="+uid+" and status.name<>Closed)") + "&limit=1"),
		get("/circulation/requests?query=" + q(`(requesterId==`+uid+` and status=="Open")`) + "&limit=100"),
		get("/proxiesfor?query=" + q("query=(userId=="+uid+")") + "&limit=80"),
		get("/proxiesfor?query=" + q("query=(proxyUserId=="+uid+")") + "&limit=80"),
		get("/note-links/domain/users/type/user/id/" + uid + "?limit=10000&order=desc&status=assigned"),
		get("/manualblocks?query=" + q("userId=="+uid)),
		get("/automated-patron-blocks/" + uid + "?limit=100"),
		get("/proxiesfor?query=" + q("query=(proxyUserId=="+uid+")")),
		get("/circulation/requests?query=" + q(`(requesterId==`+uid+` and pickupServicePointId=`+f.sp1+` and status=="Open - Awaiting pickup")`)),
		get("/inventory/items?query=" + q(`barcode=="`+ib+`"`) + "&limit=40"),
		func(e *env) response {
			return e.do("POST", "/circulation/check-out-by-barcode", checkOutBody(f, ib, ub))
		},
		get("/circulation/loans?query=" + q("(userId=="+uid+" and status.name<>Closed)") + "&limit=1"),
		get("/automated-patron-blocks/" + uid + "?limit=100"),
		get("/circulation/requests?query=" + q(`(requesterId==`+uid+` and status=="Open")`) + "&limit=100"),
	}
}

func checkInRequests(f *fixture, ib string) []func(e *env) response {
	get := func(p string) func(e *env) response { return func(e *env) response { return e.do("GET", p, nil) } }
	sp := f.sp1
	return []func(e *env) response{
		get("/groups"), get("/users"), get("/staff-slips-storage/staff-slips?limit=1000"), get("/service-points?limit=1000"),
		get("/configurations/entries?query=" + q("(module=CHECKOUT and configName=other_settings)")),
		get("/inventory/items?query=" + q(`barcode=="`+ib+`"`) + "&limit=1000"),
		func(e *env) response {
			return e.do("POST", "/circulation/check-in-by-barcode", map[string]any{"servicePointId": sp,
				"checkInDate": time.Now().UTC().Format(time.RFC3339), "itemBarcode": ib})
		},
		get("/circulation/requests?query=" + q(`(itemId==`+f.itemIDs[ib]+` and (status=="Open - Awaiting pickup" or status=="Open - Awaiting delivery"))`)),
		get("/accounts?query=" + q(`loanId=="`+newUUID()+`"`)),
		get("/lost-item-fees-policies?query=" + q("id=="+f.lostPolicy)),
		get("/accounts?query=" + q(`(userId==`+newUUID()+` and itemId==`+f.itemIDs[ib]+`) AND (status.name=="Open" OR status.name=="Closed")`)),
		get("/accounts?query=" + q(`(userId==`+newUUID()+` and itemId==`+f.itemIDs[ib]+` and loanId==`+newUUID()+`) and status.name=="Open"`)),
	}
}

// transaction runs the requests in order and returns the summed request time
// (think time excluded, as the release reports count it).
func transaction(b *testing.B, e *env, reqs []func(e *env) response) time.Duration {
	var total time.Duration
	for _, r := range reqs {
		start := time.Now()
		res := r(e)
		total += time.Since(start)
		if res.status >= 300 || res.status == 0 {
			b.Errorf("status %d: %s", res.status, res.body)
		}
	}
	return total
}

func pct(d []time.Duration, p float64) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[int(float64(len(d)-1)*p)]
}

// BenchmarkCICO replays CICO transactions (57 % check-out, 43 % check-in, no
// think time) with CICO_VUS concurrent users under CICO_PROFILE and reports
// transactions/s and per-transaction p50/p95, like the release reports.
// make bench-minifolio-modules CICO_PROFILE=lotus CICO_VUS=8
func BenchmarkCICO(b *testing.B) {
	prof := envOr("CICO_PROFILE", "fast")
	vus := 1
	fmt.Sscan(envOr("CICO_VUS", "20"), &vus)
	const perVU = 8 // a VU holds at most 4 loans, so its items never collide
	pool, tenant, f := newTenantWith(b, vus*perVU)
	e := newEnv(b, pool, tenant, prof)
	var mu sync.Mutex
	var outs, ins []time.Duration
	pgExec := func() float64 {
		var ms float64
		// pg_stat_statements keeps schema names in the query text: the
		// tenant's share of the server's execution time.
		pool.QueryRow(b.Context(), `SELECT coalesce(sum(total_exec_time), 0) FROM pg_stat_statements WHERE query LIKE '%' || $1 || '%'`, tenant).Scan(&ms)
		return ms
	}
	pg0, cpu0 := pgExec(), cpuTime()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	var done atomic.Int64
	for v := 0; v < vus; v++ {
		wg.Add(1)
		go func(v int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(v), 7))
			// each VU owns its items: check out one, later check it in
			var mine []string
			k := 0
			for done.Add(1) <= int64(b.N) {
				if len(mine) > 0 && (r.IntN(100) < 43 || len(mine) > 3) {
					ib := mine[0]
					mine = mine[1:]
					d := transaction(b, e, checkInRequests(f, ib))
					mu.Lock()
					ins = append(ins, d)
					mu.Unlock()
					continue
				}
				k++
				i := v + vus*(k%perVU)
				ib := f.items[i]
				ub := fmt.Sprintf("u-%03d", i%60)
				d := transaction(b, e, checkOutRequests(f, ub, ib))
				mine = append(mine, ib)
				mu.Lock()
				outs = append(outs, d)
				mu.Unlock()
			}
			for _, ib := range mine { // leave the items as found
				transaction(b, e, checkInRequests(f, ib))
			}
		}(v)
	}
	wg.Wait()
	el := time.Since(start)
	n := float64(len(outs) + len(ins))
	b.ReportMetric(n/el.Seconds(), "tx/s")
	// CPU per transaction is what bounds throughput on a small machine and,
	// unlike tx/s, hardly depends on what else the machine runs.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/n, "go-cpu-ms/tx")
	b.ReportMetric((pgExec()-pg0)/n, "pg-exec-ms/tx")
	if len(outs) > 0 {
		b.ReportMetric(float64(pct(outs, 0.5).Microseconds())/1000, "checkout-p50-ms")
		b.ReportMetric(float64(pct(outs, 0.95).Microseconds())/1000, "checkout-p95-ms")
	}
	if len(ins) > 0 {
		b.ReportMetric(float64(pct(ins, 0.5).Microseconds())/1000, "checkin-p50-ms")
		b.ReportMetric(float64(pct(ins, 0.95).Microseconds())/1000, "checkin-p95-ms")
	}
}

// cpuTime is this process's user+system CPU time: client, router and every
// module together, as they all run in the test process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
