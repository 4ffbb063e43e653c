# End-to-end tests of whole runs (tools/run.sh) on the tests' own stack.
.PHONY: test-e2e-cico

test-e2e-cico: $(BIN)/k6 $(BIN)/minifolio ## CICO runs on minifolio: smoke, regression gate, token refresh, bad input, SIGINT
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/cico.test.mjs

.PHONY: test-e2e-influx-loss
test-e2e-influx-loss: $(BIN)/k6 $(BIN)/minifolio ## InfluxDB paused during runs: nothing lost within the retry time; a loss past it fails the run (SAMPLE_LOSS)
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/influx-loss.test.mjs

.PHONY: test-e2e-db-password
test-e2e-db-password: $(BIN)/k6 $(BIN)/minifolio ## a DB password with @ # / ? % space ' " \ through its own stack and a run; in no log
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/db-password.test.mjs
