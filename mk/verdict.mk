# The regression gate's statistical verdict (tools/verdict/): its method, the
# end-to-end gate on minifolio's slowdown profiles, and the benchmark that
# measures its false-alarm rate and power.
.PHONY: test-unit-verdict test-e2e-gate bench-gate

test-unit-verdict: ## the baseline comparison's method on synthetic runs (false-alarm rate over seeds, power, intervals), baseline format 2 (no services)
	@node --test $(CURDIR)/tests/unit/verdict-*.test.mjs

test-e2e-gate: $(BIN)/k6 $(BIN)/minifolio ## the gate end to end: baseline of 2 fast runs; a fast-checkout-plus50 candidate exits 99 (check-out regressed), a fast one exits 0
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/gate.test.mjs

bench-gate: ## the gate's false-alarm rate and power: interleaved fast / fast-checkout-plus10/25/50 runs, baselines from subsets of the fast runs (16 runs of 120 s, ~35 min)
	@tools/local-env.sh --name=$@ bash -c '$(MAKE) --no-print-directory stack-up k6 minifolio && . tools/defaults.sh && \
		FP_INFLUX_URL=$${FP_INFLUX_URL:-http://127.0.0.1:$$FP_INFLUX_PORT} exec node tools/bench-gate.mjs'
