# `make lint`: every linter over every file of its kind, as docs/lint.md describes; `make test` runs it
# as its unit suite `lint`. The JavaScript: ESLint (eslint.config.js). The Go modules: go vet and
# staticcheck. The shell scripts: shellcheck. The files linted are the tracked ones (git ls-files), so
# results/, .stack/ and node_modules/ never are.
.PHONY: lint lint-js lint-go lint-shell staticcheck format

# The release the Go module proxy serves (staticcheck 2026.2.2).
STATICCHECK_VERSION := v0.8.2

# -k: one run shows every linter's findings, not only the first failing linter's.
lint: ## ESLint, go vet + staticcheck, shellcheck over the whole repository (docs/lint.md)
	@$(MAKE) --no-print-directory -k lint-js lint-go lint-shell

# --cache: a second run re-reads only the files that changed (the cache lives with the stack's logs).
lint-js: contract-deps ## ESLint (eslint.config.js) over every JavaScript file
	@mkdir -p .stack
	@node_modules/.bin/eslint --max-warnings 0 --cache --cache-location .stack/eslintcache .

# Every Go module of the repository (minifolio, k6, ...), found by its go.mod.
lint-go: $(BIN)/staticcheck ## go vet and staticcheck over every Go module
	@set -e; for mod in $$(git ls-files '*go.mod' | xargs -n1 dirname); do \
		echo "==> lint-go: $$mod"; \
		(cd "$$mod" && go vet ./... && $(BIN)/staticcheck ./...); \
	done

# The shell scripts: *.sh and the tracked files whose first line is a bash or sh shebang (.ci/run).
lint-shell: ## shellcheck over every shell script
	@command -v shellcheck >/dev/null || { echo "folio-perf: shellcheck is not installed. Fix: make deps (or apt-get install shellcheck)"; exit 1; }
	@git ls-files -z | xargs -0 awk 'FNR == 1 { if (FILENAME ~ /\.sh$$/ || /^#!.*[\/ ](ba)?sh( |$$)/) print FILENAME; nextfile }' \
		| xargs shellcheck

staticcheck: $(BIN)/staticcheck ## build staticcheck (the Go linter) into bin/
$(eval $(call go-tool,staticcheck,honnef.co/go/tools/cmd/staticcheck,$(STATICCHECK_VERSION)))

# Prettier lays out the JavaScript files you name (.prettierrc.json); `make lint` does not enforce it
# (docs/lint.md says why).
format: contract-deps ## Prettier over the files you name: make format FILES='tools/x.mjs lib/y.js'
# FILES comes from the environment (make exports command-line variables), never pasted into the recipe.
	@[ -n "$${FILES:-}" ] || { echo "folio-perf: format needs the files to lay out. Fix: make format FILES='tools/x.mjs lib/y.js'"; exit 1; }
	@node_modules/.bin/prettier --write $${FILES}
