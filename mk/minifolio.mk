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

# Seeding benchmark (tools/bench-seed.sh): a `--scale` preset seeded into its own
# tenant bench_seed beside the floor, PostgreSQL's own COPY of the same bytes
# from files with the same indexes; dropped after. BENCH_SEED_SCALE (1m),
# BENCH_SEED_ROUNDS (1), BENCH_SEED_FLOOR=0 to skip the floor.
bench-minifolio-seed: $(CURDIR)/bin/minifolio ## seed a --scale preset (BENCH_SEED_SCALE=1m) and time it against PostgreSQL's COPY of the same bytes (needs FP_PG_DSN)
	@tools/local-env.sh --name=$@ tools/bench-seed.sh

# CICO capacity (docs/benchmarks.md): profile fast, BENCH_VUS VUs without
# think time for BENCH_DURATION through the real gateway and module processes
# (its own minifolio on BENCH_PORT 9730 and tenant minifolio_bench, so the demo
# stack is untouched), then PostgreSQL's own ceiling on the same server
# (pgbench, same client count) for the ratio. Target: >= 200 CICO
# transactions/s with check-out p95 < 50 ms.
# Its defaults (BENCH_VUS 20, BENCH_DURATION 60s, BENCH_PGBENCH_SECONDS 30) live in
# minifolio/bench.sh: exported from here, BENCH_VUS=20 was bench-k6's VU count too (200 there).
.PHONY: bench-minifolio
bench-minifolio: ## CICO tx/s and p95 at BENCH_VUS VUs, no think time, vs pgbench TPS on the same PostgreSQL
	@minifolio/bench.sh
