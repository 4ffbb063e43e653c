package sqlmodule

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestConvertArg(t *testing.T) {
	now := time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		in   any
		want any
	}{
		{"nil", nil, nil},
		{"string", "abc", "abc"},
		{"int64", int64(7), int64(7)},
		{"int", 7, int64(7)},
		{"float", 2.5, 2.5},
		{"bool", false, false},
		{"date", now, now},
		{"bytes", []byte{1, 2}, []byte{1, 2}},
		{"object as JSON", map[string]any{"status": map[string]any{"name": "Available"}}, `{"status":{"name":"Available"}}`},
		{"array as JSON", []any{int64(1), "a", nil}, `[1,"a",null]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ConvertArg(1, tc.in)
			if err != nil {
				t.Fatalf("ConvertArg(%#v): %v", tc.in, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ConvertArg(%#v) = %#v, want %#v", tc.in, got, tc.want)
			}
		})
	}
}

func TestConvertArgRejectsUnknownTypes(t *testing.T) {
	_, err := ConvertArg(3, struct{}{})
	if err == nil || !strings.Contains(err.Error(), "argument $3") {
		t.Fatalf("want an error naming $3, got %v", err)
	}
}
