package sqlmodule

import (
	"testing"

	"github.com/grafana/sobek"
)

func TestDriverRegistry(t *testing.T) {
	r := newDriverRegistry()
	pg := r.register("postgres")
	if pg.String() != "postgres" {
		t.Fatalf("symbol description = %q, want the driver name", pg.String())
	}
	if name, ok := r.lookup(pg); !ok || name != "postgres" {
		t.Fatalf("lookup(registered) = %q, %v", name, ok)
	}
	// Identity, not description: a look-alike made by a script is refused.
	if _, ok := r.lookup(sobek.NewSymbol("postgres")); ok {
		t.Fatal("a foreign Symbol with the same description was accepted")
	}
	other := r.register("sqlite3")
	if name, _ := r.lookup(other); name != "sqlite3" {
		t.Fatalf("second driver resolved to %q", name)
	}
	if n := len(r.names()); n != 2 {
		t.Fatalf("names() has %d entries, want 2", n)
	}
}
