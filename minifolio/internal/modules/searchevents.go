package modules

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
)

// itemEvents plays the part of the inventory Kafka topic mod-search consumes:
// mod-inventory-storage hands every successful item write to it, and a
// background sender posts them in batches to mod-search's
// POST /search/index/records through the gateway, so items.status.name
// follows check-out and check-in. Best-effort and off the request path: a
// full queue drops events, and when mod-search is not deployed (no
// OpenSearch) the sender backs off instead of calling it on every write.
type itemEvents struct {
	okapi *okapiClient
	ch    chan itemEvent
	once  sync.Once
	// pausedUntil: after a failed delivery nothing is sent for a while.
	pausedUntil time.Time
}

type itemEvent struct {
	cl   caller
	item json.RawMessage
}

const (
	itemEventQueue = 4096
	itemEventBatch = 200
	itemEventPause = 30 * time.Second
)

func newItemEvents(okapi *okapiClient) *itemEvents {
	return &itemEvents{okapi: okapi, ch: make(chan itemEvent, itemEventQueue)}
}

// wrap passes item writes (POST/PUT under /item-storage/items) through and,
// when they succeed, queues the written record.
func (e *itemEvents) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.Method != http.MethodPut && r.Method != http.MethodPost) || !strings.HasPrefix(r.URL.Path, "/item-storage/items") {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			writeText(w, http.StatusBadRequest, "cannot read the request body")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		if sw.status/100 == 2 {
			e.queue(itemEvent{cl: callerOf(r, e.okapi.base), item: body})
		}
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (e *itemEvents) queue(ev itemEvent) {
	e.once.Do(func() { go e.send() })
	select {
	case e.ch <- ev:
	default: // queue full: mod-search catches up at its next reindex
	}
}

func (e *itemEvents) send() {
	for first := range e.ch {
		batch := []itemEvent{first}
	drain:
		for len(batch) < itemEventBatch {
			select {
			case ev := <-e.ch:
				batch = append(batch, ev)
			default:
				break drain
			}
		}
		if time.Now().Before(e.pausedUntil) {
			continue
		}
		byTenant := map[string][]itemEvent{}
		for _, ev := range batch {
			byTenant[ev.cl.tenant] = append(byTenant[ev.cl.tenant], ev)
		}
		for tenant, evs := range byTenant {
			body := make([]map[string]any, 0, len(evs))
			for _, ev := range evs {
				body = append(body, map[string]any{"type": "UPDATE", "resourceName": "item", "tenant": tenant, "new": ev.item})
			}
			last := evs[len(evs)-1].cl
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			err := e.okapi.do(ctx, last, http.MethodPost, "/search/index/records", body, nil)
			cancel()
			if err != nil {
				e.pausedUntil = time.Now().Add(itemEventPause)
				slog.Debug("item events not delivered to mod-search", "tenant", tenant, "events", len(evs), "err", err)
			}
		}
	}
}
