# End-to-end tests of whole runs (folio-perf run) on the tests' own stack.
.PHONY: test-e2e-cico

test-e2e-cico: $(BIN)/k6 $(BIN)/minifolio ## CICO runs on minifolio: smoke, regression gate, token refresh, bad input, SIGINT
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/cico.test.mjs

.PHONY: test-e2e-influx-loss
test-e2e-influx-loss: $(BIN)/k6 $(BIN)/minifolio ## InfluxDB paused during runs: nothing lost within the retry time; a loss past it fails the run (SAMPLE_LOSS)
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/influx-loss.test.mjs

.PHONY: test-e2e-db-password
test-e2e-db-password: $(BIN)/k6 $(BIN)/minifolio ## a DB password with @ # / ? % space ' " \ through its own stack and a run; in no log
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/db-password.test.mjs

# The reliability drills as one suite (tools/drills.sh): interrupt under lotus, a second Ctrl-C, a
# foreign loan, a module and a PostgreSQL restart mid-run, a failed undo (test-e2e-drills, about 5
# minutes, so only here), with the InfluxDB pause, the refused logins and the hard database password
# that `make test` runs too. Starts the test stack when it is not up.
.PHONY: drills test-e2e-drills
drills: $(BIN)/k6 $(BIN)/minifolio ## reliability drills (~8 min, test stack): interrupts, faults, foreign loans, InfluxDB pause, bad passwords; nothing left checked out
	@tools/drills.sh
test-e2e-drills: $(BIN)/k6 $(BIN)/minifolio ## the drills' own file only (tests/e2e/drills.test.mjs), on a test stack that is up
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/drills.test.mjs

.PHONY: test-e2e-scale
test-e2e-scale: $(BIN)/k6 $(BIN)/minifolio ## make run RUNNERS=1/2/4 with the same VUs: same work, no conflicts, all checked in; the verdict over all runners' samples (exact p95, 99 in aggregate)
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/scale.test.mjs

# With a real FOLIO's settings exported (FOLIO_URL, FOLIO_PASSWORD, FOLIO_ENV, ...): make test, drills,
# demo, perf-gate and the benchmarks reach nothing but the local stack (tools/local-env.sh).
.PHONY: test-e2e-local-only
test-e2e-local-only: $(BIN)/k6 $(BIN)/minifolio ## a sentinel as the user's FOLIO: make test/drills/demo/perf-gate/bench-* with its settings exported never contact it; FP_LOCAL_ONLY refusals
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/local-only.test.mjs

.PHONY: test-e2e-influx-auth
test-e2e-influx-auth: $(BIN)/k6 $(BIN)/minifolio ## an InfluxDB with auth enabled: a run, its progress, report, verdict and baseline with K6_INFLUXDB_USERNAME/PASSWORD; the password in no argv, output or file
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/influx-auth.test.mjs

.PHONY: test-e2e-eureka-workflows
test-e2e-eureka-workflows: $(BIN)/k6 $(BIN)/minifolio opensearch search-data keycloak ## both workflows on lotus (Okapi), sunflower and trillium (Eureka), 0 failed requests; 20-second tokens refreshed by every VU; an empty authority index said at the start
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/eureka-workflows.test.mjs

# docs/stock-k6.md's commands as written: upstream k6 (bin/k6-stock, extension resolution on), -o
# influxdb, DATA=csv, no Makefile; then every dashboard query and folio-perf report on those runs.
.PHONY: test-e2e-stock-k6
test-e2e-stock-k6: $(BIN)/k6 $(BIN)/k6-stock $(BIN)/minifolio ## the stock-k6 path (docs/stock-k6.md) line for line: k6 run with -o influxdb, DATA=csv; dashboards and report on its runs
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/stock-k6.test.mjs
