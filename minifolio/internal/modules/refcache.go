package modules

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"
)

// refCache keeps reference records (locations, material types, loan types,
// service points, groups, policies, circulation rules) that mod-circulation
// and mod-inventory read on every check-out. FOLIO modules cache these too;
// without it each check-out would make a dozen extra gateway calls for data
// that changes only when an administrator edits it. Entries expire after ttl
// so edits show up without a restart.
type refCache struct {
	okapi *okapiClient
	ttl   time.Duration
	mu    sync.Mutex
	m     map[string]refEntry // key: tenant + " " + path
}

const maxRefEntries = 20000

type refEntry struct {
	rec     obj // nil: the record does not exist (404 cached too)
	expires time.Time
}

func newRefCache(o *okapiClient, ttl time.Duration) *refCache {
	return &refCache{okapi: o, ttl: ttl, m: map[string]refEntry{}}
}

// get returns the record at path ("/locations/<id>"), nil when it is absent.
func (c *refCache) get(ctx context.Context, cl caller, path string) (obj, error) {
	key := cl.tenant + " " + path
	now := time.Now()
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.rec, nil
	}
	var rec obj
	err := c.okapi.get(ctx, cl, path, &rec)
	var ue *upstreamError
	if errors.As(err, &ue) && ue.status == http.StatusNotFound {
		rec, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= maxRefEntries {
		// Users are cached too (check-in's borrower); bound the map rather
		// than let a long run with many patrons grow it without limit.
		clear(c.m)
	}
	c.m[key] = refEntry{rec: rec, expires: now.Add(c.ttl)}
	c.mu.Unlock()
	return rec, nil
}

// byID is get for "<collection>/<id>"; an empty id is "absent".
func (c *refCache) byID(ctx context.Context, cl caller, collection, id string) (obj, error) {
	if id == "" || !isUUID(id) {
		return nil, nil
	}
	return c.get(ctx, cl, collection+"/"+id)
}
