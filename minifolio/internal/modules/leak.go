package modules

import (
	"encoding/binary"
	"hash/fnv"
	"net/http"
	"sync"
)

// leakyHistory is the leak profile's mechanism: a per-process "recent
// requests" cache that is appended to on every request and never evicted,
// and that every request scans linearly for a previous entry with the same
// key. Memory grows by bytesPerRequest per request and each request costs a
// little more than the one before, the shape of the 24-hour longevity
// degradation in FOLIO's reports.
type leakyHistory struct {
	mu      sync.Mutex
	entries [][]byte
	size    int
}

func (l *leakyHistory) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := fnv.New64a()
		h.Write([]byte(r.Method + " " + r.URL.Path + "?" + r.URL.RawQuery + r.Header.Get("X-Okapi-Request-Id")))
		key := h.Sum64()
		e := make([]byte, l.size)
		binary.LittleEndian.PutUint64(e, key)
		l.mu.Lock()
		hits := 0
		for _, old := range l.entries {
			if binary.LittleEndian.Uint64(old) == key {
				hits++
			}
		}
		if len(e) >= 16 {
			// the "cache" remembers how often it saw the request before
			binary.LittleEndian.PutUint64(e[8:], uint64(hits))
		}
		l.entries = append(l.entries, e)
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}
