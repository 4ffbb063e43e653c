# minifolio's CQL → SQL translator (minifolio/internal/cql).
.PHONY: test-unit-cql fuzz-cql

# User values reach recipes through the environment, quoted there (never pasted into their text).
export FUZZTIME ?= 20s

test-unit-cql: ## CQL parser/translator tests (the SQL test runs on FP_PG_DSN's PostgreSQL)
	@cd $(CURDIR)/minifolio && go test -count=1 ./internal/cql/

fuzz-cql: ## fuzz the CQL parser and translator for FUZZTIME (default 20s)
	@cd $(CURDIR)/minifolio && go test -run='^$$' -fuzz=FuzzParse -fuzztime="$$FUZZTIME" ./internal/cql/
