# folio-perf: the single entry point for people and CI.
#
#   make demo    installs what is missing, starts the native stack, runs the main job
#   make test    installs what is missing and runs every test
#   make help    lists every target
#
# Parts of the project add their own targets in mk/*.mk (included below).

SHELL := /bin/bash
.DEFAULT_GOAL := help
export K6_AUTO_EXTENSION_RESOLUTION := false
# k6 would otherwise try to send usage reports out of the machine.
export K6_NO_USAGE_REPORT := true

# A password on make's command line is visible to every user of the machine (ps) and stays in the
# shell's history: refused, as folio-perf run refuses one among its arguments.
FP_ARGV_SECRETS := $(strip $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(filter %PASSWORD %PASSWD %SECRET,$(v)))))
ifneq ($(FP_ARGV_SECRETS),)
$(error $(firstword $(FP_ARGV_SECRETS)) is refused on make's command line, where every user of this machine can read it (ps, shell history); fix: export it in the environment instead, then run make without it)
endif

BIN := $(CURDIR)/bin
TELEGRAF_VERSION := v1.37.2
# Each plugin a config in telegraf/ uses needs its build tag: a full build of
# Telegraf fails here on two unreachable modules.
TELEGRAF_TAGS := custom,inputs.procstat,inputs.postgresql,inputs.docker,inputs.cloudwatch,inputs.elasticsearch,$\
	processors.rename,processors.regex,processors.override,processors.converter,processors.starlark,$\
	aggregators.basicstats,outputs.influxdb,outputs.health

.PHONY: help deps run run-deps run-builds reset demo perf-gate test stack-up stack-down stack-status stack-clean telegraf clean FORCE

help: ## list the targets
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | sort | awk -F':.*## ' '{printf "  %-24s %s\n", $$1, $$2}'

deps: $(BIN)/folio-perf ## install what is missing (Debian/Ubuntu packages; checks Go and Node) and bin/folio-perf
	@tools/deps.sh

# The command a user types: bin/folio-perf (put bin/ on PATH), or `npx folio-perf` from the checkout.
$(BIN)/folio-perf:
	@mkdir -p $(BIN) && ln -sfn ../tools/folio-perf.mjs $@

telegraf: $(BIN)/telegraf ## build Telegraf with the plugins the configs use
# Rebuilt when the version or the tags change, not on every edit of this file:
# the stamp is rewritten only when its content differs.
TELEGRAF_BUILD := $(TELEGRAF_VERSION) $(TELEGRAF_TAGS)
$(BIN)/.telegraf-build: FORCE
	@mkdir -p $(BIN)
	@echo '$(TELEGRAF_BUILD)' | cmp -s - $@ || echo '$(TELEGRAF_BUILD)' >$@
$(BIN)/telegraf: $(BIN)/.telegraf-build
	@echo "==> telegraf: building $(TELEGRAF_VERSION) (first time takes a few minutes)"
	@mkdir -p $(BIN) .stack/logs
	@GOBIN=$(BIN) go install -tags "$(TELEGRAF_TAGS)" \
		github.com/influxdata/telegraf/cmd/telegraf@$(TELEGRAF_VERSION) >.stack/logs/build-telegraf.log 2>&1 \
		|| { echo "folio-perf: building Telegraf failed. Fix: read .stack/logs/build-telegraf.log"; exit 1; }
	@touch $@

stack-up: deps telegraf ## start PostgreSQL, InfluxDB and Telegraf on 127.0.0.1
	@stack/stack.sh up

stack-down: ## stop exactly the processes stack-up started
	@stack/stack.sh down

stack-status: ## one line per service: name, up/down, URL (exit 1 if one is down)
	@stack/stack.sh status

stack-clean: ## stop the stack and delete its data (.stack/)
	@stack/stack.sh clean

# What a run needs beyond the stack, k6 and minifolio is the workflow's own (tools/workflows.mjs
# needs: e.g. OpenSearch and the query files for mod-search); an unknown WORKFLOW stops here.
# `folio-perf run` makes run-deps, or only run-builds when the stack is up already (so a checkout
# sharing another's stack, e.g. perf-gate's base worktree, never starts or restarts its services);
# WORKFLOW comes from the environment, quoted, never pasted in.
run-deps: stack-up run-builds ## what a run needs built and running (folio-perf run calls it)
run-builds: k6 minifolio ## what a run needs built: k6, minifolio and the workflow's needs
	@needs=$$(node tools/workflows.mjs needs "$${WORKFLOW:-}") && { [ -z "$$needs" ] || $(MAKE) --no-print-directory $$needs; }

# Aliases of the one program, folio-perf (tools/folio-perf.mjs): the settings reach it through the
# environment (make exports command-line variables), never through the recipe's text. make turns
# a failed run into its own exit code 2; folio-perf run exits with the run's: 99 thresholds, 105
# interrupted, 108 setup, 96 samples lost.
run: ## one run: make run [WORKFLOW=cico|search] PROFILE=smoke|demo|ptf|... MINIFOLIO_PROFILE=fast|lotus|... (= folio-perf run)
	@node tools/folio-perf.mjs run

reset: ## minifolio's FP_TENANT (defaults.env) back to the pre-test state, e.g. after a double Ctrl-C (= folio-perf reset)
	@node tools/folio-perf.mjs reset

# test, demo, drills, perf-gate and the benchmarks start with tools/local-env.sh: whatever the shell
# exports (FOLIO_URL, FOLIO_PASSWORD, FOLIO_ENV, ...), they run on this machine's stack only. So their
# steps that need the stack run inside their scripts, not as make prerequisites (which run first).
demo: ## the main job: CICO at 1, 5, 8, 20 users (minifolio lotus), then mod-search at 1 and 20 users, alone and while FP_REINDEX_TENANT (defaults.env) reindexes (local minifolio only)
	@tools/demo.sh

# The regression gate of .github/workflows/perf-gate.yml, runnable locally (tools/perf-gate.sh:
# GATE_BASELINE, GATE_RUNS, GATE_DURATION, GATE_CANDIDATE, GATE_ALPHA).
perf-gate: ## baseline of 2 short CICO runs on minifolio fast, a candidate run, folio-perf verdict (exit 99 = regression)
	@tools/perf-gate.sh

test: ## install what is missing and run every test
	@tools/test.sh

clean: ## remove built binaries (keeps stack data)
	rm -rf $(BIN)

# A Go tool built into bin/ from the Go module proxy at a pinned version (actionlint, staticcheck):
# $(eval $(call go-tool,NAME,PACKAGE,VERSION)). Rebuilt when the version changes: the stamp is
# rewritten only when its content differs.
define go-tool
$(BIN)/.$(1)-build: FORCE
	@mkdir -p $(BIN)
	@echo '$(3)' | cmp -s - $$@ || echo '$(3)' >$$@
$(BIN)/$(1): $(BIN)/.$(1)-build
	@echo "==> $(1): building $(3)"
	@mkdir -p .stack/logs
	@GOBIN=$(BIN) go install $(2)@$(3) >.stack/logs/build-$(1).log 2>&1 \
		|| { echo "folio-perf: building $(1) failed. Fix: read .stack/logs/build-$(1).log"; exit 1; }
	@touch $$@
endef

include $(wildcard mk/*.mk)
