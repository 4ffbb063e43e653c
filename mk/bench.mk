# Benchmarks: figures for docs/benchmarks.md, never part of `make test`. Each runs on this
# machine's stack only (tools/local-env.sh), whatever the shell exports.
.PHONY: bench-k6

bench-k6: ## k6's own cost with the CICO scripts at 200 VUs against its floor (same VUs, rate and output): CPU per request, RSS per VU
	@tools/local-env.sh --name=$@ bash -c '$(MAKE) --no-print-directory stack-up k6 minifolio && exec node tools/bench-k6.mjs'

.PHONY: bench-jmeter
bench-jmeter: ## PTF's own CICO plan on JMeter 5.6.3 vs the k6 script, 8 users, no think time, alternated: CPU per transaction, RSS
	@tools/local-env.sh --name=$@ bash -c '$(MAKE) --no-print-directory stack-up k6 minifolio jmeter && exec node tools/bench-jmeter.mjs'
