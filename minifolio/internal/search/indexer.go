package search

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Indexer builds documents from a tenant's inventory-storage tables and
// bulk-loads them into the tenant's indexes.
type Indexer struct {
	OS      *Client
	DB      *pgxpool.Pool
	Page    int // instances (or authorities) read and bulk-sent per batch
	Workers int // concurrent _bulk requests
	Shards  int // primary shards of an index it creates (0: 1)

	// Time spent in the last Reindex, per phase (nanoseconds): reading
	// PostgreSQL and building bodies, waiting for a free bulk worker, and
	// inside _bulk requests (summed over the workers).
	readNs, waitNs, bulkNs atomic.Int64
}

// PhaseSeconds reports the last Reindex's read, wait and bulk times.
func (ix *Indexer) PhaseSeconds() (read, wait, bulk float64) {
	return float64(ix.readNs.Load()) / 1e9, float64(ix.waitNs.Load()) / 1e9, float64(ix.bulkNs.Load()) / 1e9
}

// Progress receives the running count of indexed records and the total.
type Progress func(done, total int64)

const inventorySchema = "mod_inventory_storage"

func (ix *Indexer) page() int {
	if ix.Page > 0 {
		return ix.Page
	}
	return 1000
}

func (ix *Indexer) shards() int { return max(ix.Shards, 1) }

func (ix *Indexer) workers() int {
	if ix.Workers > 0 {
		return ix.Workers
	}
	return 2
}

// EnsureIndex creates the tenant's index for r unless it exists; with
// recreate it drops and creates it with refreshes off (the caller restores
// them with FinishRecreate), as mod-search's reindex with recreateIndex.
func (ix *Indexer) EnsureIndex(ctx context.Context, r *Resource, tenant string, recreate bool) error {
	name := IndexName(r.Name, tenant)
	if recreate {
		if err := ix.OS.Delete(ctx, name); err != nil {
			return err
		}
		return ix.OS.Create(ctx, name, IndexBody(r, ix.shards(), 0, "-1"))
	}
	ok, err := ix.OS.Exists(ctx, name)
	if err != nil || ok {
		return err
	}
	return ix.OS.Create(ctx, name, IndexBody(r, ix.shards(), 0, ""))
}

// FinishRecreate restores the refresh interval and makes the documents searchable.
func (ix *Indexer) FinishRecreate(ctx context.Context, r *Resource, tenant string) error {
	name := IndexName(r.Name, tenant)
	if err := ix.OS.SetRefreshInterval(ctx, name, "1s"); err != nil {
		return err
	}
	return ix.OS.Refresh(ctx, name)
}

// Count is the number of rows the reindex of r will read.
func (ix *Indexer) Count(ctx context.Context, r *Resource, tenant string) (int64, error) {
	var n int64
	err := ix.DB.QueryRow(ctx, "SELECT count(*) FROM "+table(tenant, r)).Scan(&n)
	if storage.IsUndefinedTable(err) {
		return 0, nil
	}
	return n, err
}

func table(tenant string, r *Resource) string {
	t := "instance"
	if r == Authorities {
		t = "authority"
	}
	return storage.SchemaName(tenant, inventorySchema) + "." + t
}

// Reindex reads every record of r in id order (keyset pages), builds the
// documents and sends them with Workers concurrent _bulk requests. It
// returns the number of records indexed. A tenant without an authority
// table has no authorities: 0, not an error.
func (ix *Indexer) Reindex(ctx context.Context, r *Resource, tenant string, total int64, progress Progress) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type batch struct {
		body []byte
		n    int
	}
	ch := make(chan batch, ix.workers())
	var done atomic.Int64
	var wg sync.WaitGroup
	var firstErr error
	var once sync.Once
	fail := func(err error) {
		once.Do(func() { firstErr = err; cancel() })
	}
	for range ix.workers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range ch {
				t := time.Now()
				err := ix.OS.Bulk(ctx, b.body, false)
				ix.bulkNs.Add(int64(time.Since(t)))
				if err != nil {
					fail(err)
					continue
				}
				n := done.Add(int64(b.n))
				if progress != nil {
					progress(n, total)
				}
			}
		}()
	}
	index := IndexName(r.Name, tenant)
	last := "00000000-0000-0000-0000-000000000000"
	ix.readNs.Store(0)
	ix.waitNs.Store(0)
	ix.bulkNs.Store(0)
	for ctx.Err() == nil {
		t := time.Now()
		var body []byte
		var n int
		var err error
		if r == Authorities {
			body, n, last, err = ix.authorityPage(ctx, tenant, index, last)
		} else {
			body, n, last, err = ix.instancePage(ctx, tenant, index, last)
		}
		if err != nil {
			if storage.IsUndefinedTable(err) && r == Authorities {
				break
			}
			fail(err)
			break
		}
		if n == 0 {
			break
		}
		t1 := time.Now()
		ix.readNs.Add(int64(t1.Sub(t)))
		select {
		case ch <- batch{body, n}:
		case <-ctx.Done():
		}
		ix.waitNs.Add(int64(time.Since(t1)))
		if n < ix.page() {
			break
		}
	}
	close(ch)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return done.Load(), firstErr
}

// instancePage reads one keyset page of instances with their holdings and
// items and returns the NDJSON bulk body for it. ORDER BY names the table's
// column: a bare "id" would be the output column id::text, which no index
// serves, so every page would scan and sort the whole table (quadratic).
func (ix *Indexer) instancePage(ctx context.Context, tenant, index, after string) ([]byte, int, string, error) {
	schema := storage.SchemaName(tenant, inventorySchema)
	rows, err := ix.DB.Query(ctx, "SELECT i.id::text, i.jsonb FROM "+schema+".instance i WHERE i.id > $1 ORDER BY i.id LIMIT $2", after, ix.page())
	if err != nil {
		return nil, 0, after, err
	}
	var ids []string
	var docs [][]byte
	for rows.Next() {
		var id string
		var doc []byte
		if err := rows.Scan(&id, &doc); err != nil {
			rows.Close()
			return nil, 0, after, err
		}
		ids = append(ids, id)
		docs = append(docs, doc)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, after, err
	}
	if len(ids) == 0 {
		return nil, 0, after, nil
	}
	body, err := ix.instanceBody(ctx, tenant, index, ids, docs)
	return body, len(ids), ids[len(ids)-1], err
}

// instanceBody joins instances (ids and their jsonb) with their holdings and
// items in two queries and renders the bulk body.
func (ix *Indexer) instanceBody(ctx context.Context, tenant, index string, ids []string, docs [][]byte) ([]byte, error) {
	schema := storage.SchemaName(tenant, inventorySchema)
	holdings := make(map[string][]json.RawMessage, len(ids)) // instance id → holdings
	holdingInstance := map[string]string{}                   // holdings id → instance id
	var hids []string
	rows, err := ix.DB.Query(ctx, "SELECT h.id::text, h.instanceid::text, h.jsonb FROM "+schema+".holdings_record h WHERE h.instanceid = ANY($1::uuid[]) ORDER BY h.id", ids)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id, inst string
		var doc []byte
		if err := rows.Scan(&id, &inst, &doc); err != nil {
			rows.Close()
			return nil, err
		}
		holdings[inst] = append(holdings[inst], doc)
		holdingInstance[id] = inst
		hids = append(hids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	items := make(map[string][]json.RawMessage, len(ids)) // instance id → items
	if len(hids) > 0 {
		rows, err = ix.DB.Query(ctx, "SELECT holdingsrecordid::text, jsonb FROM "+schema+".item WHERE holdingsrecordid = ANY($1::uuid[]) ORDER BY id", hids)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var hid string
			var doc []byte
			if err := rows.Scan(&hid, &doc); err != nil {
				rows.Close()
				return nil, err
			}
			inst := holdingInstance[hid]
			items[inst] = append(items[inst], doc)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	size := 0
	for _, d := range docs {
		size += len(d) + 128
	}
	for _, l := range items {
		for _, d := range l {
			size += len(d) + 1
		}
	}
	buf := make([]byte, 0, size+len(ids)*512)
	for i, id := range ids {
		buf = appendAction(buf, index, id)
		var err error
		if buf, err = appendInstanceDoc(buf, tenant, docs[i], holdings[id], items[id]); err != nil {
			return nil, fmt.Errorf("instance %s: %v", id, err)
		}
		buf = append(buf, '\n')
	}
	return buf, nil
}

func (ix *Indexer) authorityPage(ctx context.Context, tenant, index, after string) ([]byte, int, string, error) {
	rows, err := ix.DB.Query(ctx, "SELECT a.id::text, a.jsonb FROM "+table(tenant, Authorities)+" a WHERE a.id > $1 ORDER BY a.id LIMIT $2", after, ix.page())
	if err != nil {
		return nil, 0, after, err
	}
	defer rows.Close()
	var buf []byte
	n := 0
	for rows.Next() {
		var id string
		var raw []byte
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, 0, after, err
		}
		ds, err := AuthorityDocs(tenant, raw)
		if err != nil {
			return nil, 0, after, fmt.Errorf("authority %s: %v", id, err)
		}
		for _, d := range ds {
			buf = bulkAction(buf, index, d.ID, d.Body)
		}
		n++
		after = id
	}
	return buf, n, after, rows.Err()
}

// IndexInstances re-indexes the given instances now (an inventory change
// such as an item's new status), with refresh so a search that follows sees it.
func (ix *Indexer) IndexInstances(ctx context.Context, tenant string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if err := ix.EnsureIndex(ctx, Instances, tenant, false); err != nil {
		return err
	}
	schema := storage.SchemaName(tenant, inventorySchema)
	rows, err := ix.DB.Query(ctx, "SELECT id::text, jsonb FROM "+schema+".instance WHERE id = ANY($1::uuid[])", ids)
	if err != nil {
		return err
	}
	var found []string
	var docs [][]byte
	for rows.Next() {
		var id string
		var doc []byte
		if err := rows.Scan(&id, &doc); err != nil {
			rows.Close()
			return err
		}
		found = append(found, id)
		docs = append(docs, doc)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(found) == 0 {
		return nil
	}
	body, err := ix.instanceBody(ctx, tenant, IndexName(Instances.Name, tenant), found, docs)
	if err != nil {
		return err
	}
	return ix.OS.Bulk(ctx, body, false)
}

// InstancesOfItems finds the instances of the given items (by their holdings).
func (ix *Indexer) InstancesOfItems(ctx context.Context, tenant string, holdingsIDs []string) ([]string, error) {
	schema := storage.SchemaName(tenant, inventorySchema)
	rows, err := ix.DB.Query(ctx, "SELECT DISTINCT instanceid::text FROM "+schema+".holdings_record WHERE id = ANY($1::uuid[])", holdingsIDs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// TenantRegistered: the tenant is enabled (okapi.tenants); a reindex of any
// other tenant is refused.
func (ix *Indexer) TenantRegistered(ctx context.Context, tenant string) (bool, error) {
	var ok bool
	err := ix.DB.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+storage.TenantsTable+" WHERE id = $1)", tenant).Scan(&ok)
	return ok, err
}
