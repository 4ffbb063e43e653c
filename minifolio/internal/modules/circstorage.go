package modules

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// circulationRules serves mod-circulation-storage's single-record
// /circulation-rules-storage (GET the rules, PUT to replace them).
type circulationRules struct {
	db *pgxpool.Pool
}

var rulesT = storage.MustLookup("mod_circulation_storage", "circulation_rules")

func (c *circulationRules) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /circulation-rules-storage", c.get)
	mux.HandleFunc("PUT /circulation-rules-storage", c.put)
}

func (c *circulationRules) get(w http.ResponseWriter, r *http.Request) {
	page, err := storage.FindWhere(r.Context(), c.db, r.Header.Get("X-Okapi-Tenant"), rulesT, "", "", nil, 1, 0)
	if err != nil {
		storage.WriteStorageError(w, r, nil, rulesT, err)
		return
	}
	if len(page.Records) == 0 {
		writeText(w, http.StatusNotFound, "Not found")
		return
	}
	storage.WriteJSON(w, http.StatusOK, page.Records[0])
}

func (c *circulationRules) put(w http.ResponseWriter, r *http.Request) {
	var body struct {
		RulesAsText *string `json:"rulesAsText"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeFailure(w, err)
		return
	}
	if body.RulesAsText == nil {
		writeJSON(w, http.StatusUnprocessableEntity, obj{"errors": []ValidationError{{Message: "must not be null",
			Parameters: []Param{{Key: "rulesAsText", Value: "null"}}}}})
		return
	}
	tenant := r.Header.Get("X-Okapi-Tenant")
	ctx := r.Context()
	err := pgx.BeginFunc(ctx, c.db, func(tx pgx.Tx) error {
		page, err := storage.FindWhere(ctx, tx, tenant, rulesT, "", "", nil, 1, 0)
		if err != nil {
			return err
		}
		id := newUUID()
		if len(page.Records) > 0 {
			var old obj
			json.Unmarshal(page.Records[0], &old)
			id = str(old, "id")
		}
		doc, _ := json.Marshal(obj{"id": id, "rulesAsText": *body.RulesAsText})
		if len(page.Records) > 0 {
			return storage.Update(ctx, tx, tenant, rulesT, id, doc)
		}
		return storage.Insert(ctx, tx, tenant, rulesT, id, doc)
	})
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		storage.WriteStorageError(w, r, nil, rulesT, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
