package sqlmodule

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	_ "github.com/lib/pq" // only to have a registered driver for sql.Open
)

func TestParseOptions(t *testing.T) {
	o, err := ParseOptions(map[string]any{
		"conn_max_idle_time": "30s",
		"conn_max_lifetime":  int64(60000), // milliseconds, as k6 durations
		"max_idle_conns":     int64(2),
		"max_open_conns":     float64(10), // JS numbers may export as float64
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.ConnMaxIdleTime == nil || *o.ConnMaxIdleTime != 30*time.Second {
		t.Errorf("conn_max_idle_time = %v, want 30s", o.ConnMaxIdleTime)
	}
	if o.ConnMaxLifetime == nil || *o.ConnMaxLifetime != time.Minute {
		t.Errorf("conn_max_lifetime = %v, want 1m", o.ConnMaxLifetime)
	}
	if o.MaxIdleConns == nil || *o.MaxIdleConns != 2 {
		t.Errorf("max_idle_conns = %v, want 2", o.MaxIdleConns)
	}
	if o.MaxOpenConns == nil || *o.MaxOpenConns != 10 {
		t.Errorf("max_open_conns = %v, want 10", o.MaxOpenConns)
	}
}

func TestParseOptionsEmptyLeavesDefaults(t *testing.T) {
	for _, raw := range []map[string]any{nil, {}, {"max_open_conns": nil}} {
		o, err := ParseOptions(raw)
		if err != nil {
			t.Fatalf("%v: %v", raw, err)
		}
		if o != (Options{}) {
			t.Fatalf("%v: got %+v, want nothing set", raw, o)
		}
	}
}

func TestParseOptionsErrors(t *testing.T) {
	tests := []struct {
		name string
		raw  map[string]any
		want []string // every part must appear in the message
	}{
		{"camelCase key", map[string]any{"maxOpenConns": int64(3)}, []string{`unknown option "maxOpenConns"`, "max_open_conns"}},
		{"bad duration", map[string]any{"conn_max_lifetime": "10 minutes"}, []string{"conn_max_lifetime", `"10 minutes"`, `"30s"`}},
		{"negative duration", map[string]any{"conn_max_idle_time": "-1s"}, []string{"conn_max_idle_time", "negative"}},
		{"duration of wrong type", map[string]any{"conn_max_idle_time": true}, []string{"conn_max_idle_time", "duration"}},
		{"fractional count", map[string]any{"max_idle_conns": 1.5}, []string{"max_idle_conns", "whole number"}},
		{"negative count", map[string]any{"max_open_conns": int64(-1)}, []string{"max_open_conns", "negative"}},
		{"count as string", map[string]any{"max_open_conns": "10"}, []string{"max_open_conns", "number"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseOptions(tc.raw)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, part := range tc.want {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q does not mention %q", err, part)
				}
			}
		})
	}
}

func TestOptionsApply(t *testing.T) {
	// database/sql only exposes MaxOpenConnections through Stats; opening
	// does not connect, so no server is needed.
	db, err := sql.Open("postgres", "postgres://u@127.0.0.1:1/db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	o, err := ParseOptions(map[string]any{"max_open_conns": int64(7)})
	if err != nil {
		t.Fatal(err)
	}
	o.apply(db)
	if got := db.Stats().MaxOpenConnections; got != 7 {
		t.Fatalf("MaxOpenConnections = %d, want 7", got)
	}
}

func TestParseTimeout(t *testing.T) {
	if d, err := parseTimeout("db.queryWithTimeout", "250ms"); err != nil || d != 250*time.Millisecond {
		t.Fatalf("250ms: %v, %v", d, err)
	}
	for _, bad := range []string{"", "10", "0s", "-1s", "soon"} {
		if _, err := parseTimeout("db.queryWithTimeout", bad); err == nil || !strings.Contains(err.Error(), "db.queryWithTimeout") {
			t.Errorf("timeout %q: want an error naming the method, got %v", bad, err)
		}
	}
}
