package modules

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5/pgxpool"
)

// notes is mod-notes' note-links view: the notes of one domain object
// (GET /note-links/domain/{domain}/type/{type}/id/{id}), which the check-out
// screen asks for the patron.
type notes struct {
	db *pgxpool.Pool
}

var noteT = storage.MustLookup("mod_notes", "note")

func (n *notes) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /note-links/domain/{domain}/type/{type}/id/{id}", n.links)
}

func (n *notes) links(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := storage.ParsePaging(r, 10)
	if err != nil {
		writeText(w, http.StatusBadRequest, err.Error())
		return
	}
	q := r.URL.Query()
	link, _ := json.Marshal([]obj{{"type": r.PathValue("type"), "id": r.PathValue("id")}})
	where := "jsonb->>'domain' = $1"
	switch status := strings.ToLower(q.Get("status")); status {
	case "", "assigned":
		where += " AND jsonb->'links' @> $2::jsonb"
	case "unassigned":
		where += " AND NOT coalesce(jsonb->'links' @> $2::jsonb, false)"
	case "all":
		where += " AND $2::jsonb IS NOT NULL"
	default:
		writeText(w, http.StatusBadRequest, "status must be one of assigned, unassigned, all; got "+status)
		return
	}
	dir := "ASC"
	switch strings.ToLower(q.Get("order")) {
	case "", "asc":
	case "desc":
		dir = "DESC"
	default:
		writeText(w, http.StatusBadRequest, "order must be asc or desc")
		return
	}
	orderBy := "jsonb->>'title' " + dir
	if q.Get("orderBy") == "updatedDate" {
		orderBy = "jsonb->'metadata'->>'updatedDate' " + dir
	}
	page, err := storage.FindWhere(r.Context(), n.db, r.Header.Get("X-Okapi-Tenant"), noteT, where, orderBy,
		[]any{r.PathValue("domain"), string(link)}, limit, offset)
	if err != nil {
		storage.WriteStorageError(w, r, nil, noteT, err)
		return
	}
	body := storage.Envelope(noteT, page)
	storage.WriteJSON(w, http.StatusOK, body)
}
