package search

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Legacy job statuses, as mod-inventory-storage's reindex job reports them.
const (
	LegacyInProgress = "In progress"
	LegacyPublished  = "Ids published"
	LegacyFailed     = "Id publishing failed"
)

// LegacyJob is one reindex of the legacy generation (POST
// /search/index/inventory/reindex), read back at /instance-storage/reindex/{id}.
type LegacyJob struct {
	ID, Tenant, Resource string
	Submitted            time.Time
	published            atomic.Int64
	mu                   sync.Mutex
	status, err          string
	ended                time.Time
}

// View is the job as mod-inventory-storage's get-job-by-id response.
func (j *LegacyJob) View() map[string]any {
	j.mu.Lock()
	defer j.mu.Unlock()
	v := map[string]any{"id": j.ID, "published": j.published.Load(), "jobStatus": j.status,
		"resourceName": j.Resource, "submittedDate": j.Submitted.UTC().Format(timeFormat)}
	if j.err != "" {
		v["error"] = j.err
	}
	return v
}

func (j *LegacyJob) running() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.status == LegacyInProgress
}

const timeFormat = "2006-01-02T15:04:05.000+00:00"

// Entity statuses of the current generation (mod-search's ReindexStatus).
const (
	MergeInProgress  = "MERGE_IN_PROGRESS"
	MergeCompleted   = "MERGE_COMPLETED"
	MergeFailed      = "MERGE_FAILED"
	UploadInProgress = "UPLOAD_IN_PROGRESS"
	UploadCompleted  = "UPLOAD_COMPLETED"
	UploadFailed     = "UPLOAD_FAILED"
)

// EntityStatus is one row of GET /search/index/instance-records/reindex/status.
type EntityStatus struct {
	EntityType            string `json:"entityType"`
	Status                string `json:"status"`
	TotalMergeRanges      int64  `json:"totalMergeRanges"`
	ProcessedMergeRanges  int64  `json:"processedMergeRanges"`
	TotalUploadRanges     int64  `json:"totalUploadRanges"`
	ProcessedUploadRanges int64  `json:"processedUploadRanges"`
	StartTimeMerge        string `json:"startTimeMerge,omitempty"`
	EndTimeMerge          string `json:"endTimeMerge,omitempty"`
	StartTimeUpload       string `json:"startTimeUpload,omitempty"`
	EndTimeUpload         string `json:"endTimeUpload,omitempty"`
}

// fullRun is one tenant's current-generation reindex.
type fullRun struct {
	mu       sync.Mutex
	entities []*EntityStatus // INSTANCE, HOLDINGS, ITEM
	running  bool
}

// Jobs runs reindexes in the background, at most one per tenant and
// resource at a time, and keeps their state for the progress endpoints
// (in memory: a restarted module forgets them, like a lost Kafka offset).
type Jobs struct {
	ix     *Indexer
	base   context.Context
	mu     sync.Mutex
	legacy map[string]*LegacyJob // by id
	active map[string]*LegacyJob // by tenant/resource, while running
	full   map[string]*fullRun   // by tenant
}

// NewJobs: jobs run until base is cancelled (the module's shutdown).
func NewJobs(base context.Context, ix *Indexer) *Jobs {
	return &Jobs{ix: ix, base: base, legacy: map[string]*LegacyJob{}, active: map[string]*LegacyJob{}, full: map[string]*fullRun{}}
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// StartLegacy starts (or, when one runs for the tenant and resource, returns)
// a legacy reindex job.
func (js *Jobs) StartLegacy(tenant string, r *Resource, recreate bool) *LegacyJob {
	js.mu.Lock()
	defer js.mu.Unlock()
	key := tenant + "/" + r.Name
	if j, ok := js.active[key]; ok && j.running() {
		return j
	}
	j := &LegacyJob{ID: newID(), Tenant: tenant, Resource: r.Name, Submitted: time.Now(), status: LegacyInProgress}
	js.legacy[j.ID] = j
	js.active[key] = j
	go func() {
		n, err := js.run(tenant, r, recreate, func(done, _ int64) { j.published.Store(done) })
		j.mu.Lock()
		defer j.mu.Unlock()
		j.published.Store(n)
		j.ended = time.Now()
		if err != nil {
			j.status, j.err = LegacyFailed, err.Error()
			slog.Error("reindex failed", "tenant", tenant, "resource", r.Name, "err", err)
			return
		}
		j.status = LegacyPublished
		slog.Info("reindex done", "tenant", tenant, "resource", r.Name, "records", n, "seconds", time.Since(j.Submitted).Seconds())
	}()
	return j
}

// Legacy returns a legacy job by id.
func (js *Jobs) Legacy(id string) (*LegacyJob, bool) {
	js.mu.Lock()
	defer js.mu.Unlock()
	j, ok := js.legacy[id]
	return j, ok
}

func (js *Jobs) run(tenant string, r *Resource, recreate bool, progress Progress) (int64, error) {
	ctx := js.base
	t0 := time.Now()
	if err := js.ix.EnsureIndex(ctx, r, tenant, recreate); err != nil {
		return 0, err
	}
	total, err := js.ix.Count(ctx, r, tenant)
	if err != nil {
		return 0, err
	}
	t1 := time.Now()
	n, err := js.ix.Reindex(ctx, r, tenant, total, progress)
	t2 := time.Now()
	defer func() {
		read, wait, bulk := js.ix.PhaseSeconds()
		slog.Info("reindex phases", "read_s", read, "wait_s", wait, "bulk_s", bulk, "tenant", tenant, "resource", r.Name, "prepare_s", t1.Sub(t0).Seconds(),
			"load_s", t2.Sub(t1).Seconds(), "finish_s", time.Since(t2).Seconds(), "docs_per_s", float64(n)/t2.Sub(t1).Seconds())
	}()
	// Refreshes are restored even after a failure, so the index stays usable.
	if recreate {
		if ferr := js.ix.FinishRecreate(context.WithoutCancel(ctx), r, tenant); err == nil {
			err = ferr
		}
	} else if err == nil {
		err = js.ix.OS.Refresh(ctx, IndexName(r.Name, tenant))
	}
	return n, err
}

// StartFull starts the current generation's full reindex of a tenant's
// instance records: the index is recreated and rebuilt. It reports
// false when one is already running.
func (js *Jobs) StartFull(tenant string) bool {
	js.mu.Lock()
	run, ok := js.full[tenant]
	if ok {
		run.mu.Lock()
		busy := run.running
		run.mu.Unlock()
		if busy {
			js.mu.Unlock()
			return false
		}
	}
	run = &fullRun{running: true}
	js.full[tenant] = run
	js.mu.Unlock()

	now := time.Now().UTC().Format(timeFormat)
	inst := &EntityStatus{EntityType: "INSTANCE", Status: MergeInProgress, StartTimeMerge: now}
	hold := &EntityStatus{EntityType: "HOLDINGS", Status: MergeInProgress, StartTimeMerge: now}
	item := &EntityStatus{EntityType: "ITEM", Status: MergeInProgress, StartTimeMerge: now}
	run.entities = []*EntityStatus{inst, hold, item}
	go func() {
		ctx := js.base
		total, err := js.ix.Count(ctx, Instances, tenant)
		page := int64(js.ix.page())
		ranges := (total + page - 1) / page
		run.mu.Lock()
		for _, e := range run.entities {
			e.TotalMergeRanges = ranges
		}
		inst.TotalUploadRanges = ranges
		// mod-search merges holdings and items into its staging tables before
		// uploading instances; minifolio joins them per page of instances, so
		// the three move together and the merge ends when the upload does.
		inst.Status, inst.StartTimeUpload = UploadInProgress, now
		run.mu.Unlock()
		var n int64
		if err == nil {
			n, err = js.run(tenant, Instances, true, func(done, _ int64) {
				p := min((done+page-1)/page, ranges)
				run.mu.Lock()
				for _, e := range run.entities {
					e.ProcessedMergeRanges = p
				}
				inst.ProcessedUploadRanges = p
				run.mu.Unlock()
			})
		}
		end := time.Now().UTC().Format(timeFormat)
		run.mu.Lock()
		defer run.mu.Unlock()
		run.running = false
		for _, e := range []*EntityStatus{hold, item} {
			e.EndTimeMerge = end
			e.Status = MergeCompleted
			if err != nil {
				e.Status = MergeFailed
			}
		}
		inst.EndTimeMerge, inst.EndTimeUpload = end, end
		inst.Status = UploadCompleted
		if err != nil {
			inst.Status = UploadFailed
			slog.Error("full reindex failed", "tenant", tenant, "err", err)
			return
		}
		slog.Info("full reindex done", "tenant", tenant, "instances", n)
	}()
	return true
}

// FullStatus is the tenant's last full reindex, as the status endpoint lists it.
func (js *Jobs) FullStatus(tenant string) []EntityStatus {
	js.mu.Lock()
	run, ok := js.full[tenant]
	js.mu.Unlock()
	out := []EntityStatus{}
	if !ok {
		return out
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	for _, e := range run.entities {
		out = append(out, *e)
	}
	return out
}
