# k6-operator TestRuns (k8s/): the tools that build and validate them, and their unit suite.
# Pinned versions; go install puts them in bin/ (kustomize v5.8.3 needs Go 1.27, hence v5.8.2).
KUSTOMIZE_VERSION := v5.8.2
KUBECONFORM_VERSION := v0.8.0
# The k6-operator release whose TestRun CRD the manifests are validated against (k8s/crd/).
K6_OPERATOR_VERSION := v1.6.0

.PHONY: k8s-tools k8s-base test-unit-k8s
k8s-base: ## rewrite k8s/base/ from lib/ and scripts/ (after adding or removing a file under lib/)
	@node tools/k8s-base.mjs

k8s-tools: $(BIN)/kustomize $(BIN)/kubeconform ## kustomize and kubeconform (pinned) into bin/, for k8s/

$(BIN)/.kustomize-$(KUSTOMIZE_VERSION) $(BIN)/.kubeconform-$(KUBECONFORM_VERSION):
	@mkdir -p $(BIN) && touch $@

$(BIN)/kustomize: $(BIN)/.kustomize-$(KUSTOMIZE_VERSION)
	@echo "==> kustomize: installing $(KUSTOMIZE_VERSION)"
	@mkdir -p .stack/logs
	@GOBIN=$(BIN) go install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION) >.stack/logs/build-kustomize.log 2>&1 \
		|| { echo "folio-perf: installing kustomize failed. Fix: read .stack/logs/build-kustomize.log"; exit 1; }
	@touch $@

$(BIN)/kubeconform: $(BIN)/.kubeconform-$(KUBECONFORM_VERSION)
	@echo "==> kubeconform: installing $(KUBECONFORM_VERSION)"
	@mkdir -p .stack/logs
	@GOBIN=$(BIN) go install github.com/yannh/kubeconform/cmd/kubeconform@$(KUBECONFORM_VERSION) >.stack/logs/build-kubeconform.log 2>&1 \
		|| { echo "folio-perf: installing kubeconform failed. Fix: read .stack/logs/build-kubeconform.log"; exit 1; }
	@touch $@

test-unit-k8s: k8s-tools ## each k8s/ overlay built by kustomize and valid against the pinned k6-operator's TestRun CRD (kubeconform); broken manifests rejected
	@cd $(CURDIR)/k8s/crd2schema && go test -count=1 ./...
	@K6_OPERATOR_VERSION=$(K6_OPERATOR_VERSION) node --test $(CURDIR)/tests/unit/k8s.test.mjs
