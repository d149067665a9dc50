package redistest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// SentinelPath finds redis-sentinel (Debian's redis-sentinel package), or
// returns "".
func SentinelPath() string {
	if p := os.Getenv("REDIS_SENTINEL"); p != "" {
		return p
	}
	p, err := exec.LookPath("redis-sentinel")
	if err != nil {
		return ""
	}
	return p
}

// RequireSentinel fails (in CI) or skips (elsewhere) when redis-sentinel
// is missing, as RequireRedis does for redis-server.
func RequireSentinel(t testing.TB) string {
	t.Helper()
	p := SentinelPath()
	if p == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-sentinel is not installed; scripts/test must install it (apt-get install -y redis-sentinel)")
		}
		t.Skip("redis-sentinel not installed (apt-get install -y redis-sentinel); Sentinel test skipped")
	}
	return p
}

// Sentinel is a redis-sentinel child process on a loopback port.
type Sentinel struct {
	Addr string
	cmd  *exec.Cmd
	dir  string
}

// StartSentinel starts a redis-sentinel on a free loopback port with a
// temporary config file holding the given lines (e.g. "sentinel monitor
// mymaster 127.0.0.1 6400 2"). It is stopped when the test ends.
func StartSentinel(t testing.TB, lines ...string) *Sentinel {
	t.Helper()
	path := RequireSentinel(t)
	dir, err := os.MkdirTemp("", "redistest-sentinel")
	if err != nil {
		t.Fatal(err)
	}
	for attempt := 0; attempt < 5; attempt++ {
		port := FreePort(t)
		conf := fmt.Sprintf("port %d\nbind 127.0.0.1\ndaemonize no\nlogfile %q\ndir %q\n%s\n",
			port, filepath.Join(dir, "sentinel.log"), dir, strings.Join(lines, "\n"))
		file := filepath.Join(dir, "sentinel.conf")
		if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(path, file)
		SetPdeathsig(cmd)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if waitListening(addr, 3*time.Second) && listenerPID(addr, nil) == cmd.Process.Pid {
			s := &Sentinel{Addr: addr, cmd: cmd, dir: dir}
			t.Cleanup(s.Stop)
			return s
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
	t.Fatal("redistest: redis-sentinel did not start")
	return nil
}

// Log returns the sentinel's log so far (for failure messages).
func (s *Sentinel) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "sentinel.log"))
	return string(b)
}

// Stop kills the sentinel and removes its directory.
func (s *Sentinel) Stop() {
	if s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
	os.RemoveAll(s.dir)
}
