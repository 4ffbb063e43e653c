# Benchmarks: figures for docs/benchmarks.md, never part of `make test`.
.PHONY: bench-k6

BENCH_ENV := . tools/defaults.sh && export FP_STACK_DIR FP_PG_PORT FP_INFLUX_PORT FP_MINIFOLIO_PORT FP_K6_API_PORT &&

bench-k6: stack-up k6 minifolio ## k6's own cost with the CICO scripts at 200 VUs against its floor (same VUs, rate and output): CPU per request, RSS per VU
	@$(BENCH_ENV) node tools/bench-k6.mjs
