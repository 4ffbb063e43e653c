# Benchmarks: figures for docs/benchmarks.md, never part of `make test`. Each runs on this
# machine's stack only (tools/local-env.sh), whatever the shell exports.
.PHONY: bench-k6

bench-k6: ## k6's own cost with the CICO scripts at 200 VUs against its floor (same VUs, rate and output): CPU per request, RSS per VU
	@tools/local-env.sh --name=$@ bash -c '$(MAKE) --no-print-directory stack-up k6 minifolio && exec node tools/bench-k6.mjs'

.PHONY: bench-jmeter
bench-jmeter: ## PTF's own CICO plan on JMeter 5.6.3 vs the k6 script, 8 users, no think time, alternated: CPU per transaction, RSS
	@tools/local-env.sh --name=$@ bash -c '$(MAKE) --no-print-directory stack-up k6 minifolio jmeter && exec node tools/bench-jmeter.mjs'

.PHONY: test-unit-bench
test-unit-bench: ## bench-k6's and bench-jmeter's arithmetic: the steady window, its figures, min/median/max (no services)
	@node --test $(CURDIR)/tests/unit/bench-measure.test.mjs

# InfluxDB's load of a long run: points/s and disk per hour of the ptf and longevity profiles and of
# the search workflow at 20 users, from short runs (BENCH_SAMPLES_SECONDS per step, 60) extrapolated;
# each into a throwaway InfluxDB on the stack's port + 80 (about 10 minutes).
.PHONY: bench-samples test-unit-bench-samples
bench-samples: ## points/s and InfluxDB disk/hour of ptf, longevity and search at 20 users (short runs, extrapolated), against every-k6-metric as the floor
	@tools/local-env.sh --name=$@ bash -c '$(MAKE) --no-print-directory run-deps WORKFLOW=search && exec node tools/bench-samples.mjs'
test-unit-bench-samples: ## bench-samples' extrapolation arithmetic (no services)
	@node --test $(CURDIR)/tests/unit/bench-samples-stats.test.mjs
