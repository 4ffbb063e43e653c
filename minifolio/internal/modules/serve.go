// Package modules holds minifolio's business modules. PLACEHOLDER: replaced by
// the modules work (issue 3); kept only so the CLI compiles meanwhile.
package modules

import (
	"context"
	"errors"
)

// Config is what `minifolio serve --module <name>` passes to a module process.
type Config struct {
	Name     string // FOLIO module name from catalog.Modules
	Addr     string // listen address, e.g. 127.0.0.1:9139
	DB       string // PostgreSQL URL
	OkapiURL string // gateway URL; modules call each other through it with the caller's token
	Profile  string // release profile name (minifolio/profiles/<name>.json)
}

// Serve runs one module until ctx is cancelled.
func Serve(ctx context.Context, cfg Config) error {
	return errors.New("modules.Serve: not implemented yet")
}
