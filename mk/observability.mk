# Observability as code: the dashboard generator and its tests,
# docker-compose.yml's validation, and the Telegraf docker/ECS configs.
.PHONY: dashboards dashboards-deps test-unit-dashboards test-unit-compose \
	test-e2e-telegraf-configs test-e2e-dashboards

DASHBOARDS_DIR := $(CURDIR)/dashboards

dashboards-deps: $(DASHBOARDS_DIR)/node_modules/.package-lock.json ## install the dashboard generator's npm packages (from its lockfile)
# npm ci writes node_modules/.package-lock.json; reinstall when the lockfile changes.
$(DASHBOARDS_DIR)/node_modules/.package-lock.json: $(DASHBOARDS_DIR)/package-lock.json
	@cd $(DASHBOARDS_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

dashboards: dashboards-deps ## regenerate dashboards/generated/*.json from dashboards/src/ (commit the result)
	@node $(DASHBOARDS_DIR)/src/generate.mjs

test-unit-dashboards: dashboards-deps ## dashboards: committed JSON not stale, dashboard-linter-style rules, Grafana variable substitution
	@node --test --test-reporter=spec $(CURDIR)/tests/unit/dashboards*.test.mjs

test-unit-compose: ## docker-compose.yml loaded by compose-go: binds exist, images pinned, healthchecks, K6_OUT, provisioning
	@cd $(CURDIR)/tests/compose && go test -count=1 ./...

test-e2e-telegraf-configs: $(BIN)/telegraf ## telegraf/docker.conf and ecs.conf in the real Telegraf (FP_PG_DSN for the postgresql input)
	@node --test --test-reporter=spec --test-concurrency=1 $(CURDIR)/tests/e2e/telegraf-configs.test.mjs

test-e2e-dashboards: ## every dashboard query run against InfluxDB (FP_INFLUX_URL; each workflow's recorded run: last-<name>-testid in FP_STACK_DIR, or FP_DASH_TESTID_<NAME>)
	@node --test --test-reporter=spec --test-concurrency=1 $(CURDIR)/tests/e2e/dashboards.test.mjs
