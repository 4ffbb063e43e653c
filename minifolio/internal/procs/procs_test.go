package procs

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestOursChecksCmdline(t *testing.T) {
	self := os.Getpid()
	exe := filepath.Base(os.Args[0])
	if !Ours(self, exe) {
		t.Fatalf("own process with marker %q not recognised", exe)
	}
	if Ours(self, exe, "serve --module nothing-like-this") {
		t.Fatal("a marker absent from the command line matched")
	}
	for _, pid := range []int{0, 1, -5} {
		if Ours(pid) {
			t.Errorf("pid %d counted as ours", pid)
		}
	}
}

func TestPidFilesAndPorts(t *testing.T) {
	d := Dir(t.TempDir())
	if d.ReadPid("x") != 0 {
		t.Fatal("missing pid file read as a pid")
	}
	for content, want := range map[string]int{"123\n": 123, "garbage": 0, "1": 0} {
		_ = os.WriteFile(d.PidFile("x"), []byte(content), 0o644)
		if got := d.ReadPid("x"); got != want {
			t.Errorf("pid file %q: %d, want %d", content, got, want)
		}
	}
	// A pid file pointing at a process that is not ours is removed, nothing signalled.
	_ = os.WriteFile(d.PidFile("y"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	if stopped, err := d.Stop("y", 0, "serve --module y --port"); stopped || err != nil {
		t.Fatalf("Stop signalled a foreign process: %v %v", stopped, err)
	}
	if _, err := os.Stat(d.PidFile("y")); !os.IsNotExist(err) {
		t.Fatal("stale pid file kept")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if PortFree(port) {
		t.Fatal("a listening port reported free")
	}
	ln.Close()
	if !PortFree(port) {
		t.Fatal("a closed port reported taken")
	}
	log := filepath.Join(string(d), "l.log")
	_ = os.WriteFile(log, []byte("first\nlast cause\n\n"), 0o644)
	if LastLine(log) != "last cause" {
		t.Fatalf("LastLine = %q", LastLine(log))
	}
}
