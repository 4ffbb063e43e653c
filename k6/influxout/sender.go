package influxout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"
)

// batch is encoded line protocol waiting to be written: whole lines, at most
// one write's worth.
type batch struct {
	body   []byte
	points int
	born   time.Time // when it was encoded: its retries end RetryTimeout later
}

// poster sends one request, giving up after timeout: the status (0 without
// an answer), InfluxDB's message for a status other than 200/204, and an error
// for anything but success.
type poster func(path string, q url.Values, body []byte, timeout time.Duration) (int, string, error)

// sender writes batches to InfluxDB one at a time and in order, from its own
// goroutine, so a slow or absent InfluxDB never holds up k6's flush: batches
// queue up meanwhile, bounded by BufferBytes.
//
// What happens to a failed write:
//   - no answer, 5xx, 408 or 429: retried with exponential backoff (0.2 s
//     doubling to 5 s) until RetryTimeout after the batch was encoded, then
//     dropped and counted. No attempt outlasts that time either (a write's
//     timeout is what is left of it), and a batch whose time ran out while it
//     waited behind others is dropped unsent: an InfluxDB that takes
//     connections but never answers cannot hold k6 for a write timeout per
//     queued batch;
//   - 413 (body over InfluxDB's max-body-size): the batch is split in two
//     and both halves are sent, and later batches are cut at half the size;
//     a single line refused with 413 is dropped and counted;
//   - any other 4xx: dropped and counted at once. InfluxDB refused these
//     bytes themselves (400 unparseable or a field type conflict, 401/403 bad
//     credentials, 404 no such database): sending them again gets the same
//     answer, and retrying would only hold up the batches behind them. A 400
//     "partial write" keeps the other points: lost are those InfluxDB says it
//     dropped (dropped=N) plus each line it could not parse, which InfluxDB
//     1.x lists ("unable to parse '<line>': ...") but does not count in N.
type sender struct {
	cfg    Config
	logger logrus.FieldLogger
	post   poster

	limit      atomic.Int64 // current batch size limit (halved by a 413)
	skipped    atomic.Int64 // samples InfluxDB cannot store (NaN, ±Inf), never sent
	unselected atomic.Int64 // samples of metrics K6_INFLUXDB_METRICS leaves out, never sent

	mu      sync.Mutex
	wake    *sync.Cond
	queue   []*batch
	queued  int64 // bytes in queue
	closed  bool
	points  int64 // every point handed to the sender
	written int64
	dropped int64
	reasons map[string]int64
	lastLog time.Time // of the last "dropped" log line, to keep a long outage from flooding the log

	stopBy time.Time // set by close: the output's stop ends then at the latest

	done chan struct{}
	// sleep waits between retries and now reads the clock; tests replace both.
	sleep func(time.Duration)
	now   func() time.Time
}

func newSender(cfg Config, logger logrus.FieldLogger, post poster) *sender {
	s := &sender{cfg: cfg, logger: logger, post: post, reasons: map[string]int64{}, done: make(chan struct{}), sleep: time.Sleep, now: time.Now}
	s.wake = sync.NewCond(&s.mu)
	s.limit.Store(int64(cfg.BatchBytes))
	return s
}

func (s *sender) batchLimit() int { return int(s.limit.Load()) }

func (s *sender) start() { go s.run() }

// enqueue adds b; when the waiting batches pass BufferBytes, the oldest are
// dropped (the newest samples are the ones a live dashboard shows).
func (s *sender) enqueue(b *batch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.points += int64(b.points)
	s.queue = append(s.queue, b)
	s.queued += int64(len(b.body))
	for s.queued > s.cfg.BufferBytes && len(s.queue) > 1 {
		old := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		s.queued -= int64(len(old.body))
		s.dropLocked(old.points, fmt.Sprintf("buffer full (K6_INFLUXDB_BUFFER_BYTES=%d)", s.cfg.BufferBytes))
	}
	s.wake.Signal()
}

// close lets the queue drain and waits for it: every batch is written or
// dropped by then, at most RetryTimeout from now (one write's timeout when
// RetryTimeout is 0), however many batches wait.
func (s *sender) close() {
	s.mu.Lock()
	s.closed = true
	budget := s.cfg.RetryTimeout
	if budget <= 0 {
		budget = writeTimeout
	}
	s.stopBy = s.now().Add(budget)
	s.wake.Broadcast()
	s.mu.Unlock()
	<-s.done
}

func (s *sender) run() {
	defer close(s.done)
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.closed {
			s.wake.Wait()
		}
		if len(s.queue) == 0 {
			s.mu.Unlock()
			return
		}
		b := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		s.queued -= int64(len(b.body))
		s.mu.Unlock()
		s.write(b)
	}
}

var (
	partialDropped = regexp.MustCompile(`dropped=(\d+)`)
	// InfluxDB quotes the line it could not parse: never into a log or the loss
	// report (its tags are the run's), and the reason stays one per kind.
	unparsed = regexp.MustCompile(`unable to parse '.*?': `)
)

// refused is how many of a batch's points a 4xx answer cost: all of them,
// unless InfluxDB says it kept the others (a partial write).
func refused(msg string, points int) int {
	if !strings.Contains(msg, "partial write") {
		return points
	}
	n := strings.Count(msg, "unable to parse ")
	if m := partialDropped.FindStringSubmatch(msg); m != nil {
		d, _ := strconv.Atoi(m[1])
		n += d
	}
	if n == 0 || n > points {
		return points // a partial write that names no count: assume the worst
	}
	return n
}

// write sends b until it is written or given up (see sender).
func (s *sender) write(b *batch) {
	backoff := 200 * time.Millisecond
	failing := false
	for {
		left, stopping := s.timeLeft(b)
		if left <= 0 && stopping {
			s.count(0, b.points, fmt.Sprintf("not sent: k6 stopped, and the stop's bound (K6_INFLUXDB_RETRY_TIMEOUT=%s, or one write's %s when 0) was over", s.cfg.RetryTimeout, writeTimeout))
			return
		}
		if left <= 0 {
			s.count(0, b.points, fmt.Sprintf("not sent: waited past K6_INFLUXDB_RETRY_TIMEOUT=%s behind writes InfluxDB did not take", s.cfg.RetryTimeout))
			return
		}
		status, msg, err := s.post("/write", url.Values{"db": {s.cfg.DB}}, b.body, left)
		switch {
		case err == nil:
			if failing {
				s.logger.Infof("InfluxDB takes writes again after %s", s.now().Sub(b.born).Round(time.Second))
			}
			s.count(b.points, 0, "")
			return
		case status == http.StatusRequestEntityTooLarge:
			if b.points <= 1 {
				s.count(0, b.points, "413: a point larger than InfluxDB's max-body-size")
				return
			}
			if half := int64(len(b.body) / 2); half < s.limit.Load() {
				s.limit.Store(max(half, minBatchBytes))
				s.logger.Warnf("InfluxDB refused a %d-byte write as too large (413, its max-body-size); writes are cut at %d bytes from now on", len(b.body), s.limit.Load())
			}
			first, second := split(b)
			s.write(first)
			s.write(second)
			return
		case status >= 400 && status < 500 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests:
			lost := refused(msg, b.points)
			s.count(b.points-lost, lost, fmt.Sprintf("%d: %s", status, firstLine(unparsed.ReplaceAllString(msg, "unable to parse a line: "))))
			return
		}
		if s.cfg.RetryTimeout <= 0 || s.now().Sub(b.born)+backoff > s.cfg.RetryTimeout {
			s.count(0, b.points, fmt.Sprintf("InfluxDB did not take the write within K6_INFLUXDB_RETRY_TIMEOUT=%s (last error: %s)", s.cfg.RetryTimeout, errText(status, msg, err)))
			return
		}
		if !failing {
			s.logger.WithError(err).Warnf("Couldn't write %d samples to InfluxDB; retrying for up to %s", b.points, s.cfg.RetryTimeout)
			failing = true
		}
		s.sleep(backoff)
		backoff = min(backoff*2, 5*time.Second)
	}
}

// timeLeft is how long the next attempt at b may take: one write's timeout,
// within RetryTimeout after b was encoded and, once the output stops, within
// the stop's own bound (stopping: that bound is the one that binds). Zero or
// less: b's time is up.
func (s *sender) timeLeft(b *batch) (left time.Duration, stopping bool) {
	now := s.now()
	left = writeTimeout
	if s.cfg.RetryTimeout > 0 {
		left = min(left, b.born.Add(s.cfg.RetryTimeout).Sub(now))
	}
	s.mu.Lock()
	stopBy := s.stopBy
	s.mu.Unlock()
	if !stopBy.IsZero() && stopBy.Sub(now) < left {
		return stopBy.Sub(now), true
	}
	return left, false
}

// split cuts b into two batches of whole lines, about half the bytes each.
func split(b *batch) (*batch, *batch) {
	mid := len(b.body) / 2
	i := bytes.IndexByte(b.body[mid:], '\n')
	if i < 0 || mid+i+1 == len(b.body) {
		i = bytes.LastIndexByte(b.body[:mid], '\n')
		mid = i + 1
	} else {
		mid += i + 1
	}
	first := b.body[:mid:mid]
	n := bytes.Count(first, []byte{'\n'})
	return &batch{body: first, points: n, born: b.born}, &batch{body: b.body[mid:], points: b.points - n, born: b.born}
}

func (s *sender) count(written, dropped int, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.written += int64(written)
	if dropped > 0 {
		s.dropLocked(dropped, reason)
	}
}

func (s *sender) dropLocked(n int, reason string) {
	s.dropped += int64(n)
	s.reasons[reason] += int64(n)
	if s.now().Sub(s.lastLog) >= 10*time.Second {
		s.lastLog = s.now()
		s.logger.Errorf("Dropped %d samples: %s (%d dropped so far)", n, reason, s.dropped)
	}
}

func errText(status int, msg string, err error) string {
	if status != 0 {
		return fmt.Sprintf("%d %s", status, firstLine(msg))
	}
	if err != nil {
		return err.Error()
	}
	return "no answer"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// Loss is what the output delivered: Samples = Written + Dropped once the
// output has stopped. Skipped samples (NaN, ±Inf) are not sent by design and
// are not a loss.
type Loss struct {
	Output  string           `json:"output"`
	Samples int64            `json:"samples"`
	Written int64            `json:"written"`
	Dropped int64            `json:"dropped"`
	Share   float64          `json:"share"`
	Reasons map[string]int64 `json:"reasons"`
	Skipped int64            `json:"skipped_nonfinite"`
	// Unselected: samples of metrics K6_INFLUXDB_METRICS does not list, not
	// sent by choice (not a loss either).
	Unselected int64 `json:"unselected"`
}

func (s *sender) report() Loss {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Loss{Output: Name, Samples: s.points, Written: s.written, Dropped: s.dropped, Reasons: map[string]int64{}, Skipped: s.skipped.Load(), Unselected: s.unselected.Load()}
	for k, v := range s.reasons {
		r.Reasons[k] = v
	}
	if r.Samples > 0 {
		r.Share = float64(r.Dropped) / float64(r.Samples)
	}
	return r
}

func (r Loss) reasonText() string {
	keys := make([]string, 0, len(r.Reasons))
	for k := range r.Reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d: %s", r.Reasons[k], k)
	}
	return strings.Join(parts, "; ")
}

// writeFile writes r as JSON, through a temporary file so a reader never
// sees half of it.
func (r Loss) writeFile(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
