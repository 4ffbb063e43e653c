module github.com/folio-perf/folio-perf/k8s/crd2schema

go 1.26

require sigs.k8s.io/yaml v1.6.0

require go.yaml.in/yaml/v2 v2.4.2 // indirect
