# Benchmarks: figures for docs/benchmarks.md, never part of `make test`.
.PHONY: bench-k6

bench-k6: ## k6's own cost: CPU s per 1,000 CICO transactions and RSS per VU at 200 VUs
	@tools/bench-k6.sh

# InfluxDB's load of a long run: points/s and disk per hour of the ptf and longevity profiles and of
# the search workflow at 20 users, from short runs (BENCH_SAMPLES_SECONDS per step, 60) extrapolated;
# each into a throwaway InfluxDB on the stack's port + 80 (about 10 minutes).
.PHONY: bench-samples test-unit-bench-samples
bench-samples: ## points/s and InfluxDB disk/hour of ptf, longevity and search at 20 users (short runs, extrapolated), against every-k6-metric as the floor
	@tools/local-env.sh --name=$@ bash -c '$(MAKE) --no-print-directory run-deps WORKFLOW=search && exec node tools/bench-samples.mjs'
test-unit-bench-samples: ## bench-samples' extrapolation arithmetic (no services)
	@node --test $(CURDIR)/tests/unit/bench-samples-stats.test.mjs
