package storage

// TranslateForTest exposes translate to the external tests (EXPLAIN checks).
func TranslateForTest(t *Table, q string) (translated, error) { return translate(t, q) }

// TotalRecordsForTest exposes RMB's page correction of the count.
func TotalRecordsForTest(got, count, offset, limit int) int {
	return totalRecordsFor(got, count, offset, limit)
}
