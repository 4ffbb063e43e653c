package sqlmodule

import (
	"sync"

	"github.com/grafana/sobek"
	"go.k6.io/k6/js/modules"
)

// DriverImportPrefix is where driver modules live: a script imports
// "k6/x/sql/driver/postgres" and passes its default export to sql.open.
const DriverImportPrefix = "k6/x/sql/driver/"

// driverRegistry maps the Symbols handed to scripts to database/sql driver
// names. A Symbol (not a string) is the driver id, as in xk6-sql: only the
// value exported by an imported driver module is accepted, so a typo fails
// at sql.open instead of picking some other registered driver.
type driverRegistry struct {
	mu      sync.RWMutex
	drivers map[*sobek.Symbol]string
}

func newDriverRegistry() *driverRegistry {
	return &driverRegistry{drivers: map[*sobek.Symbol]string{}}
}

// register creates the id for a database/sql driver name. The Symbol's
// description is the name, so `String(driver)` in a script shows it.
func (r *driverRegistry) register(name string) *sobek.Symbol {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := sobek.NewSymbol(name)
	r.drivers[id] = name
	return id
}

// lookup compares by identity: a script-made Symbol("postgres") is not a
// driver id.
func (r *driverRegistry) lookup(id *sobek.Symbol) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	name, ok := r.drivers[id]
	return name, ok
}

// names lists the registered driver names, for error messages.
func (r *driverRegistry) names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.drivers))
	for _, n := range r.drivers {
		out = append(out, n)
	}
	return out
}

var drivers = newDriverRegistry() //nolint:gochecknoglobals // filled by init() of driver packages, like database/sql's own registry

// NewDriverModule returns the k6 module for the database/sql driver `name`
// (registered with database/sql by its own package): its default export is
// the driver's id Symbol. The driver package registers it from init() as
// DriverImportPrefix+name, so that `k6 version` credits that package:
//
//	modules.Register(sqlmodule.DriverImportPrefix+"postgres", sqlmodule.NewDriverModule("postgres"))
func NewDriverModule(name string) modules.Module {
	return &driverRootModule{id: drivers.register(name)}
}

type driverRootModule struct{ id *sobek.Symbol }

func (m *driverRootModule) NewModuleInstance(modules.VU) modules.Instance {
	return &driverInstance{id: m.id}
}

type driverInstance struct{ id *sobek.Symbol }

func (d *driverInstance) Exports() modules.Exports {
	return modules.Exports{Default: d.id}
}
