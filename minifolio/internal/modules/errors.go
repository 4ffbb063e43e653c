package modules

import (
	"encoding/json"
	"net/http"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// Param is one {key,value} of a FOLIO validation error.
type Param struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// OverridableBlock tells the UI which block a user with the right permission
// may override (mod-circulation's BlockOverrideError).
type OverridableBlock struct {
	Name               string   `json:"name"`
	MissingPermissions []string `json:"missingPermissions"`
}

// ValidationError is one entry of mod-circulation's 422 errors[]; code and
// overridableBlock appear only when set, as in ValidationError.toJson.
type ValidationError struct {
	Message          string            `json:"message"`
	Parameters       []Param           `json:"parameters"`
	Code             string            `json:"code,omitempty"`
	OverridableBlock *OverridableBlock `json:"overridableBlock,omitempty"`
}

// failure is a business-rule outcome that ends a request with FOLIO's status:
// 422 with errors[] for validation failures, or a plain-text status (400, 500)
// as mod-circulation writes them.
type failure struct {
	status int
	errs   []ValidationError
	text   string
}

func (f *failure) Error() string {
	if len(f.errs) > 0 {
		return f.errs[0].Message
	}
	return f.text
}

func invalid(message, key, value, code string) *failure {
	p := []Param{}
	if key != "" {
		p = append(p, Param{Key: key, Value: value})
	}
	return &failure{status: http.StatusUnprocessableEntity, errs: []ValidationError{{Message: message, Parameters: p, Code: code}}}
}

func serverError(text string) *failure {
	return &failure{status: http.StatusInternalServerError, text: text}
}

func badRequest(text string) *failure { return &failure{status: http.StatusBadRequest, text: text} }

// writeFailure writes f; any other error becomes a 500 with its text, as
// mod-circulation's ServerErrorFailure does.
func writeFailure(w http.ResponseWriter, err error) {
	f, ok := err.(*failure)
	if !ok {
		f = serverError(err.Error())
	}
	if len(f.errs) > 0 {
		writeJSON(w, f.status, map[string]any{"errors": f.errs})
		return
	}
	writeText(w, f.status, f.text)
}

// writeJSON and writeText set Content-Length (through package storage's
// writers): without it a body over 2 KB goes out chunked, and the gateway's
// ReverseProxy then flushes every chunk to the client in its own write.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeText(w, http.StatusInternalServerError, err.Error())
		return
	}
	storage.WriteJSON(w, status, b)
}

func writeText(w http.ResponseWriter, status int, text string) { storage.TextError(w, status, text) }
