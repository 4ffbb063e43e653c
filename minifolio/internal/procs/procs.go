// Package procs starts and stops minifolio's background processes through
// pid files: <run-dir>/<name>.pid and <run-dir>/logs/<name>.log. Telegraf's
// procstat reads the same pid files, so CPU is reported per module. Stopping
// never goes by process name: only a pid whose /proc/<pid>/cmdline is the
// one we started is signalled, so a recycled pid is never killed.
package procs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Spec is one background process.
type Spec struct {
	Name string   // pid/log file base name, e.g. "okapi", "mod-users"
	Args []string // arguments after the executable
	Env  []string // extra KEY=value entries (secrets go here, never in Args)
	Port int      // where it listens; health is GET http://127.0.0.1:Port/admin/health
}

// Dir is a run directory.
type Dir string

func (d Dir) PidFile(name string) string { return filepath.Join(string(d), name+".pid") }
func (d Dir) LogFile(name string) string { return filepath.Join(string(d), "logs", name+".log") }

// Start launches s in its own process group (so a Ctrl-C in the terminal
// that ran `up` does not reach it), with output appended to its log file,
// and writes its pid file.
func (d Dir) Start(exe string, s Spec) (int, error) {
	if err := os.MkdirAll(filepath.Join(string(d), "logs"), 0o755); err != nil {
		return 0, err
	}
	logf, err := os.OpenFile(d.LogFile(s.Name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	cmd := exec.Command(exe, s.Args...)
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	// Reap it if it dies while we still run (no zombie during up's wait);
	// after `up` returns, init adopts it.
	go func() { _ = cmd.Wait() }()
	if err := os.WriteFile(d.PidFile(s.Name), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		_ = cmd.Process.Kill()
		return 0, err
	}
	return pid, nil
}

// ReadPid returns the pid in name's pid file (0 when there is none).
func (d Dir) ReadPid(name string) int {
	b, err := os.ReadFile(d.PidFile(name))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return 0
	}
	return pid
}

// Ours reports whether pid is alive and its command line contains every
// marker (e.g. the executable's "serve" and "--module mod-users").
func Ours(pid int, markers ...string) bool {
	if pid <= 1 {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	cmdline := strings.Join(strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"), " ")
	if isZombie(pid) {
		return false
	}
	for _, m := range markers {
		if !strings.Contains(cmdline, m) {
			return false
		}
	}
	return true
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z'
}

// Stop sends SIGTERM to name's process if it is ours, waits up to grace for
// it to exit (SIGKILL after), and removes the pid file. It reports whether a
// process was stopped.
func (d Dir) Stop(name string, grace time.Duration, markers ...string) (bool, error) {
	pid := d.ReadPid(name)
	defer os.Remove(d.PidFile(name))
	if !Ours(pid, markers...) {
		return false, nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return false, err
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !Ours(pid, markers...) {
			return true, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for i := 0; i < 40 && Ours(pid, markers...); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	return true, nil
}

// PortFree reports whether 127.0.0.1:port can be listened on now.
func PortFree(port int) bool {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// Healthy reports whether GET /admin/health on port answers 200.
func Healthy(ctx context.Context, port int) bool { return HealthyAt(ctx, port, "/admin/health") }

// HealthyAt reports whether GET path on port answers 200.
func HealthyAt(ctx context.Context, port int, path string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// LastLine returns the last non-empty line of a log file (the cause, when a
// process died during start-up).
func LastLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
