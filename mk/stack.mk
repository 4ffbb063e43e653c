# Tests of the native stack itself (stack/, tools/, telegraf/native.conf).
.PHONY: test-unit-stack test-e2e-stack

# Placeholder values: enough for Telegraf to load and check the config.
NATIVE_CONF_ENV := FP_INFLUX_URL=http://127.0.0.1:1 FP_STACK_DIR=/nonexistent FP_PG_DATA=/nonexistent \
	FP_PG_PORT=1 FP_TELEGRAF_PORT=1 FP_OPENSEARCH_PORT=1 FOLIO_DB_PASSWORD=x

test-unit-stack: $(BIN)/telegraf ## syntax of the stack scripts; telegraf/native.conf loads in the real Telegraf
	@bash -n stack/stack.sh && bash -n stack/lib.sh && for f in tools/*.sh; do bash -n $$f || exit 1; done
	@out=$$($(NATIVE_CONF_ENV) timeout 60 $(BIN)/telegraf --strict-env-handling --config telegraf/native.conf \
	  --test --input-filter procstat 2>&1); \
	  if echo "$$out" | grep -q ' E! '; then echo "telegraf/native.conf does not load:"; echo "$$out"; exit 1; fi; \
	  echo "telegraf/native.conf loads"

test-e2e-stack: ## the running test stack: status, k6 → InfluxDB, module_stats, failure modes
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/stack.test.mjs
