# The GitHub Actions workflows (.github/workflows/): actionlint over every one of them, and the gate
# on your FOLIO (folio-gate.yml, tools/gate/), whose end-to-end test runs its steps from the YAML.
.PHONY: actionlint test-unit-github test-e2e-folio-gate

# The release the Go module proxy serves; actionlint's settings are .github/actionlint.yaml.
ACTIONLINT_VERSION := v1.7.12

actionlint: $(BIN)/actionlint ## build actionlint (the GitHub Actions workflows' linter) into bin/
# Rebuilt when the version changes (the stamp is rewritten only when its content differs).
$(BIN)/.actionlint-build: FORCE
	@mkdir -p $(BIN)
	@echo '$(ACTIONLINT_VERSION)' | cmp -s - $@ || echo '$(ACTIONLINT_VERSION)' >$@
$(BIN)/actionlint: $(BIN)/.actionlint-build
	@echo "==> actionlint: building $(ACTIONLINT_VERSION)"
	@mkdir -p .stack/logs
	@GOBIN=$(BIN) go install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION) >.stack/logs/build-actionlint.log 2>&1 \
		|| { echo "folio-perf: building actionlint failed. Fix: read .stack/logs/build-actionlint.log"; exit 1; }
	@touch $@

test-unit-github: $(BIN)/actionlint contract-deps ## actionlint over .github/workflows/*.yml and the docs' caller; the gate's inputs, plan and summary (no services)
	@node --test $(CURDIR)/tests/unit/github-*.test.mjs

test-e2e-folio-gate: $(BIN)/k6 $(BIN)/minifolio contract-deps ## folio-gate.yml's steps run from its YAML against minifolio: a baseline, a passing candidate, a slowed one failing (exit 99)
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/folio-gate.test.mjs
