package main

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// No Docker engine here, so the docker path is checked statically: what the
// image build needs must exist in the build context (the repository root) and
// pass k6/Dockerfile.dockerignore, and base images must be pinned.

func readLines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// ignored applies .dockerignore rules in order (last match wins; "!" keeps);
// a pattern also matches everything under a matching directory.
func ignored(rules []string, p string) bool {
	out := false
	for _, r := range rules {
		keep := strings.HasPrefix(r, "!")
		pat := strings.TrimSuffix(strings.TrimPrefix(r, "!"), "/")
		for q := p; q != "." && q != "/"; q = path.Dir(q) {
			if ok, _ := path.Match(pat, q); ok {
				out = !keep
				break
			}
		}
	}
	return out
}

func TestDockerfileBuildsFromTheRepositoryContext(t *testing.T) {
	lines := readLines(t, "Dockerfile")
	ignore := readLines(t, "Dockerfile.dockerignore")
	root := ".." // docker-compose.yml builds with context: .

	pinned := regexp.MustCompile(`^FROM\s+[\w./-]+:(\d[\w.-]*)(\s+AS\s+\w+)?$`)
	froms, copies := 0, 0
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "FROM "):
			froms++
			if !pinned.MatchString(l) {
				t.Errorf("base image not pinned to a version: %q", l)
			}
		case strings.HasPrefix(l, "COPY ") && !strings.Contains(l, "--from="):
			f := strings.Fields(l)
			for _, src := range f[1 : len(f)-1] {
				copies++
				p := path.Clean(src)
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
					t.Errorf("COPY source %s is not in the build context: %v", src, err)
				}
				if ignored(ignore, p) {
					t.Errorf("COPY source %s is excluded by Dockerfile.dockerignore", src)
				}
			}
		}
	}
	if froms < 2 {
		t.Errorf("want a multi-stage build (builder + runtime), found %d FROM lines", froms)
	}
	if copies == 0 {
		t.Error("no COPY of the sources found")
	}
	// What must stay out of the context (other users' database files, binaries).
	for _, p := range []string{".stack/test/pg/base", "bin/k6", "results/x/summary.json", "k6/Dockerfile"} {
		if !ignored(ignore, p) {
			t.Errorf("%s would be sent to the builder", p)
		}
	}
}

func TestDockerfileGoMatchesGoMod(t *testing.T) {
	var goDirective string
	for _, l := range readLines(t, "go.mod") {
		if strings.HasPrefix(l, "go ") {
			goDirective = strings.TrimPrefix(l, "go ")
		}
	}
	builder := regexp.MustCompile(`^FROM\s+golang:(\d+\.\d+)`)
	for _, l := range readLines(t, "Dockerfile") {
		if m := builder.FindStringSubmatch(l); m != nil {
			if !strings.HasPrefix(goDirective, m[1]) {
				t.Fatalf("builder image Go %s does not match go.mod's go %s", m[1], goDirective)
			}
			return
		}
	}
	t.Fatal("no golang builder stage")
}
