# Benchmarks: figures for docs/benchmarks.md, never part of `make test`.
.PHONY: bench-k6

bench-k6: ## k6's own cost: CPU s per 1,000 CICO transactions and RSS per VU at 200 VUs
	@tools/bench-k6.sh
