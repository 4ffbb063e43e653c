package sqlmodule

import (
	"strings"
	"testing"

	"go.k6.io/k6/js/modulestest"
)

// newTestVU gives a sobek runtime with `sql` (this module) and `driver` (a
// postgres driver id) as globals, the way a script sees them after import.
func newTestVU(t *testing.T) *modulestest.Runtime {
	t.Helper()
	rt := modulestest.NewRuntime(t)
	inst := new(rootModule).NewModuleInstance(rt.VU)
	drv := (&driverRootModule{id: drivers.register("postgres")}).NewModuleInstance(rt.VU)
	if err := rt.VU.Runtime().Set("sql", inst.Exports().Default); err != nil {
		t.Fatal(err)
	}
	if err := rt.VU.Runtime().Set("driver", drv.Exports().Default); err != nil {
		t.Fatal(err)
	}
	return rt
}

// run evaluates JS that must produce a string (the outcome the test checks).
func run(t *testing.T, rt *modulestest.Runtime, js string) string {
	t.Helper()
	v, err := rt.VU.Runtime().RunString(js)
	if err != nil {
		t.Fatalf("script failed: %v", err)
	}
	return v.String()
}

// catchJS wraps code so that a thrown exception becomes "caught: <message>".
func catchJS(code string) string {
	return `(() => { try { ` + code + `; return "no exception"; } catch (e) { return "caught: " + (e instanceof Error) + " " + e.message; } })()`
}

func TestDriverIsSymbolNamedForTheDriver(t *testing.T) {
	rt := newTestVU(t)
	if got := run(t, rt, `typeof driver + " " + driver.description`); got != "symbol postgres" {
		t.Fatalf("got %q", got)
	}
}

func TestOpenRejectsWhatIsNotADriver(t *testing.T) {
	rt := newTestVU(t)
	for _, arg := range []string{`"postgres"`, `Symbol("postgres")`, `undefined`} {
		got := run(t, rt, catchJS(`sql.open(`+arg+`, "postgres://u@127.0.0.1:1/db")`))
		if !strings.HasPrefix(got, "caught: true sql.open: unsupported database driver") || !strings.Contains(got, "k6/x/sql/driver/postgres") {
			t.Errorf("sql.open(%s): %q", arg, got)
		}
	}
}

func TestOpenValidatesArguments(t *testing.T) {
	rt := newTestVU(t)
	tests := map[string]string{
		`sql.open(driver)`: "missing connection string",
		`sql.open(driver, "postgres://u@h/db", { maxOpenConns: 1 })`:        `unknown option "maxOpenConns"`,
		`sql.open(driver, "postgres://u@h/db", { conn_max_lifetime: "x" })`: "conn_max_lifetime",
		`sql.open(driver, "postgres://u@h/db", 5)`:                          "options must be an object",
	}
	for code, want := range tests {
		if got := run(t, rt, catchJS(code)); !strings.Contains(got, want) || !strings.HasPrefix(got, "caught: true") {
			t.Errorf("%s: %q does not mention %q", code, got, want)
		}
	}
}

func TestOpenIsLazyAndAcceptsOptions(t *testing.T) {
	rt := newTestVU(t)
	// Nothing listens on port 1: open must still succeed (as database/sql's
	// Open and upstream's sql.open do), failing only on the first query.
	got := run(t, rt, catchJS(`sql.open(driver, "postgres://u@127.0.0.1:1/db?sslmode=disable", { max_open_conns: 2, conn_max_idle_time: "5s" })`))
	if got != "no exception" {
		t.Fatalf("open: %q", got)
	}
}

func TestMalformedDSNErrorDoesNotLeakPassword(t *testing.T) {
	rt := newTestVU(t)
	// lib/pq parses the DSN on the first connection, so the query throws.
	got := run(t, rt, catchJS(`sql.open(driver, "postgres://folio:Pw-8f3a91@127.0.0.1:notaport/folio").query("SELECT 1")`))
	if !strings.HasPrefix(got, "caught: true") {
		t.Fatalf("malformed DSN did not throw: %q", got)
	}
	if strings.Contains(got, "Pw-8f3a91") {
		t.Fatalf("password in message: %q", got)
	}
	if !strings.Contains(got, "port") {
		t.Fatalf("message lost the cause: %q", got)
	}
	// net/url quotes the DSN in this error, so redaction must have happened.
	if !strings.Contains(got, redacted) {
		t.Fatalf("expected the quoted DSN with the password masked: %q", got)
	}
}

func TestClosedDatabaseThrows(t *testing.T) {
	rt := newTestVU(t)
	got := run(t, rt, `const db = sql.open(driver, "postgres://u@127.0.0.1:1/db"); db.close(); `+catchJS(`db.query("SELECT 1")`))
	if got != "caught: true sql: database is closed" {
		t.Fatalf("query after close: %q", got)
	}
}

func TestTimeoutArgumentIsValidated(t *testing.T) {
	rt := newTestVU(t)
	got := run(t, rt, `const db2 = sql.open(driver, "postgres://u@127.0.0.1:1/db"); `+catchJS(`db2.queryWithTimeout("soon", "SELECT 1")`))
	if !strings.Contains(got, `db.queryWithTimeout: timeout "soon"`) {
		t.Fatalf("got %q", got)
	}
}
