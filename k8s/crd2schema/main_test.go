package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestConvert(t *testing.T) {
	tests := []struct {
		name    string
		crd     string
		file    string
		want    []string // substrings of the schema
		wantErr string
	}{
		{
			name: "strict objects and int-or-string",
			crd: `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  names: {kind: TestRun}
  versions:
  - name: v1alpha1
    served: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
          free:
            type: object
            x-kubernetes-preserve-unknown-fields: true
            properties: {a: {type: string}}`,
			file: "testrun_v1alpha1.json",
			want: []string{`"additionalProperties": false`, `"oneOf"`},
		},
		{name: "not a CRD", crd: "kind: ConfigMap\n", wantErr: "not a CustomResourceDefinition"},
		{name: "no served version", crd: "kind: CustomResourceDefinition\nspec:\n  names: {kind: X}\n  versions: [{name: v1, served: false}]\n", wantErr: "no served version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, err := convert([]byte(tc.crd))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, ok := files[tc.file]
			if !ok {
				t.Fatalf("files %v, want %s", files, tc.file)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("schema lacks %s:\n%s", w, b)
				}
			}
			var s map[string]any
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			free := s["properties"].(map[string]any)["free"].(map[string]any)
			if _, set := free["additionalProperties"]; set {
				t.Errorf("an object that preserves unknown fields must stay open: %v", free)
			}
		})
	}
}
