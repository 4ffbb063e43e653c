// Package profile loads minifolio's release profiles: JSON files that switch on
// the behaviours FOLIO's release reports describe (service time per endpoint,
// automated patron blocks rebuilt from events, unindexed lookups, a leak).
// A profile is data; the modules implement each mechanism once and read its
// knobs from here, so adding a profile needs no code.
package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/catalog"
)

// Profile is one minifolio/profiles/<name>.json.
type Profile struct {
	Name        string `json:"name"`
	Description string `json:"description"`

	// ServiceTime adds latency to endpoints (fixed + uniform jitter + an
	// optional long tail) so that a fast local stand-in shows the response
	// times of a real deployment.
	ServiceTime []ServiceTime `json:"serviceTime,omitempty"`

	// PatronBlocks selects how mod-patron-blocks computes automated blocks.
	PatronBlocks PatronBlocks `json:"patronBlocks"`

	// UnindexedFields are jsonb fields whose indexes the storage module drops
	// at start (FOLIO releases that shipped without them); queries on them
	// log RMB's "Doing … without index" warning.
	UnindexedFields []UnindexedField `json:"unindexedFields,omitempty"`

	// Leak makes one module retain memory on every request and scan it.
	Leak *Leak `json:"leak,omitempty"`

	// Slowdown holds the answers of the matching requests for a share of the
	// module's own time to serve them: a regression of a known size, for
	// measuring the regression gate.
	Slowdown []Slowdown `json:"slowdown,omitempty"`

	// ModuleVersions are the versions Okapi's module list reports
	// (GET /_/proxy/tenants/{tenant}/modules) and the gateway's mod-login
	// behaves as; a module not named here has catalog.DefaultVersions'.
	ModuleVersions map[string]string `json:"moduleVersions,omitempty"`

	// Platform is "okapi" (the default: one gateway playing Okapi, mod-authtoken
	// and mod-login) or "eureka" (a Kong-like gateway, a sidecar process in front
	// of every module, tokens from Keycloak).
	Platform string `json:"platform,omitempty"`

	// Applications group the modules as Eureka's application descriptors do
	// (GET /entitlements/{tenant}/applications); Eureka profiles only.
	Applications []Application `json:"applications,omitempty"`
}

// Application is one entitled application: its name, version and the
// catalog modules it holds.
type Application struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Modules []string `json:"modules"`
}

// AtLeast reports whether the profile's version of module is at least
// major.minor.patch (a version that does not parse counts as older).
func (p *Profile) AtLeast(module string, major, minor, patch int) bool {
	var got [3]int
	if _, err := fmt.Sscanf(p.Version(module), "%d.%d.%d", &got[0], &got[1], &got[2]); err != nil {
		return false
	}
	want := [3]int{major, minor, patch}
	for i := range got {
		if got[i] != want[i] {
			return got[i] > want[i]
		}
	}
	return true
}

// Eureka reports whether the profile runs on the Eureka platform.
func (p *Profile) Eureka() bool { return p.Platform == catalog.Eureka }

// Version is the version the profile gives module (its moduleVersions, else
// catalog.DefaultVersions).
func (p *Profile) Version(module string) string {
	if v := p.ModuleVersions[module]; v != "" {
		return v
	}
	return catalog.DefaultVersions[module]
}

// ServiceTime is the added latency of the requests that match Module, Method
// and Path. Empty Method/Path match everything; Path matches itself and any
// sub-path ("/automated-patron-blocks" matches "/automated-patron-blocks/<id>").
// The first matching rule wins, so specific rules go before module defaults.
//
// A request's added time is FixedMs, plus a uniform draw in [0, JitterMs), plus,
// when TailMedianMs > 0, a log-normal draw with that median and TailSigma (the
// standard deviation of its logarithm). Real response times are skewed: FOLIO's
// reports put check-out's p95 about 1.5 times its average, which a sum of
// uniform jitters cannot give (it tightens around the mean), and a log-normal
// term on the slow APIs does. Its mean is TailMedianMs * exp(TailSigma^2 / 2);
// one draw is at most a minute (maxTail).
type ServiceTime struct {
	Module       string  `json:"module"`
	Method       string  `json:"method,omitempty"`
	Path         string  `json:"path,omitempty"`
	FixedMs      int     `json:"fixedMs"`
	JitterMs     int     `json:"jitterMs,omitempty"`
	TailMedianMs float64 `json:"tailMedianMs,omitempty"`
	TailSigma    float64 `json:"tailSigma,omitempty"`
}

// maxTailSigma bounds the tail's spread: at 2, one request in 10,000 already
// takes 1,700 times the median.
const maxTailSigma = 2

// maxServiceMs bounds every part of a rule, and maxTail one tail draw: a
// request held longer than a minute is a time-out in any client (k6's default
// is 60 s), and the bound keeps a typo from overflowing time.Duration.
const (
	maxServiceMs = 60000
	maxTail      = time.Minute
)

// Slowdown makes the requests that match Module, Method and Path (as in
// ServiceTime) answer Percent % later: the module times its own handling of
// the request (including the calls it makes to other modules), then holds the
// finished answer for that time × Percent / 100. The added time scales with
// the request's real cost, so the endpoint's whole distribution stretches by
// 1 + Percent/100, its p95 included, whatever the machine's speed.
type Slowdown struct {
	Module  string  `json:"module"`
	Method  string  `json:"method,omitempty"`
	Path    string  `json:"path,omitempty"`
	Percent float64 `json:"percent"`
}

// maxSlowdownPercent bounds a slowdown: ten times slower is a regression no
// gate needs measuring, and the bound keeps a typo from stalling a module.
const maxSlowdownPercent = 1000

// PatronBlocks: the default ("summary") reads the maintained user_summary row,
// as mod-patron-blocks does since Kiwi; "events" rebuilds the summary on every
// GET from the user's event history, as Juniper did.
type PatronBlocks struct {
	Mode       string `json:"mode,omitempty"`       // "summary" (default) | "events"
	EventLimit int    `json:"eventLimit,omitempty"` // LIMIT of the per-user event query (Juniper: 10000)
}

// UnindexedField names a jsonb field of a storage table that has no index.
type UnindexedField struct {
	Module string `json:"module"` // e.g. mod-circulation-storage
	Table  string `json:"table"`  // e.g. loan
	Field  string `json:"field"`  // jsonb path, e.g. userId or status.name
}

// Leak retains BytesPerRequest on every request served by Module in a list
// that every request scans, so memory and latency grow with uptime.
type Leak struct {
	Module          string `json:"module"`
	BytesPerRequest int    `json:"bytesPerRequest"`
}

// Dir finds the profiles directory: $MINIFOLIO_PROFILES, else "profiles" next
// to the working directory's minifolio module (repo root or minifolio/).
func Dir() string {
	if d := os.Getenv("MINIFOLIO_PROFILES"); d != "" {
		return d
	}
	for _, c := range []string{"minifolio/profiles", "profiles", "../profiles", "../../profiles", "../../../profiles"} {
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			if _, err := os.Stat(filepath.Join(c, "fast.json")); err == nil {
				return c
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		// bin/minifolio → <repo>/minifolio/profiles
		c := filepath.Join(filepath.Dir(exe), "..", "minifolio", "profiles")
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	return "minifolio/profiles"
}

var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// Load reads the profile called name from dir. An empty name means "fast".
func Load(dir, name string) (*Profile, error) {
	if name == "" {
		name = "fast"
	}
	if !validName.MatchString(name) {
		return nil, fmt.Errorf("invalid profile name %q: use one of %s", name, strings.Join(Names(dir), ", "))
	}
	b, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("unknown profile %q: use one of %s (files in %s)", name, strings.Join(Names(dir), ", "), dir)
	}
	if err != nil {
		return nil, err
	}
	p, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", filepath.Join(dir, name+".json"), err)
	}
	if p.Name != name {
		return nil, fmt.Errorf("profile %s.json names itself %q: make the file name and \"name\" agree", name, p.Name)
	}
	return p, nil
}

// Names lists the profiles available in dir.
func Names(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []string
	for _, f := range m {
		out = append(out, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	sort.Strings(out)
	return out
}

// versionRE is a module version as Okapi's module ids carry it.
var versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-SNAPSHOT[.0-9]*)?$`)

// Parse decodes and validates one profile; unknown fields are errors so a
// typo in a knob does not silently turn a regression off.

func Parse(b []byte) (*Profile, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if p.Name == "" || p.Description == "" {
		return nil, errors.New(`"name" and "description" are required`)
	}
	for i, s := range p.ServiceTime {
		if s.Module == "" || s.FixedMs < 0 || s.JitterMs < 0 || s.FixedMs > maxServiceMs || s.JitterMs > maxServiceMs {
			return nil, fmt.Errorf("serviceTime[%d]: needs \"module\" and fixedMs/jitterMs between 0 and %d", i, maxServiceMs)
		}
		if s.TailMedianMs < 0 || s.TailMedianMs > maxServiceMs || s.TailSigma < 0 || s.TailSigma > maxTailSigma || (s.TailMedianMs > 0) != (s.TailSigma > 0) {
			return nil, fmt.Errorf("serviceTime[%d]: tailMedianMs and tailSigma go together: a median in (0, %d] and a sigma in (0, %d]", i, maxServiceMs, maxTailSigma)
		}
	}
	for name, v := range p.ModuleVersions {
		if !versionRE.MatchString(v) {
			return nil, fmt.Errorf("moduleVersions[%q]: %q is not a version like 23.0.1", name, v)
		}
		if _, known := catalog.DefaultVersions[name]; !known {
			return nil, fmt.Errorf("moduleVersions: unknown module %q", name)
		}
	}
	switch p.Platform {
	case "":
		p.Platform = catalog.Okapi
	case catalog.Okapi, catalog.Eureka:
	default:
		return nil, fmt.Errorf("platform %q: use \"okapi\" or \"eureka\"", p.Platform)
	}
	if len(p.Applications) > 0 && !p.Eureka() {
		return nil, errors.New("applications: only a profile with \"platform\": \"eureka\" has applications")
	}
	for i, a := range p.Applications {
		if a.Name == "" || !versionRE.MatchString(a.Version) || len(a.Modules) == 0 {
			return nil, fmt.Errorf("applications[%d]: needs a name, a version like 2.0.14 and modules", i)
		}
		for _, m := range a.Modules {
			if mod, ok := catalog.ByName(m); !ok || !mod.On(catalog.Eureka) {
				return nil, fmt.Errorf("applications[%d]: %q is not a module minifolio runs on Eureka", i, m)
			}
		}
	}
	switch p.PatronBlocks.Mode {
	case "", "summary":
		p.PatronBlocks.Mode = "summary"
	case "events":
		if p.PatronBlocks.EventLimit <= 0 {
			p.PatronBlocks.EventLimit = 10000
		}
	default:
		return nil, fmt.Errorf("patronBlocks.mode %q: use \"summary\" or \"events\"", p.PatronBlocks.Mode)
	}
	for i, u := range p.UnindexedFields {
		if u.Module == "" || u.Table == "" || u.Field == "" {
			return nil, fmt.Errorf("unindexedFields[%d]: needs module, table and field", i)
		}
	}
	for i, sd := range p.Slowdown {
		if sd.Module == "" || !(sd.Percent > 0 && sd.Percent <= maxSlowdownPercent) {
			return nil, fmt.Errorf("slowdown[%d]: needs \"module\" and a percent in (0, %d]", i, maxSlowdownPercent)
		}
	}
	if p.Leak != nil && (p.Leak.Module == "" || p.Leak.BytesPerRequest <= 0) {
		return nil, errors.New("leak: needs module and a positive bytesPerRequest")
	}
	return &p, nil
}

// Delay returns the service time to add to one request of module, drawn
// with rnd (nil: the global source). Zero when no rule matches.
func (p *Profile) Delay(module, method, path string, rnd *rand.Rand) time.Duration {
	for _, s := range p.ServiceTime {
		if !matches(s.Module, s.Method, s.Path, module, method, path) {
			continue
		}
		d := time.Duration(s.FixedMs) * time.Millisecond
		if s.JitterMs > 0 {
			var j int
			if rnd != nil {
				j = rnd.IntN(s.JitterMs * 1000)
			} else {
				j = rand.IntN(s.JitterMs * 1000)
			}
			d += time.Duration(j) * time.Microsecond
		}
		if s.TailMedianMs > 0 {
			var z float64
			if rnd != nil {
				z = rnd.NormFloat64()
			} else {
				z = rand.NormFloat64()
			}
			// Clamped in float64 first: a draw far out in the tail must not
			// overflow the conversion.
			d += time.Duration(math.Min(s.TailMedianMs*math.Exp(s.TailSigma*z)*float64(time.Millisecond), float64(maxTail)))
		}
		return d
	}
	return 0
}

// matches: a rule for (ruleModule, ruleMethod, rulePath) applies to a request;
// an empty method or path matches any, a path matches itself and its sub-paths.
func matches(ruleModule, ruleMethod, rulePath, module, method, path string) bool {
	if ruleModule != module || (ruleMethod != "" && !strings.EqualFold(ruleMethod, method)) {
		return false
	}
	return rulePath == "" || path == rulePath || strings.HasPrefix(path, strings.TrimSuffix(rulePath, "/")+"/")
}

// SlowdownPercent is the first matching slowdown rule's percent, 0 when none
// matches.
func (p *Profile) SlowdownPercent(module, method, path string) float64 {
	for _, s := range p.Slowdown {
		if matches(s.Module, s.Method, s.Path, module, method, path) {
			return s.Percent
		}
	}
	return 0
}

// HasSlowdown: some rule slows a request of module.
func (p *Profile) HasSlowdown(module string) bool {
	for _, s := range p.Slowdown {
		if s.Module == module {
			return true
		}
	}
	return false
}

// Unindexed returns the unindexed fields of module's table.
func (p *Profile) Unindexed(module, table string) []string {
	var out []string
	for _, u := range p.UnindexedFields {
		if u.Module == module && u.Table == table {
			out = append(out, u.Field)
		}
	}
	return out
}
