# The mod-search workflow (scripts/mod-search.js): its query files and its end-to-end test.
.PHONY: search-data test-e2e-search

# Generated, not committed: 13 files x 1,000 rows (~310 KB) rebuilt in a second from the
# wamerican word list whenever the generator changes.
SEARCH_DATA := $(CURDIR)/data/search
search-data: $(SEARCH_DATA)/.generated ## write the search workflow's query files (data/search/, PTF's CSV shapes) from the wamerican word list
$(SEARCH_DATA)/.generated: $(CURDIR)/lib/search/data.js $(CURDIR)/tools/search-data.mjs
	@node $(CURDIR)/tools/search-data.mjs --out $(SEARCH_DATA)
	@touch $@

test-e2e-search: $(BIN)/k6 $(BIN)/minifolio opensearch search-data ## mod-search run on minifolio + OpenSearch: tenant B searched while tenant A reindexes, samples, tables, bad settings
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/search.test.mjs
