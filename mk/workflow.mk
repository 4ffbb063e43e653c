# The k6 check-in/check-out workflow library (lib/, scripts/, thresholds.json, env/).
.PHONY: test-unit-lib

test-unit-lib: ## unit tests of the k6 library's pure modules (node --test, no k6 needed)
	@node --test $(CURDIR)/tests/unit/lib-*.test.mjs

.PHONY: test-unit-k6-document
test-unit-k6-document: $(BIN)/k6 ## the real k6 (res.json, gjson) and lib/folio.js's jsonDocument read responses alike
	@node --test $(CURDIR)/tests/unit/k6-document.test.mjs

.PHONY: test-unit-workflows
test-unit-workflows: dashboards-deps ## a third workflow added as files only (copy of the repository) flows through run config, report, compare, merge, k8s and dashboards; unknown ones fail loudly
	@node --test $(CURDIR)/tests/unit/workflows-*.test.mjs
