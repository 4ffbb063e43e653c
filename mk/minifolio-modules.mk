# minifolio's business modules and release profiles (minifolio/internal/modules,
# minifolio/internal/profile, minifolio/profiles/*.json).
.PHONY: test-unit-minifolio-modules

test-unit-minifolio-modules: ## CICO modules + release profiles against FP_PG_DSN's PostgreSQL (check-out/in, 422s, races, profile mechanisms)
	@cd $(CURDIR)/minifolio && go vet ./internal/modules/ ./internal/profile/ && \
		go test -count=1 ./internal/profile/ ./internal/modules/

.PHONY: bench-minifolio-modules
export CICO_PROFILE ?= fast
export CICO_VUS ?= 20
export CICO_TX ?= 1000

bench-minifolio-modules: ## CICO transactions/s and p50/p95 through every module in-process (CICO_PROFILE, CICO_VUS, CICO_TX; needs FP_PG_DSN)
	@test -n "$$FP_PG_DSN" || { echo "bench-minifolio-modules: FP_PG_DSN is not set. Fix: make stack-up, then export FP_PG_DSN=\$$(. tools/defaults.sh && fp_minifolio_db)"; exit 1; }
	@cd $(CURDIR)/minifolio && ../tools/local-env.sh --name=$@ \
		go test -run='^$$' -bench=CICO -benchtime="$${CICO_TX}x" ./internal/modules/ 2>&1 | grep -v 'level=WARN\|WARN Doing'
