# minifolio's platform: the CLI (bin/minifolio), gateway, storage layer, seed
# and reset (minifolio/main.go, minifolio/internal/{okapi,storage,seed,procs}).
.PHONY: minifolio test-unit-minifolio bench-minifolio-seed fuzz-search

MINIFOLIO_SOURCES := $(shell find $(CURDIR)/minifolio -name '*.go' -not -name '*_test.go' 2>/dev/null) \
	$(CURDIR)/minifolio/go.mod $(CURDIR)/minifolio/go.sum

minifolio: $(CURDIR)/bin/minifolio ## build bin/minifolio (gateway, modules, seed/reset CLI)

$(CURDIR)/bin/minifolio: $(MINIFOLIO_SOURCES)
	@mkdir -p $(CURDIR)/bin
	@cd $(CURDIR)/minifolio && go build -trimpath -o $@.tmp . && mv $@.tmp $@

# mod-search's tests also need OpenSearch: FP_OPENSEARCH_URL, else the test
# stack's FP_OPENSEARCH_PORT on 127.0.0.1; the Eureka platform's tests
# (internal/eureka) need Keycloak: FP_KEYCLOAK_URL, else FP_KEYCLOAK_PORT.
test-unit-minifolio: ## go vet + go test of every minifolio package (needs the stack: FP_PG_DSN, OpenSearch, Keycloak)
	@cd $(CURDIR)/minifolio && go vet ./... && \
	FP_OPENSEARCH_URL="$${FP_OPENSEARCH_URL:-$${FP_OPENSEARCH_PORT:+http://127.0.0.1:$$FP_OPENSEARCH_PORT}}" \
	FP_KEYCLOAK_URL="$${FP_KEYCLOAK_URL:-$${FP_KEYCLOAK_PORT:+http://127.0.0.1:$$FP_KEYCLOAK_PORT}}" go test -count=1 -timeout 30m ./...

fuzz-search: ## fuzz mod-search's CQL -> OpenSearch translator and its search-answer scanner for FUZZTIME each (default 20s)
	@cd $(CURDIR)/minifolio && go test -run='^$$' -fuzz='^FuzzTranslate$$' -fuzztime="$$FUZZTIME" ./internal/search/ && \
	go test -run='^$$' -fuzz='^FuzzAppendHits$$' -fuzztime="$$FUZZTIME" ./internal/search/

# Seeding benchmark: the issue's target is 1,000,000 items (+holdings,
# instances) and 100,000 users in <= 120 s. Uses its own tenant, dropped after.
export BENCH_SEED_ITEMS ?= 1000000
export BENCH_SEED_USERS ?= 100000
bench-minifolio-seed: $(CURDIR)/bin/minifolio ## seed 1M items + 100k users into tenant bench_seed and time it (needs FP_PG_DSN)
	@test -n "$$FP_PG_DSN" || { echo "bench-minifolio-seed: FP_PG_DSN is not set. Fix: make stack-up, then export FP_PG_DSN=\$$(. tools/defaults.sh && fp_minifolio_db)"; exit 1; }
	@tools/local-env.sh --name=$@ env MINIFOLIO_DB="$$FP_PG_DSN" $(CURDIR)/bin/minifolio seed --tenant bench_seed --force \
		--items "$$BENCH_SEED_ITEMS" --users "$$BENCH_SEED_USERS" --loans 5000
	@# psql gets the connection as PG* variables, so the password never shows in ps.
	@eval "$$(python3 -c 'import os, shlex, urllib.parse as u; d = u.urlparse(os.environ["FP_PG_DSN"]); print(" ".join("export %s=%s" % (k, shlex.quote(v)) for k, v in {"PGHOST": d.hostname or "", "PGPORT": str(d.port or 5432), "PGUSER": u.unquote(d.username or ""), "PGPASSWORD": u.unquote(d.password or ""), "PGDATABASE": d.path.lstrip("/")}.items()))')"; \
	psql -qAtc "SELECT 'bench_seed uses ' || pg_size_pretty(sum(pg_total_relation_size(c.oid))) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname LIKE 'bench_seed_%'"
	@tools/local-env.sh --name=$@ env MINIFOLIO_DB="$$FP_PG_DSN" $(CURDIR)/bin/minifolio drop --tenant bench_seed

# CICO capacity (docs/benchmarks.md): profile fast, BENCH_VUS VUs without
# think time for BENCH_DURATION through the real gateway and module processes
# (its own minifolio on BENCH_PORT 9730 and tenant minifolio_bench, so the demo
# stack is untouched), then PostgreSQL's own ceiling on the same server
# (pgbench, same client count) for the ratio. Target: >= 200 CICO
# transactions/s with check-out p95 < 50 ms.
export BENCH_VUS ?= 20
export BENCH_DURATION ?= 60s
export BENCH_PGBENCH_SECONDS ?= 30
.PHONY: bench-minifolio
bench-minifolio: ## CICO tx/s and p95 at BENCH_VUS VUs, no think time, vs pgbench TPS on the same PostgreSQL
	@minifolio/bench.sh
