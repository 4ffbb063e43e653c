// Command minifolio is the FOLIO stand-in: an Okapi-compatible gateway and
// the modules the check-in/check-out workflow touches, each its own process,
// on PostgreSQL with FOLIO's table layout.
//
//	minifolio up      start the gateway and every module in the background
//	minifolio down    stop exactly the processes `up` started
//	minifolio status  one line per process
//	minifolio serve   run one process in the foreground (what `up` starts)
//	minifolio seed    create a tenant and load a deterministic data set
//	minifolio reset   PTF's restore: no loans, every item Available
//	minifolio drop    delete a tenant and its schemas
//
// Every command takes the database URL from --db or MINIFOLIO_DB.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// userError is a mistake of the caller: printed as one line with its fix,
// exit 1, never a stack trace.
type userError struct{ cause, fix string }

func (e *userError) Error() string {
	if e.fix == "" {
		return e.cause
	}
	return e.cause + ". Fix: " + e.fix
}

func fail(cause, fix string) error { return &userError{cause, fix} }

const usage = `usage: minifolio <command> [flags]

commands:
  up       start the gateway and every module in the background (--port 9130 --profile fast)
  down     stop the processes started by up
  status   show each process and its URL (exit 1 if one is down)
  serve    run one process in the foreground (--module okapi|mod-... --port N)
  seed     create a tenant and load data (--tenant fs09000000 --items N --users N --loans N)
  reset    restore the pre-test state: truncate circulation tables, every item Available
  drop     delete a tenant and all its schemas (--tenant X)

Run 'minifolio <command> -h' for the flags of one command.
The database URL comes from --db or MINIFOLIO_DB.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmds := map[string]func([]string, io.Writer) error{
		"up": cmdUp, "down": cmdDown, "status": cmdStatus, "serve": cmdServe, "seed": cmdSeed, "reset": cmdReset, "drop": cmdDrop,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "minifolio: unknown command %q. Fix: use one of up, down, status, serve, seed, reset, drop\n", args[0])
		return 2
	}
	err := cmd(args[1:], stdout)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errDown):
		return 1
	default:
		fmt.Fprintf(stderr, "minifolio %s: %s\n", args[0], oneLine(err.Error()))
		return 1
	}
}

// errDown: status found a process down (already printed).
var errDown = errors.New("down")

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// newFlags is a FlagSet that reports errors instead of exiting and prints
// its usage to stderr.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("minifolio "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	return fs
}

// parse wraps FlagSet.Parse so a bad flag is a one-line user error.
func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(os.Stderr)
			fs.Usage()
			return flag.ErrHelp
		}
		return fail(err.Error(), "run 'minifolio "+strings.TrimPrefix(fs.Name(), "minifolio ")+" -h' for the flags")
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument "+fs.Arg(0), "run '"+fs.Name()+" -h' for the flags")
	}
	return nil
}

// dbFlag registers --db; dbURL resolves it with MINIFOLIO_DB.
func dbFlag(fs *flag.FlagSet) *string {
	return fs.String("db", "", "PostgreSQL URL (default $MINIFOLIO_DB); prefer the env var: a URL on a command line shows its password in ps")
}

func dbURL(flagVal string) (string, error) {
	if flagVal != "" {
		return flagVal, nil
	}
	if v := os.Getenv("MINIFOLIO_DB"); v != "" {
		return v, nil
	}
	return "", fail("no database URL", "pass --db or set MINIFOLIO_DB=postgres://folio:<password>@127.0.0.1:55432/folio?sslmode=disable")
}

// openDB connects the CLI commands to the database, with the one-line cause
// and fix every command gives when PostgreSQL cannot be reached.
func openDB(ctx context.Context, dsn string, conns int) (*pgxpool.Pool, error) {
	pool, err := storage.Open(ctx, dsn, conns)
	if err != nil {
		return nil, fail(err.Error(), "start the database (make stack-up) or correct --db / MINIFOLIO_DB")
	}
	return pool, nil
}
