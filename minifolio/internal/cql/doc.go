// Package cql parses CQL the way cql-java does and translates it to
// PostgreSQL with the semantics of RMB (raml-module-builder), the storage
// layer of FOLIO's storage modules, for tables of the shape
// (id uuid, jsonb jsonb) plus uuid foreign-key columns.
//
// API:
//
//	Parse(query string) (*Query, error)          // cql-java 1.13's grammar; *Error on bad syntax
//	(*Query).String() string                     // canonical CQL; Parse(q.String()) gives the same tree
//	Translate(q *Query, t Table, firstArg int) (SQL, error)
//	ToSQL(query string, t Table, firstArg int) (SQL, error)
//	FieldExpr(path string) string                // the expression an index must be built on
//	IndexDDL(schema, table, path string, unique bool) string
//	UnaccentFunctionSQL                          // creates public.f_unaccent (run once per database)
//	FullTextFunctionsSQL                         // creates RMB's get_tsvector and tsquery_* functions
//
// Every error (syntax or semantics) is a *Error whose message reads like
// cql-java's or RMB's; a storage module answers it with 400 text/plain.
// Nothing here panics, whatever the input (FuzzParse checks).
//
// Translation, by relation, for a JSON field f (path "a.b" → jsonb->'a'->>'b'):
//
//   - Values are always bound parameters; field names are written into the
//     SQL (they must equal the index expression) and are limited to
//     letters, digits, _ and - separated by dots.
//   - Matching is on FieldExpr(f) = lower(public.f_unaccent(jsonb->...)),
//     RMB's default index settings (caseSensitive=false, removeAccents=true);
//     the bound value is folded the same way in SQL.
//   - f == v: equality; with * or ? (unescaped) a LIKE with % and _
//     (literal % _ \ escaped). f <> v: the negation (records lacking f do
//     not match, SQL NULL).
//   - f = v, adj, all, any: RMB's full-text match, with or without a
//     full-text index: get_tsvector(f_unaccent(f)) @@ tsquery_phrase (=,
//     adj), tsquery_and (all) or tsquery_or (any) of f_unaccent(v), the
//     functions of FullTextFunctionsSQL. Words are PostgreSQL's 'simple'
//     parser's tokens, so an e-mail address or a host name is one word and
//     a hyphenated word is itself plus its parts. A * ending a word is a
//     prefix match; * elsewhere and ? are refused with RMB's messages.
//     f = "" matches records that have f; f = * every record.
//   - < <= > >=: folded string comparison, as in RMB ("2" > "19"; ISO
//     dates order correctly). With /number (=, ==, <>, <, …) the JSON value
//     compares as a number (3.4 == 3.400); sortby f/number likewise.
//   - id and the foreign-key columns of Table.Columns use the uuid column,
//     as RMB's pgId: =, == and <> with a UUID; < <= > >= with a UUID only
//     (else *Error); right truncation (id=="1234*") is an index range;
//     all/any/adj and modifiers are refused. A value that is not a UUID
//     matches nothing with = / == (every record with <>) instead of
//     failing: PTF's user lookup sends id=="<barcode>" ORed with
//     barcode=="<barcode>" and expects the barcode to match.
//   - cql.allRecords=1 is TRUE; and/or are AND/OR; "a not b" is RMB's
//     "(a AND (b) IS NOT TRUE)", so records lacking b's field are kept.
//     prox, ^ anchoring, cql.serverChoice (a term with no index) and
//     modifiers other than /number and the defaults (masked, string,
//     ignoreCase, ignoreAccents) are rejected with *Error.
//   - sortby f[/sort.ascending|/sort.descending][/number]: by FieldExpr(f),
//     or by the JSON value with /number.
//
// Translate reports, in SQL.Unindexed, the JSON fields queried that
// Table.Indexed does not list, and in SQL.Search the word RMB's warning uses
// for each ("FT search" for = all any adj, "LIKE search" or "wildcard LIKE
// search" for == <>, "SQL query" for < > and /number), so the caller can log
// RMB's "Doing <search> without index for <field>" warning.
//
// The generated SQL calls public.f_unaccent, an IMMUTABLE wrapper of the
// unaccent extension (RMB defines the same): the storage layer must run
// UnaccentFunctionSQL before creating indexes or querying.
package cql
