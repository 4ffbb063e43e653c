package sqlmodule

import (
	"strconv"
	"time"
)

// Formats of the date/time strings a script receives. Fixed-width with
// microseconds because that is PostgreSQL's precision: a value read and
// written back loses nothing, sorts as a string, and `new Date(s)` parses it
// (to milliseconds).
const (
	// timestamptz: the instant in UTC, e.g. 2026-11-22T04:02:12.123456Z.
	layoutTimestampTZ = "2006-01-02T15:04:05.000000Z"
	// timestamp (without time zone): a wall-clock time with no offset, as
	// stored, e.g. 2026-11-22T04:02:12.123456.
	layoutTimestamp = "2006-01-02T15:04:05.000000"
	layoutDate      = "2006-01-02"
	layoutTime      = "15:04:05.000000"
	layoutTimeTZ    = "15:04:05.000000Z07:00"
)

// ConvertValue turns one column value, as database/sql scanned it into an
// `any`, into a value a k6 script can use directly. dbType is the column's
// DatabaseTypeName (lib/pq: upper-case type names such as "UUID", "JSONB",
// "TIMESTAMPTZ", "_TEXT" for text[]).
//
// Upstream xk6-sql passes driver values through, so scripts receive byte
// arrays for uuid/json/numeric and Go structs for timestamps. Here:
//
//	NULL                                  → nil (JS null)
//	text, varchar, char, name, uuid       → string
//	json, jsonb                           → string holding the JSON text (JSON.parse it)
//	int2, int4, int8                      → int64 (JS number; exact up to 2^53)
//	float4, float8                        → float64 (JS number)
//	numeric                               → float64 (JS number; NaN/Infinity kept, may round past 15-17 digits)
//	bool                                  → bool
//	timestamptz                           → string, UTC, layoutTimestampTZ
//	timestamp                             → string, no offset, layoutTimestamp
//	date                                  → string, YYYY-MM-DD
//	time / timetz                         → string, layoutTime / layoutTimeTZ
//	±infinity timestamps/dates            → string "infinity" / "-infinity"
//	bytea                                 → []byte (the JS layer makes an ArrayBuffer)
//	anything else (arrays, interval, …)   → string in PostgreSQL's text form
//
// It is pure so that the mapping can be tested without a database.
func ConvertValue(dbType string, v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case []byte:
		return convertBytes(dbType, x)
	case time.Time:
		return formatTime(dbType, x)
	default:
		// string, int64, float64, bool: already JS-friendly.
		return v
	}
}

func convertBytes(dbType string, b []byte) any {
	switch dbType {
	case "BYTEA":
		// database/sql may reuse the driver's buffer after Next(); the
		// caller keeps the value past that, so copy.
		out := make([]byte, len(b))
		copy(out, b)
		return out
	case "NUMERIC":
		if f, err := strconv.ParseFloat(string(b), 64); err == nil {
			return f
		}
		// Not expected from PostgreSQL; keep the text rather than lose it.
		return string(b)
	default:
		return string(b)
	}
}

func formatTime(dbType string, t time.Time) string {
	switch dbType {
	case "TIMESTAMPTZ":
		return t.UTC().Format(layoutTimestampTZ)
	case "TIMESTAMP":
		return t.Format(layoutTimestamp)
	case "DATE":
		return t.Format(layoutDate)
	case "TIME":
		return t.Format(layoutTime)
	case "TIMETZ":
		return t.Format(layoutTimeTZ)
	default:
		// A driver other than lib/pq may hand out time.Time for other
		// types; RFC 3339 is the least surprising ISO-8601 form.
		return t.Format(time.RFC3339Nano)
	}
}
