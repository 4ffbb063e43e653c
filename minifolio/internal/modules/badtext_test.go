package modules

import (
	"fmt"
	"testing"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// PostgreSQL's text cannot hold a NUL and refuses invalid UTF-8 (SQLSTATE
// 22021): wherever a client's text can reach the database (a CQL query, a
// path id, a JSON body, a check-out's barcodes, the patron-block handlers,
// note links, circulation rules), the answer is the 4xx FOLIO's module
// gives, never a 500.
func TestTextPostgreSQLCannotHoldIsNeverA500(t *testing.T) {
	pool, tenant, f := newTenant(t)
	e := newEnv(t, pool, tenant, "fast")
	check := func(method, path string, body any) {
		t.Helper()
		if r := e.do(method, path, body); r.status >= 500 {
			t.Errorf("%s %s %q: %d %s", method, path, body, r.status, r.body)
		}
	}
	inURL := []string{"%00", "a%00b", "%FF", "a%FFb"}
	inJSON := []string{`a\u0000b`, "a\xffb"}
	var paths []string
	for _, tb := range storage.Tables {
		if tb.Path != "" {
			paths = append(paths, tb.Path)
		}
	}
	for _, p := range append(paths, "/circulation/loans", "/inventory/items", "/circulation/requests") {
		for _, v := range inURL {
			check("GET", p+"?query=id%3D%3D"+v, nil)
			check("GET", p+"?query=barcode%3D%3D"+v, nil)
			check("GET", p+"/"+v, nil)
		}
		for _, v := range inJSON {
			check("POST", p, `{"name":"`+v+`","barcode":"`+v+`"}`)
		}
	}
	for _, v := range inJSON {
		check("POST", "/circulation/check-out-by-barcode", fmt.Sprintf(`{"itemBarcode":"%s","userBarcode":"u-000","servicePointId":"%s"}`, v, f.sp1))
		check("POST", "/circulation/check-out-by-barcode", fmt.Sprintf(`{"itemBarcode":"it-001","userBarcode":"%s","servicePointId":"%s"}`, v, f.sp1))
		check("POST", "/circulation/check-out-by-barcode", fmt.Sprintf(`{"itemBarcode":"it-001","userBarcode":"u-000","servicePointId":"%s"}`, v))
		check("POST", "/circulation/check-in-by-barcode", fmt.Sprintf(`{"itemBarcode":"%s","servicePointId":"%s","checkInDate":"2026-11-22T10:00:00Z"}`, v, f.sp1))
		check("POST", "/circulation/check-in-by-barcode", fmt.Sprintf(`{"itemBarcode":"it-001","servicePointId":"%s","checkInDate":"%s"}`, f.sp1, v))
		for _, h := range []string{"item-checked-out", "item-checked-in"} {
			check("POST", "/automated-patron-blocks/handlers/"+h, fmt.Sprintf(`{"userId":"%s","loanId":"%s","itemId":"%s","dueDate":"2026-11-22T10:00:00Z"}`, v, v, v))
		}
		check("PUT", "/circulation-rules-storage", `{"rulesAsText":"`+v+`"}`)
	}
	for _, v := range inURL {
		check("GET", "/automated-patron-blocks/"+v, nil)
		check("GET", "/note-links/domain/"+v+"/type/"+v+"/id/"+v, nil)
		check("GET", "/note-links/domain/users/type/user/id/"+f.users["u-000"]+"?status="+v+"&orderBy="+v+"&order="+v, nil)
		check("GET", "/circulation/loans/"+v, nil)
		check("GET", "/inventory/items/"+v, nil)
	}
}
