# The k6 check-in/check-out workflow library (lib/, scripts/, thresholds.json, env/).
.PHONY: test-unit-lib

test-unit-lib: ## unit tests of the k6 library's pure modules (node --test, no k6 needed)
	@node --test $(CURDIR)/tests/unit/lib-*.test.mjs
