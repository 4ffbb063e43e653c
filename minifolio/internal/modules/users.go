package modules

import (
	"net/http"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// usersConfiguration plays mod-users' GET /users/configurations/entry (since
// 19.3; UsersAPI.getUsersConfigurationsEntry), which ui-checkout 12 reads for
// the profile-picture setting: the one row mod-users' tenant script inserts
// (create_configuration_table.sql: disabled, no object storage, 4 MB), in the
// order of its schema (ramls/configuration.json) as RMB's Jackson writes it.
// The id is random per tenant in FOLIO; here it is one fixed UUID.
const usersConfiguration = `{"id":"5a5e3a46-7b6d-4f43-9e9b-2c1f8b0d7e11","configName":"PROFILE_PICTURE_CONFIG",` +
	`"enabled":false,"enabledObjectStorage":false,"encryptionKey":"ThisIsASimpleDefaultKeyToTestIts","maxFileSize":4.0}`

func usersRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /users/configurations/entry", func(w http.ResponseWriter, r *http.Request) {
		storage.WriteJSON(w, http.StatusOK, []byte(usersConfiguration))
	})
}
