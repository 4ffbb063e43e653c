package sqlmodule

import (
	"database/sql"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Options are the connection-pool settings of sql.open's third argument.
// The JS keys are snake_case as in xk6-sql, so a script written for the
// upstream extension runs unchanged. A nil field was not given and leaves
// database/sql's default.
type Options struct {
	ConnMaxIdleTime *time.Duration
	ConnMaxLifetime *time.Duration
	MaxIdleConns    *int
	MaxOpenConns    *int
}

const (
	optConnMaxIdleTime = "conn_max_idle_time"
	optConnMaxLifetime = "conn_max_lifetime"
	optMaxIdleConns    = "max_idle_conns"
	optMaxOpenConns    = "max_open_conns"
)

var optionNames = []string{optConnMaxIdleTime, optConnMaxLifetime, optMaxIdleConns, optMaxOpenConns}

// ParseOptions validates the exported JS options object. raw is what
// sobek's Export gives for a plain object (nil for undefined/null).
// Unknown keys are an error rather than ignored: a misspelt pool setting
// silently falling back to the default is exactly what a load test must not
// hide.
func ParseOptions(raw map[string]any) (Options, error) {
	var o Options
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic "first error"
	for _, k := range keys {
		v := raw[k]
		if v == nil {
			continue
		}
		switch k {
		case optConnMaxIdleTime, optConnMaxLifetime:
			d, err := parseDurationOption(k, v)
			if err != nil {
				return Options{}, err
			}
			if k == optConnMaxIdleTime {
				o.ConnMaxIdleTime = &d
			} else {
				o.ConnMaxLifetime = &d
			}
		case optMaxIdleConns, optMaxOpenConns:
			n, err := parseCountOption(k, v)
			if err != nil {
				return Options{}, err
			}
			if k == optMaxIdleConns {
				o.MaxIdleConns = &n
			} else {
				o.MaxOpenConns = &n
			}
		default:
			return Options{}, fmt.Errorf("sql.open: unknown option %q; the options are %s", k, strings.Join(optionNames, ", "))
		}
	}
	return o, nil
}

// parseDurationOption accepts a Go duration string ("30s", "5m") as
// xk6-sql does, and also a number of milliseconds, as k6's own duration
// options do.
func parseDurationOption(key string, v any) (time.Duration, error) {
	var d time.Duration
	switch x := v.(type) {
	case string:
		parsed, err := time.ParseDuration(x)
		if err != nil {
			return 0, fmt.Errorf("sql.open: option %s: %q is not a duration; use a string such as \"30s\" or \"5m\"", key, x)
		}
		d = parsed
	case int64:
		d = time.Duration(x) * time.Millisecond
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("sql.open: option %s: %v is not a duration; use a string such as \"30s\"", key, x)
		}
		d = time.Duration(x * float64(time.Millisecond))
	default:
		return 0, fmt.Errorf("sql.open: option %s must be a duration string such as \"30s\", got %T", key, v)
	}
	if d < 0 {
		return 0, fmt.Errorf("sql.open: option %s must not be negative, got %s", key, d)
	}
	return d, nil
}

func parseCountOption(key string, v any) (int, error) {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("sql.open: option %s must be a whole number, got %v", key, x)
		}
		n = int64(x)
	default:
		return 0, fmt.Errorf("sql.open: option %s must be a number, got %T", key, v)
	}
	if n < 0 {
		// database/sql reads 0 as "unlimited" for max_open_conns and "none"
		// for max_idle_conns; a negative value is a mistake, not a third mode.
		return 0, fmt.Errorf("sql.open: option %s must not be negative, got %d", key, n)
	}
	if n > math.MaxInt32 {
		return 0, fmt.Errorf("sql.open: option %s is too large: %d", key, n)
	}
	return int(n), nil
}

// apply sets the given options on the pool.
func (o Options) apply(db *sql.DB) {
	if o.ConnMaxIdleTime != nil {
		db.SetConnMaxIdleTime(*o.ConnMaxIdleTime)
	}
	if o.ConnMaxLifetime != nil {
		db.SetConnMaxLifetime(*o.ConnMaxLifetime)
	}
	if o.MaxIdleConns != nil {
		db.SetMaxIdleConns(*o.MaxIdleConns)
	}
	if o.MaxOpenConns != nil {
		db.SetMaxOpenConns(*o.MaxOpenConns)
	}
}

// parseTimeout reads the first argument of queryWithTimeout/execWithTimeout.
func parseTimeout(method, s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s: timeout %q is not a positive duration; use a string such as \"10s\" or \"500ms\"", method, s)
	}
	return d, nil
}
