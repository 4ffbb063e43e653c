package httpserve

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Until serves until its context ends, then returns nil and the port no longer answers.
func TestUntilServesThenStopsWithTheContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/"
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("up")) })
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	go func() { ended <- Until(ctx, Server(h, 0), ln, "test") }()

	res, err := http.Get(url)
	if err != nil {
		t.Fatalf("serving: %v", err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", res.StatusCode)
	}
	cancel()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("Until after cancel: %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Until did not return after its context ended")
	}
	http.DefaultClient.CloseIdleConnections()
	if _, err := http.Get(url); err == nil {
		t.Fatal("the port still answers after Until returned")
	}
}

// A listener that fails ends Until at once with the failure, without waiting for the context.
func TestUntilReturnsTheServeFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_ = ln.Close()
	err = Until(context.Background(), Server(http.NotFoundHandler(), 0), ln, "test")
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("Until on a closed listener: %v, want the listener's error", err)
	}
}

// The header bound is the one asked for; 0 leaves net/http's default.
func TestServerKeepsTheHeaderBound(t *testing.T) {
	if got := Server(http.NotFoundHandler(), 64<<10).MaxHeaderBytes; got != 64<<10 {
		t.Fatalf("MaxHeaderBytes %d, want %d", got, 64<<10)
	}
	s := Server(http.NotFoundHandler(), 0)
	if s.MaxHeaderBytes != 0 || s.ReadHeaderTimeout == 0 || s.IdleTimeout == 0 {
		t.Fatalf("Server(h, 0) = %+v: want the default header bound and both timeouts set", s)
	}
}
