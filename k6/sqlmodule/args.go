package sqlmodule

import (
	"encoding/json"
	"fmt"
	"time"
)

// ConvertArg turns one exported JS argument of query/exec into a value
// database/sql accepts. Primitives, null/undefined (nil), Date (time.Time)
// and binary data ([]byte) pass through. Plain objects and arrays become
// their JSON text, so a script can bind an object to a json/jsonb
// parameter ($1::jsonb) without JSON.stringify; upstream xk6-sql would
// hand them to the driver, which rejects them.
//
// n is the 1-based placeholder number, for the error message.
func ConvertArg(n int, v any) (any, error) {
	switch x := v.(type) {
	case nil, string, int64, float64, bool, time.Time, []byte:
		return x, nil
	case int:
		return int64(x), nil
	case map[string]any, []any:
		b, err := json.Marshal(x)
		if err != nil {
			return nil, fmt.Errorf("argument $%d: cannot be sent as JSON: %v", n, err)
		}
		return string(b), nil
	default:
		return nil, fmt.Errorf("argument $%d: unsupported type %T; pass a string, number, boolean, null, Date, ArrayBuffer or a plain object/array (sent as JSON)", n, v)
	}
}
