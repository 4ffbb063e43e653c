# The project's k6 build (k6/): stock k6 v1.8.1 plus the k6/x/sql module.
# Plain `go build` (xk6 and its build service are not needed); the binary is
# rebuilt only when a source file, go.mod or go.sum changes.
.PHONY: k6 test-unit-k6 test-e2e-sql

K6_SOURCES := $(shell find $(CURDIR)/k6 -name '*.go' -not -name '*_test.go' 2>/dev/null) \
	$(CURDIR)/k6/go.mod $(CURDIR)/k6/go.sum

k6: $(CURDIR)/bin/k6 ## build bin/k6 (k6 v1.8.1 + k6/x/sql; first build takes a few minutes)

$(CURDIR)/bin/k6: $(K6_SOURCES)
	@echo "==> k6: building bin/k6 (k6 v1.8.1 + k6/x/sql)"
	@mkdir -p $(CURDIR)/bin $(CURDIR)/.stack/logs
	@cd $(CURDIR)/k6 && go build -trimpath -buildvcs=false -o $@.tmp . >$(CURDIR)/.stack/logs/build-k6.log 2>&1 \
		|| { rm -f $@.tmp; echo "folio-perf: building k6 failed. Fix: read .stack/logs/build-k6.log"; exit 1; }
	@mv $@.tmp $@

# Upstream k6 as released, built from its own main package (go.k6.io/k6, the version k6/go.mod pins),
# with nothing of ours in it: the stock k6 a user has (no k6/x/sql, no influxdb-lp), for
# test-e2e-stock-k6.
.PHONY: k6-stock
k6-stock: $(CURDIR)/bin/k6-stock ## build bin/k6-stock: upstream k6 v1.8.1 alone (the stock-k6 path's tests)

$(CURDIR)/bin/k6-stock: $(CURDIR)/k6/go.mod $(CURDIR)/k6/go.sum
	@echo "==> k6: building bin/k6-stock (upstream k6 v1.8.1, no extension)"
	@mkdir -p $(CURDIR)/bin $(CURDIR)/.stack/logs
	@cd $(CURDIR)/k6 && go build -trimpath -buildvcs=false -o $@.tmp go.k6.io/k6 >$(CURDIR)/.stack/logs/build-k6-stock.log 2>&1 \
		|| { rm -f $@.tmp; echo "folio-perf: building the stock k6 failed. Fix: read .stack/logs/build-k6-stock.log"; exit 1; }
	@mv $@.tmp $@

test-unit-k6: ## go vet + go test of the k6 build and its sql module
	@cd $(CURDIR)/k6 && go vet ./... && go test ./...

test-e2e-sql: $(CURDIR)/bin/k6 ## k6/x/sql against the stack's PostgreSQL (needs FP_PG_DSN)
	@K6_AUTO_EXTENSION_RESOLUTION=false node --test --test-reporter=spec tests/e2e/sql.test.mjs

# The influxdb-lp output against the test stack's real InfluxDB 1.x (build tag influxdb: not in
# test-unit-k6, which runs before the stack): odd tag values stored as one point each, lines
# InfluxDB cannot parse counted lost.
.PHONY: test-e2e-influx-lp
test-e2e-influx-lp: ## the k6 output's line protocol against the test stack's InfluxDB (needs FP_INFLUX_URL)
	@cd $(CURDIR)/k6 && go test -count=1 -tags influxdb -run RealInfluxDB ./influxout/
