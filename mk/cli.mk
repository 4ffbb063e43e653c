# The run's command line (tools/run.sh, tools/folio-perf.mjs) and the
# repository's own rules.
.PHONY: test-unit-repo
test-unit-repo: ## no tracked file cites a document that is not in the repository
	@node --test $(CURDIR)/tests/unit/repo-self-contained.test.mjs
