# minifolio's business modules and release profiles (minifolio/internal/modules,
# minifolio/internal/profile, minifolio/profiles/*.json).
.PHONY: test-unit-minifolio-modules

test-unit-minifolio-modules: ## CICO modules + release profiles against FP_PG_DSN's PostgreSQL (check-out/in, 422s, races, profile mechanisms)
	@cd $(CURDIR)/minifolio && go vet ./internal/modules/ ./internal/profile/ && \
		go test -count=1 ./internal/profile/ ./internal/modules/
