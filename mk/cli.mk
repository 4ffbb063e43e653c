# folio-perf, the one program (tools/folio-perf.mjs, tools/cli/, tools/run/), and the
# repository's own rules.
.PHONY: test-unit-repo
test-unit-repo: ## no tracked file cites a document outside the repository; no switch on a workflow's name outside its own files; README <= 250 lines, doc links resolve, docs/ lines <= 120
	@node --test $(CURDIR)/tests/unit/repo-*.test.mjs $(CURDIR)/tests/unit/docs.test.mjs

.PHONY: test-unit-cli
test-unit-cli: ## folio-perf's command line without services: npx/bin, --help per command, parseArgs errors, argv passwords refused, make's hostile TESTID, run settings
	@node --test $(CURDIR)/tests/unit/cli.test.mjs

.PHONY: test-e2e-run-cli
test-e2e-run-cli: $(BIN)/k6 $(BIN)/minifolio ## folio-perf run's exit code (99), progress lines, bad settings and refused logins stopped before k6, SIGTERM/SIGINT leave no process, a crash on your FOLIO lists its loans
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/run-cli.test.mjs
