// crd2schema converts a CustomResourceDefinition's openAPIV3Schema into the JSON Schema files
// kubeconform validates custom resources with, one per served version, named
// <kind>_<version>.json in lower case (kubeconform -schema-location '<dir>/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json').
// It does what kubeconform's openapi2jsonschema.py does, in strict form: every object with declared
// properties refuses others (additionalProperties: false) unless the CRD preserves unknown fields,
// and x-kubernetes-int-or-string becomes "integer or string".
//
//	go run . -out <dir> <crd.yaml>...
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

type crd struct {
	Kind string `json:"kind"`
	Spec struct {
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		Versions []struct {
			Name   string `json:"name"`
			Served bool   `json:"served"`
			Schema struct {
				OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// strict rewrites one schema node in place, and every node below it.
func strict(node any) {
	switch n := node.(type) {
	case map[string]any:
		if v, ok := n["x-kubernetes-int-or-string"].(bool); ok && v {
			delete(n, "type")
			delete(n, "format")
			n["oneOf"] = []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}
		}
		_, hasProps := n["properties"].(map[string]any)
		preserve, _ := n["x-kubernetes-preserve-unknown-fields"].(bool)
		if hasProps && !preserve {
			if _, set := n["additionalProperties"]; !set {
				n["additionalProperties"] = false
			}
		}
		for _, v := range n {
			strict(v)
		}
	case []any:
		for _, v := range n {
			strict(v)
		}
	}
}

// convert returns file name -> JSON Schema for every served version of the CRD in data.
func convert(data []byte) (map[string][]byte, error) {
	var c crd
	if err := yaml.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("not YAML: %w", err)
	}
	if c.Kind != "CustomResourceDefinition" || c.Spec.Names.Kind == "" {
		return nil, errors.New("not a CustomResourceDefinition with spec.names.kind")
	}
	out := map[string][]byte{}
	for _, v := range c.Spec.Versions {
		if !v.Served || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		s := v.Schema.OpenAPIV3Schema
		strict(s)
		// apiVersion, kind and metadata are the API server's own; the root keeps no other field.
		s["$schema"] = "http://json-schema.org/schema#"
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return nil, err
		}
		out[strings.ToLower(fmt.Sprintf("%s_%s.json", c.Spec.Names.Kind, v.Name))] = b
	}
	if len(out) == 0 {
		return nil, errors.New("no served version with an openAPIV3Schema")
	}
	return out, nil
}

func main() {
	dir := flag.String("out", ".", "directory for the JSON Schema files")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "crd2schema: no CRD file given; fix: go run . -out <dir> <crd.yaml>")
		os.Exit(2)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "crd2schema: %v\n", err)
		os.Exit(1)
	}
	for _, f := range flag.Args() {
		data, err := os.ReadFile(f)
		if err == nil {
			var files map[string][]byte
			if files, err = convert(data); err == nil {
				for name, b := range files {
					if err = os.WriteFile(filepath.Join(*dir, name), b, 0o644); err != nil {
						break
					}
					fmt.Printf("crd2schema: %s -> %s\n", f, filepath.Join(*dir, name))
				}
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "crd2schema: %s: %v; fix: give the CRD YAML of a k6-operator release (k8s/crd/)\n", f, err)
			os.Exit(1)
		}
	}
}
