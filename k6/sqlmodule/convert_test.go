package sqlmodule

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func TestConvertValue(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	// What lib/pq hands out for a timestamptz read in a session whose
	// TimeZone is not UTC.
	tsInBerlin := time.Date(2026, 11, 22, 5, 2, 12, 123456000, berlin)

	tests := []struct {
		name   string
		dbType string
		in     any
		want   any
	}{
		{"null", "TEXT", nil, nil},
		{"null numeric", "NUMERIC", nil, nil},
		{"text string", "TEXT", "Ölgemälde", "Ölgemälde"},
		{"varchar", "VARCHAR", "abc", "abc"},
		{"uuid bytes", "UUID", []byte("6a1e3d52-0b8e-4a55-9f1f-1c7b9a2f0e11"), "6a1e3d52-0b8e-4a55-9f1f-1c7b9a2f0e11"},
		{"jsonb bytes", "JSONB", []byte(`{"a": 1, "b": [true]}`), `{"a": 1, "b": [true]}`},
		{"json bytes", "JSON", []byte(`[1,2]`), `[1,2]`},
		{"int8", "INT8", int64(9007199254740991), int64(9007199254740991)},
		{"int4 negative", "INT4", int64(-42), int64(-42)},
		{"float8", "FLOAT8", 1.5, 1.5},
		{"numeric", "NUMERIC", []byte("12345.678"), 12345.678},
		{"numeric integer", "NUMERIC", []byte("-7"), float64(-7)},
		{"numeric garbage kept as text", "NUMERIC", []byte("12,5"), "12,5"},
		{"bool", "BOOL", true, true},
		{"timestamptz to UTC", "TIMESTAMPTZ", tsInBerlin, "2026-11-22T04:02:12.123456Z"},
		{"timestamptz whole second", "TIMESTAMPTZ", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "2026-01-02T03:04:05.000000Z"},
		{"timestamp keeps wall clock", "TIMESTAMP", time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.FixedZone("", 0)), "2026-01-02T03:04:05.600000"},
		{"date", "DATE", time.Date(2026, 2, 28, 0, 0, 0, 0, time.FixedZone("", 0)), "2026-02-28"},
		{"time", "TIME", time.Date(0, 1, 1, 13, 14, 15, 500, time.UTC), "13:14:15.000000"},
		{"timetz", "TIMETZ", time.Date(0, 1, 1, 13, 14, 15, 0, time.FixedZone("", 2*3600)), "13:14:15.000000+02:00"},
		{"infinity timestamptz", "TIMESTAMPTZ", []byte("infinity"), "infinity"},
		{"-infinity date", "DATE", []byte("-infinity"), "-infinity"},
		{"text array as text form", "_TEXT", []byte(`{a,"b c"}`), `{a,"b c"}`},
		{"interval as text", "INTERVAL", []byte("1 day 02:00:00"), "1 day 02:00:00"},
		{"bytea stays bytes", "BYTEA", []byte{0, 1, 255}, []byte{0, 1, 255}},
		{"empty bytea", "BYTEA", []byte{}, []byte{}},
		{"unknown time type", "SOMETHING", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "2026-01-02T03:04:05Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ConvertValue(tc.dbType, tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ConvertValue(%q, %#v) = %#v (%T), want %#v (%T)", tc.dbType, tc.in, got, got, tc.want, tc.want)
			}
		})
	}
}

func TestConvertValueNumericSpecials(t *testing.T) {
	if got := ConvertValue("NUMERIC", []byte("NaN")).(float64); !math.IsNaN(got) {
		t.Fatalf("NaN numeric = %v, want NaN", got)
	}
	if got := ConvertValue("NUMERIC", []byte("-Infinity")).(float64); !math.IsInf(got, -1) {
		t.Fatalf("-Infinity numeric = %v, want -Inf", got)
	}
}

func TestConvertValueCopiesBytea(t *testing.T) {
	// database/sql may reuse the scan buffer for the next row.
	buf := []byte{1, 2, 3}
	got := ConvertValue("BYTEA", buf).([]byte)
	buf[0] = 9
	if got[0] != 1 {
		t.Fatalf("bytea result shares the driver's buffer: %v", got)
	}
}

func TestTimestampStringsParseBack(t *testing.T) {
	// The layouts must round-trip, or a script that writes a value it read
	// would shift it.
	in := time.Date(2026, 11, 22, 4, 2, 12, 123456000, time.UTC)
	s := ConvertValue("TIMESTAMPTZ", in).(string)
	back, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("%q is not RFC 3339: %v", s, err)
	}
	if !back.Equal(in) {
		t.Fatalf("round trip %q = %v, want %v", s, back, in)
	}
}
