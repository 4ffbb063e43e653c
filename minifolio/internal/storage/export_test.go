package storage

// TranslateForTest exposes translate to the external tests (EXPLAIN checks).
func TranslateForTest(t *Table, q string) (translated, error) { return translate(t, q) }
