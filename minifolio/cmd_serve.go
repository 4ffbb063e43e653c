package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof" // only served when MINIFOLIO_PPROF_<MODULE> is set
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
	"github.com/folio-perf/folio-perf/minifolio/internal/eureka"
	"github.com/folio-perf/folio-perf/minifolio/internal/httpserve"
	"github.com/folio-perf/folio-perf/minifolio/internal/modules"
	"github.com/folio-perf/folio-perf/minifolio/internal/okapi"
	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// gatewayName is the process name of the gateway (pid file, Telegraf's
// module tag), as FOLIO calls it: okapi, or kong on Eureka.
const (
	gatewayName = "okapi"
	kongName    = "kong"
	// sidecarPrefix names a module's sidecar process ("sidecar-mod-circulation"),
	// which is also its module tag in Telegraf's module_stats.
	sidecarPrefix = "sidecar-"
)

// keycloakFlag registers --keycloak (default $FP_KEYCLOAK_URL).
func keycloakFlag(fs *flag.FlagSet) *string {
	return fs.String("keycloak", os.Getenv("FP_KEYCLOAK_URL"), "Keycloak URL for the Eureka profiles, e.g. http://127.0.0.1:58180 (default $FP_KEYCLOAK_URL)")
}

func cmdServe(args []string, _ io.Writer) error {
	fs := newFlags("serve")
	module := fs.String("module", "", "okapi or kong (the gateway), sidecar-<module> (Eureka), or a module name: "+moduleNames())
	port := fs.Int("port", 0, "listen port (default: 9130 for okapi, 9130 + the module's offset otherwise)")
	prof := fs.String("profile", "fast", "release profile (minifolio/profiles/<name>.json)")
	ttl := fs.Duration("token-ttl", 10*time.Minute, "access-token lifetime (okapi; on Eureka mod-login-keycloak's realm lifespan)")
	okapiURL := fs.String("okapi-url", "http://127.0.0.1:9130", "gateway URL modules call each other through")
	// In a container the gateway must listen beyond loopback to be reachable;
	// modules stay on loopback, reachable only through the gateway.
	host := fs.String("host", "127.0.0.1", "listen address of the gateway (okapi only; 0.0.0.0 in a container)")
	// Set by `up` so each process's command line names its stack: Telegraf's procstat
	// tells two stacks on one machine apart by it (telegraf/native.conf).
	_ = fs.String("run-dir", "", "directory of the `up` that started this process (informational)")
	osURL := fs.String("opensearch", os.Getenv("FP_OPENSEARCH_URL"), "OpenSearch URL for mod-search, e.g. http://127.0.0.1:9200 (default $FP_OPENSEARCH_URL)")
	withSearch := fs.Bool("with-search", false, "mod-search runs in this deployment: Okapi's module list names it (okapi only; set by up --opensearch)")
	kcURL := keycloakFlag(fs)
	db := dbFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	dsn, err := dbURL(*db)
	if err != nil {
		return err
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	tuneRuntime(*module)
	startProfiler(*module)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	p, err := profile.Load(profile.Dir(), *prof)
	if err != nil {
		return fail(err.Error(), "pick a profile from "+profile.Dir())
	}
	if *port == 0 {
		*port = 9130
		if m, ok := catalog.ByName(strings.TrimPrefix(*module, sidecarPrefix)); ok {
			*port += m.Offset
			if strings.HasPrefix(*module, sidecarPrefix) {
				*port += catalog.SidecarOffset
			}
		}
	}
	var kc *eureka.Keycloak
	if p.Eureka() {
		if *kcURL == "" {
			return fail("profile "+p.Name+" runs on Eureka and needs Keycloak", "pass --keycloak http://127.0.0.1:<port> or set FP_KEYCLOAK_URL (stack/stack.sh up eureka starts one)")
		}
		kc = eureka.NewKeycloak(*kcURL, os.Getenv("FP_KEYCLOAK_ADMIN_PASSWORD"))
	}
	switch {
	case *module == gatewayName:
		return serveGateway(ctx, dsn, *host, *port, *ttl, catalog.ModuleIDs(p.ModuleVersions, *withSearch))
	case *module == kongName:
		return serveKong(ctx, dsn, *host, *port, p, *withSearch)
	case strings.HasPrefix(*module, sidecarPrefix):
		return serveSidecar(ctx, dsn, strings.TrimPrefix(*module, sidecarPrefix), *port, p, kc)
	}
	m, ok := catalog.ByName(*module)
	if !ok {
		return fail(fmt.Sprintf("unknown module %q", *module), "use --module okapi or one of "+moduleNames())
	}
	if m.OpenSearch && *osURL == "" {
		return fail(m.Name+" needs OpenSearch", "pass --opensearch http://127.0.0.1:<port> or set FP_OPENSEARCH_URL")
	}
	err = modules.Serve(ctx, modules.Config{Name: m.Name, Addr: fmt.Sprintf("127.0.0.1:%d", *port), DB: dsn,
		OkapiURL: *okapiURL, Profile: *prof, OpenSearchURL: *osURL,
		Keycloak: kc, TokenTTL: *ttl, SameSite: os.Getenv("LOGIN_COOKIE_SAMESITE"),
		TokenHeader: os.Getenv("X_OKAPI_TOKEN_HEADER_ENABLED") == "true",
		// The benchmark's floor route (make bench-search), off unless asked for.
		SearchPassthrough: os.Getenv("MINIFOLIO_SEARCH_PASSTHROUGH") == "1",
		// OpenSearch's primary shards per index (docs/scale.md), default 1.
		SearchShards: atoiOr(os.Getenv("MINIFOLIO_SEARCH_SHARDS"), 1)})
	if err != nil {
		slog.Error("module stopped", "module", m.Name, "err", err)
	}
	return err
}

// tuneRuntime sets the Go runtime for ten processes sharing the machine's
// cores with PostgreSQL and the load generator, unless GOGC / GOMAXPROCS say
// otherwise. Measured with k6 CICO at 20 VUs on 2 cores (the gateway and
// modules' CPU per transaction):
//   - GOGC 400: a process's live heap is a few MB of buffers, and collecting
//     less often buys CPU, the resource a load test runs out of first.
//   - GOMAXPROCS: with one P per core in each of ten processes, every wake-up
//     of a goroutine could wake another thread (futex, spinning threads looking
//     for work); one P per module and the gateway's share of the cores cut the
//     gateway's and modules' CPU per transaction by 10-14 %.
func tuneRuntime(module string) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		// Go's own default, not NumCPU: it follows a container's CPU limit.
		runtime.GOMAXPROCS(procsFor(module, runtime.GOMAXPROCS(0)))
	}
}

// procsFor: the gateway carries every request, so it gets half the cores; a
// module a quarter; at least one each.
func procsFor(module string, cpus int) int {
	if module == gatewayName || module == kongName {
		return max(1, cpus/2)
	}
	return max(1, cpus/4)
}

func moduleNames() string {
	var n []string
	for _, m := range catalog.Modules {
		n = append(n, m.Name)
	}
	return strings.Join(n, ", ")
}

// startProfiler serves Go's pprof on 127.0.0.1 when MINIFOLIO_PPROF_<MODULE>
// (e.g. MINIFOLIO_PPROF_OKAPI=127.0.0.1:6060, module name upper-cased with _
// for -) is set: where a process spends its CPU under load. Off by default;
// the profile endpoints live on their own port, never behind the gateway.
func startProfiler(module string) {
	key := "MINIFOLIO_PPROF_" + strings.ToUpper(strings.ReplaceAll(module, "-", "_"))
	addr := os.Getenv(key)
	if addr == "" {
		return
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || (host != "127.0.0.1" && host != "localhost") {
		slog.Warn("ignoring "+key+": it must be 127.0.0.1:<port>", "value", addr)
		return
	}
	go func() {
		if err := http.ListenAndServe(addr, nil); err != nil {
			slog.Warn("pprof server stopped", "err", err)
		}
	}()
	slog.Info("pprof listening", "addr", addr)
}

// serveGateway runs the okapi process until ctx ends.
func serveGateway(ctx context.Context, dsn, host string, port int, ttl time.Duration, moduleIDs []string) error {
	secret := []byte(os.Getenv("MINIFOLIO_TOKEN_SECRET"))
	if len(secret) == 0 {
		// Tokens then die with the process; `up` always passes one.
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		secret = []byte(hex.EncodeToString(b))
		slog.Warn("MINIFOLIO_TOKEN_SECRET not set: tokens are signed with a random secret and will not survive a restart")
	}
	signer, err := okapi.NewSigner(secret)
	if err != nil {
		return fail(err.Error(), "export a longer MINIFOLIO_TOKEN_SECRET")
	}
	pool, err := storage.Open(ctx, dsn, 16)
	if err != nil {
		return err
	}
	defer pool.Close()
	gw := okapi.New(okapi.Config{Port: port, DB: pool, Signer: signer, TokenTTL: ttl,
		SameSite: os.Getenv("LOGIN_COOKIE_SAMESITE"), ModuleIDs: moduleIDs})
	ln, err := listen("okapi", host, port)
	if err != nil {
		return err
	}
	return httpserve.Until(ctx, httpserve.Server(gw, okapi.MaxHeaderBytes), ln, "okapi", "token_ttl", ttl.String())
}

// listen opens the process's port with the one-line failure every server gives.
func listen(name, host string, port int) (net.Listener, error) {
	addr := net.JoinHostPort(host, fmt.Sprint(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fail(fmt.Sprintf("%s cannot listen on %s (%v)", name, addr, errors.Unwrap(err)), "free the port or pass another --port / --host")
	}
	return ln, nil
}

// serveUntil serves h on ln until ctx ends, with the gateway's bound on a request's headers
// (Kong and the sidecars stand in front of the modules as Okapi's gateway does).
func serveUntil(ctx context.Context, name string, ln net.Listener, h http.Handler) error {
	return httpserve.Until(ctx, httpserve.Server(h, okapi.MaxHeaderBytes), ln, name)
}

// sidecarURL is where a module's sidecar listens in a deployment on base.
func sidecarURL(base int) func(catalog.Module) string {
	return func(m catalog.Module) string {
		return fmt.Sprintf("http://127.0.0.1:%d", base+catalog.SidecarOffset+m.Offset)
	}
}

// serveKong runs the Eureka gateway (process kong) until ctx ends.
func serveKong(ctx context.Context, dsn, host string, port int, p *profile.Profile, search bool) error {
	pool, err := storage.Open(ctx, dsn, 4)
	if err != nil {
		return err
	}
	defer pool.Close()
	ln, err := listen(kongName, host, port)
	if err != nil {
		return err
	}
	return serveUntil(ctx, kongName, ln, eureka.NewKong(eureka.KongConfig{DB: pool, Profile: p,
		SidecarURL: sidecarURL(port), Search: search}))
}

// serveSidecar runs the sidecar of module (process sidecar-<module>) until
// ctx ends; the module listens SidecarOffset below it, the gateway at the
// deployment's base.
func serveSidecar(ctx context.Context, dsn, module string, port int, p *profile.Profile, kc *eureka.Keycloak) error {
	m, ok := catalog.ByName(module)
	if !ok || !m.On(catalog.Eureka) || kc == nil {
		return fail(fmt.Sprintf("no sidecar for %q", module), "use --module sidecar-<module> with a Eureka profile and --keycloak")
	}
	base := port - catalog.SidecarOffset - m.Offset
	pool, err := storage.Open(ctx, dsn, 2)
	if err != nil {
		return err
	}
	defer pool.Close()
	ln, err := listen(sidecarPrefix+module, "127.0.0.1", port)
	if err != nil {
		return err
	}
	return serveUntil(ctx, sidecarPrefix+module, ln, eureka.NewSidecar(eureka.SidecarConfig{Module: m,
		ModuleURL: fmt.Sprintf("http://127.0.0.1:%d", base+m.Offset), SelfURL: fmt.Sprintf("http://127.0.0.1:%d", port),
		SidecarURL: sidecarURL(base), KC: kc, Verifier: &eureka.Verifier{KC: kc}, DB: pool,
		GetBodyRefused: p.AtLeast("folio-module-sidecar", 4, 0, 0)}))
}

// atoiOr is s as a positive number, else dflt.
func atoiOr(s string, dflt int) int {
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return n
	}
	return dflt
}
