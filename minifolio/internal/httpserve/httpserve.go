// Package httpserve is the lifecycle every minifolio server shares (Okapi's gateway, Kong, a
// sidecar, a module): serve on a listener until the process is told to stop, then drain.
package httpserve

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Server is an http.Server for h with the limits every minifolio server keeps: a request's
// headers read within 10 s (a client that stalls cannot hold a connection and its goroutine),
// idle keep-alive connections closed after 120 s, and a request's line and headers within
// maxHeaderBytes (0: net/http's default of 1 MB).
func Server(h http.Handler, maxHeaderBytes int) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second,
		MaxHeaderBytes: maxHeaderBytes}
}

// Until serves srv on ln until ctx ends, then shuts it down, giving requests in flight 5 s.
// A failure to serve ends it sooner and is returned. The start and the stop are logged as
// "<name> started" (with ln's address and attrs) and "<name> stopped".
func Until(ctx context.Context, srv *http.Server, ln net.Listener, name string, attrs ...any) error {
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	slog.Info(name+" started", append([]any{"addr", ln.Addr().String()}, attrs...)...)
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		slog.Info(name + " stopped")
		return nil
	}
}
