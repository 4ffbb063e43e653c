package modules

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// obj is a FOLIO record as JSON: modules pass records through and add fields,
// so they keep every property they do not know about.
type obj = map[string]any

// str reads a string at a dotted path ("status.name"); "" when absent.
func str(m obj, path string) string {
	v := at(m, path)
	s, _ := v.(string)
	return s
}

func at(m obj, path string) any {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

func sub(m obj, key string) obj {
	v, _ := m[key].(map[string]any)
	return v
}

// boolean reads a JSON boolean, or the string "true"/"false" that some seed
// data and old clients write.
func boolean(m obj, key string, def bool) bool {
	switch v := m[key].(type) {
	case bool:
		return v
	case string:
		return strings.EqualFold(v, "true")
	}
	return def
}

func list(m obj, key string) []any {
	v, _ := m[key].([]any)
	return v
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$`)

// isUUID is RMB's UUID pattern (versions 1-8, RFC 4122 variant).
func isUUID(s string) bool { return uuidRE.MatchString(s) }

func newUUID() string { return storage.NewUUID() }

// folioTime formats as FOLIO's date-time strings (UTC, milliseconds).
func folioTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// parseDateTime accepts RFC 3339 and the variants FOLIO clients send
// ("+0000" offsets, no seconds fraction, PTF's JMeter format).
func parseDateTime(s string) (time.Time, error) {
	for _, l := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000-0700", "2006-01-02T15:04:05-0700",
		"2006-01-02T15:04:05.000Z0700", "2006-01-02T15:04:05", "2006-01-02T15:04:05.000"} {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a date-time: %q", s)
}

// parallel runs fns concurrently and returns the error of the first one (in
// argument order) that failed, so the outcome does not depend on timing.
func parallel(fns ...func() error) error {
	if len(fns) == 1 {
		return fns[0]()
	}
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, f := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
