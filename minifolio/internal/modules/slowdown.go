package modules

import (
	"bytes"
	"net/http"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/profile"
)

// slowdown is the mechanism of the profiles' "slowdown" rules: the request is
// served into a buffer, timed, and its answer held for percent % of that time
// before it goes out, so the endpoint answers 1 + percent/100 times as late as
// it would (its own work, database and module-to-module calls included).
// The clock times the request and holds the answer: the real one in a module,
// one the test reads in TestCheckoutSlowdownProfiles (a ratio of timings on a
// shared machine says more about its load than about the rule).
func slowdown(module string, prof *profile.Profile, c clock, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pct := prof.SlowdownPercent(module, r.Method, r.URL.Path)
		if pct <= 0 {
			next.ServeHTTP(w, r)
			return
		}
		held := &heldResponse{header: http.Header{}}
		start := c.now()
		next.ServeHTTP(held, r)
		if !c.pause(r, time.Duration(float64(c.now().Sub(start))*pct/100)) {
			return
		}
		for k, v := range held.header {
			w.Header()[k] = v
		}
		if held.status == 0 {
			held.status = http.StatusOK
		}
		w.WriteHeader(held.status)
		w.Write(held.body.Bytes())
	})
}

// clock is how the slowdown reads the time and holds an answer.
type clock struct {
	now   func() time.Time
	pause func(r *http.Request, d time.Duration) bool
}

// realClock: the wall clock, and pause.
var realClock = clock{now: time.Now, pause: pause}

// heldResponse records a handler's answer so that it can be sent later.
type heldResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (h *heldResponse) Header() http.Header { return h.header }

func (h *heldResponse) WriteHeader(status int) {
	if h.status == 0 {
		h.status = status
	}
}

func (h *heldResponse) Write(b []byte) (int, error) {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	return h.body.Write(b)
}

// pause waits d, the profiles' added service time; false when the client went
// away first (nothing is left to answer).
func pause(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}
