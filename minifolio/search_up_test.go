package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"context"
	"github.com/folio-perf/folio-perf/minifolio/internal/procs"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
	"github.com/folio-perf/folio-perf/minifolio/internal/storage/storagetest"
)

// TestUpWithOpenSearch: `up --opensearch` adds the mod-search process on the
// gateway's port + 10, and a reindex and a search work through the real
// gateway with a real token; bad settings fail with one line.
func TestUpWithOpenSearch(t *testing.T) {
	dsn := storagetest.DSN(t)
	osURL := os.Getenv("FP_OPENSEARCH_URL")
	if osURL == "" {
		if os.Getenv("FP_REQUIRE_STACK") != "" {
			t.Fatal("FP_OPENSEARCH_URL is not set but FP_REQUIRE_STACK is: start OpenSearch and export FP_OPENSEARCH_URL")
		}
		t.Skip("FP_OPENSEARCH_URL not set")
	}
	pool := storagetest.Pool(t)
	bin := buildBinary(t)
	tenant := storagetest.TenantName("upsearch")
	t.Cleanup(func() { _ = storage.DropTenant(context.Background(), pool, tenant) })
	env := []string{"MINIFOLIO_DB=" + dsn, "MINIFOLIO_PROFILES=" + filepath.Join(mustGetwd(t), "profiles"), "FP_OPENSEARCH_URL="}

	if r := runBin(t, bin, env, "up", "--opensearch", "127.0.0.1:9200", "--run-dir", t.TempDir()); r.code != 1 ||
		!strings.Contains(r.stderr, `invalid --opensearch "127.0.0.1:9200"`) || !strings.Contains(r.stderr, "http://127.0.0.1:9200") {
		t.Fatalf("up with a bad --opensearch: %+v", r)
	}
	if r := runBin(t, bin, env, "serve", "--module", "mod-search", "--port", "1"); r.code != 1 || !strings.Contains(r.stderr, "mod-search needs OpenSearch") {
		t.Fatalf("serve mod-search without OpenSearch: %+v", r)
	}

	if r := runBin(t, bin, env, "seed", "--tenant", tenant, "--items", "150", "--users", "5", "--quiet"); r.code != 0 {
		t.Fatalf("seed: %+v", r)
	}
	base := freeBase(t)
	runDir := t.TempDir()
	r := runBin(t, bin, env, "up", "--port", fmt.Sprint(base), "--run-dir", runDir, "--opensearch", osURL)
	if r.code != 0 || !strings.Contains(r.stdout, "11 modules") {
		t.Fatalf("up --opensearch: %+v", r)
	}
	t.Cleanup(func() { runBin(t, bin, nil, "down", "--run-dir", runDir) })
	d := procs.Dir(runDir)
	if !procs.Ours(d.ReadPid("mod-search"), markers(d, "mod-search")...) || !procs.Healthy(context.Background(), base+10) {
		t.Fatal("mod-search is not running on the gateway port + 10")
	}
	if r := runBin(t, bin, env, "status", "--run-dir", runDir); r.code != 0 || !strings.Contains(r.stdout, "mod-search") {
		t.Fatalf("status: %+v", r)
	}

	gw := fmt.Sprintf("http://127.0.0.1:%d", base)
	call := func(method, path, body, token string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, gw+path, strings.NewReader(body))
		req.Header.Set("X-Okapi-Tenant", tenant)
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("X-Okapi-Token", token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		if resp.Header.Get("X-Okapi-Token") != "" {
			m = map[string]any{"token": resp.Header.Get("X-Okapi-Token")}
		}
		return resp.StatusCode, m
	}
	_, login := call("POST", "/authn/login", `{"username":"folio_admin","password":"admin"}`, "")
	tok, _ := login["token"].(string)
	if tok == "" {
		t.Fatal("no token")
	}
	t.Cleanup(func() { _ = deleteIndex(osURL, "folio_instance_"+tenant) })
	st, job := call("POST", "/search/index/inventory/reindex", `{"recreateIndex":true,"resourceName":"instance"}`, tok)
	if st != 200 || job["jobStatus"] != "In progress" {
		t.Fatalf("reindex through the gateway: %d %v", st, job)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, p := call("GET", "/instance-storage/reindex/"+job["id"].(string), "", tok)
		if st != 200 {
			t.Fatalf("progress: %d %v", st, p)
		}
		if p["jobStatus"] == "Ids published" && p["published"] == float64(150) {
			break
		}
		if p["jobStatus"] != "In progress" || time.Now().After(deadline) {
			t.Fatalf("reindex: %v", p)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st, res := call("GET", "/search/instances?query=cql.allRecords%3D1&limit=0", "", tok); st != 200 || res["totalRecords"] != float64(150) {
		t.Fatalf("search through the gateway: %d %v", st, res)
	}
	if st, _ := call("GET", "/search/instances?query=cql.allRecords%3D1", "", ""); st != 400 && st != 401 {
		t.Fatalf("search without a token: %d", st)
	}
	if r := runBin(t, bin, env, "down", "--run-dir", runDir); r.code != 0 || !strings.Contains(r.stdout, "stopped 12 processes") {
		t.Fatalf("down: %+v", r)
	}
}

func deleteIndex(osURL, index string) error {
	req, _ := http.NewRequest("DELETE", osURL+"/"+index, nil)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	return err
}
