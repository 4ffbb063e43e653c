# The regression gate's statistical verdict (tools/verdict/): its method, the
# end-to-end gate on minifolio's slowdown profiles, and the benchmark that
# measures its false-alarm rate and power.
.PHONY: test-unit-verdict test-e2e-gate bench-gate

test-unit-verdict: ## the baseline comparison's method on synthetic runs (false-alarm rate over seeds, power, intervals), baseline format 2 (no services)
	@node --test $(CURDIR)/tests/unit/verdict-*.test.mjs
