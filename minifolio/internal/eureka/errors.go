package eureka

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// sidecarError writes the sidecar's ErrorResponse (ErrorHandler): Jackson
// writes the Error fields in their declaration order (type, code, message;
// parameters omitted when null) and total_records after errors.
func sidecarError(w http.ResponseWriter, status int, typ, code, msg string) {
	e := struct {
		Errors []struct {
			Type    string `json:"type"`
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"errors"`
		TotalRecords int `json:"total_records"`
	}{TotalRecords: 1}
	e.Errors = append(e.Errors, struct {
		Type    string `json:"type"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}{typ, code, msg})
	b, _ := json.Marshal(e)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// The sidecar's answers (ErrorHandler: the message of a ForbiddenException or
// UnauthorizedException is replaced by "Access Denied" / "Unauthorized").
func unauthorized(w http.ResponseWriter) {
	sidecarError(w, http.StatusUnauthorized, "UnauthorizedException", "authorization_error", "Unauthorized")
}

func forbidden(w http.ResponseWriter) {
	sidecarError(w, http.StatusForbidden, "ForbiddenException", "authorization_error", "Access Denied")
}

func badRequest(w http.ResponseWriter, msg string) {
	sidecarError(w, http.StatusBadRequest, "BadRequestException", "service_error", msg)
}

func routeNotFound(w http.ResponseWriter, r *http.Request) {
	sidecarError(w, http.StatusNotFound, "NotFoundException", "route_not_found_error",
		"Route is not found [method: "+r.Method+", path: "+r.URL.Path+"]")
}

func tenantNotEnabled(w http.ResponseWriter, tenant string) {
	if tenant == "" {
		tenant = "null" // Java's string concatenation of a missing header
	}
	sidecarError(w, http.StatusBadRequest, "TenantNotEnabledException", "tenant_not_enabled",
		"Application is not enabled for tenant: "+tenant)
}

// kongRequestID is nginx's $request_id, the id Kong's error bodies carry:
// 16 random bytes in hex.
func kongRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// kongError is kong.response.error: the message in Kong's error template for
// the content type (kong/tools/http.lua ERROR_TEMPLATES). JSON keeps the
// template's own layout: a newline after "{", two spaces of indent, no space
// after the colons, no newline at the end.
func kongError(w http.ResponseWriter, status int, contentType, msg string) {
	var body string
	switch {
	case strings.HasPrefix(contentType, "text/plain"):
		body = msg + "\nrequest_id: " + kongRequestID() + "\n"
	case strings.HasPrefix(contentType, "text/html"):
		body = "<!doctype html>\n<html>\n  <head>\n    <meta charset=\"utf-8\">\n    <title>Error</title>\n  </head>\n" +
			"  <body>\n    <h1>Error</h1>\n    <p>" + msg + ".</p>\n    <p>request_id: " + kongRequestID() +
			"</p>\n  </body>\n</html>\n"
	case strings.HasPrefix(contentType, "application/xml"):
		body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<error>\n  <message>" + msg +
			"</message>\n  <requestid>" + kongRequestID() + "</requestid>\n</error>\n"
	default:
		body = "{\n  \"message\":\"" + msg + "\",\n  \"request_id\":\"" + kongRequestID() + "\"\n}"
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// kongResponseType is Kong's get_response_type: the Accept header's media
// type of highest quality (a type Kong has no template for means JSON).
func kongResponseType(accept string) string {
	types := map[string]string{
		"application/json": "application/json; charset=utf-8", "text/html": "text/html; charset=utf-8",
		"text/plain": "text/plain; charset=utf-8", "application/xml": "application/xml; charset=utf-8",
		"text/*": "text/plain; charset=utf-8", "application/*": "application/json; charset=utf-8",
		"*/*": "application/json; charset=utf-8",
	}
	best, bestQ := "application/json; charset=utf-8", 0.0
	for _, part := range strings.Split(accept, ",") {
		fields := strings.Split(strings.TrimSpace(part), ";")
		mt := strings.ToLower(strings.TrimSpace(fields[0]))
		q := 1.0
		for _, f := range fields[1:] {
			if v, ok := strings.CutPrefix(strings.TrimSpace(f), "q="); ok {
				if x, err := strconv.ParseFloat(v, 64); err == nil {
					q = x
				}
			}
		}
		if q > bestQ {
			// An unknown type still wins on quality, and answers JSON.
			bestQ = q
			if best = types[mt]; best == "" {
				best = "application/json; charset=utf-8"
			}
		}
	}
	return best
}
