# Apache JMeter 5.6.3 for the JMeter harness (tools/jmeter/): its modules and
# their dependencies from Maven Central (tools/jmeter/pom.xml, 143 jars, 70 MB),
# laid out as a JMeter home in bin/jmeter/: bin/ApacheJMeter.jar with the
# properties of ApacheJMeter_config, the ApacheJMeter_* modules in lib/ext/
# (where JMeter looks for its components), their dependencies in lib/.
.PHONY: jmeter jmeter-run test-unit-jmeter test-e2e-jmeter test-e2e-jmeter-eureka

JMETER_HOME := $(BIN)/jmeter

jmeter: $(JMETER_HOME)/.fetched ## fetch Apache JMeter 5.6.3 (Maven Central, 70 MB, first time only) into bin/jmeter

$(JMETER_HOME)/.fetched: $(CURDIR)/tools/jmeter/pom.xml
	@command -v mvn >/dev/null || { echo "folio-perf: Maven (mvn) is not installed. Fix: run make deps (installs maven)"; exit 1; }
	@command -v jar >/dev/null || { echo "folio-perf: jar (JDK 17) is not installed. Fix: run make deps (installs openjdk-17-jdk-headless)"; exit 1; }
	@echo "==> jmeter: fetching Apache JMeter 5.6.3 from Maven Central (70 MB, first time only)"
	@mkdir -p $(CURDIR)/.stack/logs && rm -rf $(JMETER_HOME).tmp
	@cd $(CURDIR)/tools/jmeter && mvn -B -q dependency:copy-dependencies -DincludeScope=runtime \
		-DoutputDirectory=$(JMETER_HOME).tmp/jars >$(CURDIR)/.stack/logs/build-jmeter.log 2>&1 \
		|| { echo "folio-perf: fetching JMeter failed. Fix: read .stack/logs/build-jmeter.log (Maven Central must be reachable)"; exit 1; }
	@cd $(JMETER_HOME).tmp && mkdir -p bin lib/ext lib/junit && jar xf jars/ApacheJMeter_config-*.jar bin \
		&& mv jars/ApacheJMeter-[0-9]*.jar bin/ApacheJMeter.jar && rm jars/ApacheJMeter_config-*.jar \
		&& mv jars/ApacheJMeter_*.jar lib/ext/ && mv jars/*.jar lib/ && rmdir jars
	@rm -rf $(JMETER_HOME) && mv $(JMETER_HOME).tmp $(JMETER_HOME)
	@touch $@

# make jmeter-run PLAN=path/to/plan.jmx [JMETER_PROPS='-JVUSERS=8 -JDURATION=300'] [JMETER_TARGET=http://127.0.0.1:9130]
# PLAN, JMETER_TARGET and JMETER_PROPS reach the recipe through the environment (make exports
# command-line variables) and are expanded by the shell there: make would paste $(PLAN) into the
# recipe's text before the shell parses it, so a quote in a value would end the quoting. The
# properties split on spaces, as written.
jmeter-run: jmeter ## run a JMeter plan headless against the loopback minifolio (PLAN=, JMETER_PROPS=, JMETER_TARGET=); results/jmeter-*/results.jtl
	@node tools/jmeter/run.mjs "$$PLAN" $${JMETER_TARGET:+--target "$$JMETER_TARGET"} $$JMETER_PROPS

test-unit-jmeter: ## the JMeter harness's pure parts: pointing a plan at loopback, arguments, JTL summary (no JMeter)
	@node --test $(CURDIR)/tests/unit/jmeter.test.mjs

test-e2e-jmeter: jmeter $(BIN)/minifolio ## PTF's own CICO plan through the harness against minifolio: transactions pass, other hosts refused
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/jmeter.test.mjs

test-e2e-jmeter-eureka: jmeter $(BIN)/minifolio opensearch search-data keycloak ## PTF's Eureka-era plans (cookie login) unchanged against sunflower: mod-search passes; the ECS plan's login and minifolio's calls pass
	@node --test --test-reporter=spec --test-concurrency=1 tests/e2e/jmeter-eureka.test.mjs
