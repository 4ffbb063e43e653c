package modules

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
)

const maxBody = 1 << 20

// decodeBody reads a JSON object body. Bad input gets FOLIO's status and a
// one-line cause: 413 for huge bodies, 400 for an XML or multipart content
// type or malformed JSON. Other content types are accepted when the body is
// JSON, as mod-circulation does: PTF's JMeter plans post without one and
// `curl -d` labels JSON as a form.
func decodeBody(r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || strings.HasSuffix(mt, "/xml") || strings.HasPrefix(mt, "multipart/") {
			return &failure{status: http.StatusBadRequest, text: "Content-Type must be application/json, got " + ct}
		}
	}
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &failure{status: http.StatusRequestEntityTooLarge, text: "Request body larger than 1 MiB"}
		}
		return badRequest("cannot read request body: " + err.Error())
	}
	if len(b) == 0 {
		return badRequest("Request body must be a JSON object")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return badRequest("Json content error: " + err.Error())
	}
	return nil
}
