# minifolio's contract with FOLIO's published JSON schemas (minifolio/contract/).
.PHONY: contract-deps contract-schemas test-e2e-contract

contract-deps: $(CURDIR)/node_modules/.package-lock.json ## install the root npm packages (ajv, ajv-draft-04, ajv-formats, yaml) from package-lock.json
# npm ci writes node_modules/.package-lock.json; reinstall when the lockfile changes.
$(CURDIR)/node_modules/.package-lock.json: $(CURDIR)/package-lock.json
	@npm ci --no-audit --no-fund --loglevel=error
	@touch $@

contract-schemas: ## refresh minifolio/contract/schemas/ and SOURCES from the folio-org repositories' clones (FP_MIRRORS, default /work/.mirror)
	@node tools/contract-schemas.mjs

test-e2e-contract: $(BIN)/minifolio contract-deps ## every answer of the CICO sequence valid against the answering module's published JSON schema (Orchid and Lotus tags)
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/contract.test.mjs
