# The release report of a finished run (tools/folio-perf.mjs report/compare, tools/report/).
.PHONY: report compare test-unit-report test-e2e-report

# Aliases of folio-perf report/compare. TESTID, AGAINST, A and B reach the recipe through the
# environment (make exports command-line variables) and are quoted there: make would paste $(TESTID)
# into the shell's text before the shell reads it, so a test id holding quotes could run commands.
report: ## write results/<TESTID>/report.md and report.html: make report TESTID=<testid> [AGAINST=<testid|baseline>] (= folio-perf report)
	@node tools/folio-perf.mjs report $${TESTID:+"$$TESTID"} $${AGAINST:+--against "$$AGAINST"}

compare: ## compare two runs: make compare A=<testid> B=<testid> (results/compare-A-vs-B/; = folio-perf compare)
	@node tools/folio-perf.mjs compare $${A:+"$$A"} $${B:+"$$B"}

test-unit-report: ## report/compare tables, growth per hour, verdicts, SVG and Markdown/HTML escaping (no services)
	@node --test $(CURDIR)/tests/unit/report-*.test.mjs

test-e2e-report: $(BIN)/k6 $(BIN)/minifolio ## a short CICO run, its report's cells recomputed from InfluxDB/summary.json, the HTML in headless Chromium, compare with a lotus run
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/report.test.mjs

.PHONY: test-e2e-report-search
test-e2e-report-search: $(BIN)/k6 $(BIN)/minifolio search-data ## the report of a real mod-search run (needs OpenSearch: the search stack)
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/report-search.test.mjs

# Benchmark, not part of `make test`: BENCH_REPORT_TPS=1 is PTF's think time at 20 users, 50 none.
export BENCH_REPORT_TPS ?= 1
.PHONY: bench-report
bench-report: ## time folio-perf report on a 30-minute 20-user CICO run's worth of samples (target <= 10 s; needs FP_INFLUX_URL)
	@tools/local-env.sh --name=$@ node tools/report/bench.mjs

.PHONY: test-e2e-report-mechanisms
test-e2e-report-mechanisms: $(BIN)/k6 $(BIN)/minifolio ## short CICO runs under missing-index, leak and juniper-patron-blocks: the database and longevity sections against the logs and InfluxDB, each profile's mechanism in the report
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/report-mechanisms.test.mjs

.PHONY: test-e2e-scale-mechanisms
test-e2e-scale-mechanisms: $(BIN)/k6 $(BIN)/minifolio ## missing-index on a tenant with 20,000 closed loans: each lookup by patron reads the whole loan table, first by total time, >= 50x the indexed lookup per call
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/scale-mechanisms.test.mjs

# Benchmark, not part of `make test` (about 30 minutes): the leak verdict on longevity-length runs.
.PHONY: bench-leak
bench-leak: $(BIN)/k6 $(BIN)/minifolio ## two 13-minute constant-load CICO runs (minifolio fast, then leak) and each module's RSS growth and leak verdict from their reports
	@tools/bench-leak.sh

# Not part of `make test` (about 12 minutes): the demo's two runs, reported and checked.
.PHONY: test-e2e-report-demo
test-e2e-report-demo: $(BIN)/k6 $(BIN)/minifolio search-data ## the demo's two runs (tools/demo.sh's settings) on the test stack: every Summary finding against the row it cites (needs the search stack)
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/report-demo.test.mjs
