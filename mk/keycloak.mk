# Keycloak for the Eureka profiles (minifolio sunflower/trillium): the
# keycloak-quarkus-dist zip from Maven Central, unpacked into bin/keycloak-<version>/
# and built once for `kc.sh start --optimized` (stack/lib.sh starts it; see docs/eureka.md).
# KEYCLOAK_VERSION picks the release: 26.1.3 is Sunflower's pin (the default);
# 26.5.4 is Trillium's GA pin (its later 26.6.0 is not on Maven Central).
.PHONY: keycloak

KEYCLOAK_VERSION ?= $(shell . tools/defaults.sh && echo $$FP_KEYCLOAK_VERSION)
KEYCLOAK_HOME = $(BIN)/keycloak-$(KEYCLOAK_VERSION)

keycloak: $(KEYCLOAK_HOME)/.built ## fetch Keycloak KEYCLOAK_VERSION (Maven Central zip, ~150 MB) and build it for start --optimized

# The build fixes the build-time options (dev-file H2 database; health and
# metrics off, so no management port is opened); every start reuses it instead
# of re-augmenting as start-dev does (about a minute of CPU per start here).
$(BIN)/keycloak-%/.built:
	@command -v mvn >/dev/null || { echo "folio-perf: Maven (mvn) is not installed. Fix: run make deps (installs maven)"; exit 1; }
	@command -v unzip >/dev/null || { echo "folio-perf: unzip is not installed. Fix: run make deps (installs unzip)"; exit 1; }
	@echo "==> keycloak: fetching org.keycloak:keycloak-quarkus-dist:$*:zip from Maven Central (first time only)"
	@mkdir -p $(CURDIR)/.stack/logs && rm -rf $(BIN)/keycloak-$*.tmp && mkdir -p $(BIN)/keycloak-$*.tmp
	@mvn -B -q dependency:copy -Dartifact=org.keycloak:keycloak-quarkus-dist:$*:zip \
		-DoutputDirectory=$(BIN)/keycloak-$*.tmp >$(CURDIR)/.stack/logs/build-keycloak.log 2>&1 \
		|| { echo "folio-perf: fetching Keycloak $* failed. Fix: read .stack/logs/build-keycloak.log (Maven Central must serve org.keycloak:keycloak-quarkus-dist:$*)"; exit 1; }
	@cd $(BIN)/keycloak-$*.tmp && unzip -q keycloak-quarkus-dist-$*.zip && rm keycloak-quarkus-dist-$*.zip
	@echo "==> keycloak: building $* for start --optimized (a few minutes on a busy machine)"
	@JAVA_OPTS_KC_HEAP="-Xms64m -Xmx512m" $(BIN)/keycloak-$*.tmp/keycloak-$*/bin/kc.sh build --db=dev-file \
		>>$(CURDIR)/.stack/logs/build-keycloak.log 2>&1 \
		|| { echo "folio-perf: building Keycloak $* failed. Fix: read .stack/logs/build-keycloak.log (needs JDK 17: make deps)"; exit 1; }
	@rm -rf $(BIN)/keycloak-$* && mv $(BIN)/keycloak-$*.tmp/keycloak-$* $(BIN)/keycloak-$* && rm -rf $(BIN)/keycloak-$*.tmp
	@touch $@

.PHONY: stack-up-eureka
stack-up-eureka: deps telegraf keycloak ## start the native stack with Keycloak (the Eureka profiles'): stack/stack.sh up eureka
	@stack/stack.sh up eureka

# The Eureka hop's cost per request against the Okapi path, in one run
# (tools/bench-eureka.mjs): its own two minifolio deployments on BENCH_EUREKA_PORT
# (default FP_MINIFOLIO_PORT + 22000; Eureka 100 above) and its own tenant eureka_bench,
# removed at the end; BENCH_EUREKA_ROUNDS, BENCH_EUREKA_SAMPLES.
.PHONY: bench-eureka
bench-eureka: stack-up-eureka $(CURDIR)/bin/minifolio ## Eureka (kong -> sidecar -> module) vs Okapi (gateway -> module) per request: latency, CPU per process, beside PTF's Kong-vs-sidecar figure
	@. tools/defaults.sh && MINIFOLIO_DB="$$(fp_minifolio_db)" node tools/bench-eureka.mjs
