package main

import (
	"bytes"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestMain runs the real main when re-executed by runServer.
func TestMain(m *testing.M) {
	if os.Getenv("ORDO_SERVER_TEST_MAIN") == "1" {
		os.Args = append([]string{"ordo-server"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runServer runs `ordo-server args...` in a temporary directory and
// returns its stdout, stderr and exit status.
func runServer(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "ORDO_SERVER_TEST_MAIN=1")
	cmd.Dir = t.TempDir()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("ordo-server %q did not exit within 30 s (did it start serving?)", args)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestHelpAndVersion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "Usage: ordo-server [/path/to/ordo.conf]"},
		{[]string{"-h"}, "Usage: ordo-server [/path/to/ordo.conf]"},
		{[]string{"-help"}, "Usage: ordo-server [/path/to/ordo.conf]"},
		// As redis-server, the first argument decides.
		{[]string{"--help", "--port", "1"}, "Usage: ordo-server [/path/to/ordo.conf]"},
		{[]string{"--version"}, "Ordo server v="},
		{[]string{"-v"}, "Ordo server v="},
		{[]string{"-v", "--port", "1"}, "Ordo server v="},
	} {
		out, errs, code := runServer(t, tc.args...)
		if code != 0 || !strings.HasPrefix(out, tc.want) || errs != "" {
			t.Errorf("ordo-server %q: status %d, stdout %q, stderr %q; want status 0 and stdout starting %q",
				tc.args, code, out, errs, tc.want)
		}
	}
}

// An unknown single-dash option is an error, not a config file name.
func TestDashArgumentIsNotAFile(t *testing.T) {
	_, errs, code := runServer(t, "-x")
	if code != 1 || !strings.Contains(errs, `unexpected argument "-x"`) || strings.Contains(errs, "open") {
		t.Errorf("ordo-server -x: status %d, stderr %q; want status 1 and an unexpected-argument error", code, errs)
	}
}

// --rdb-import refuses to start on a missing or corrupt file.
func TestRDBImportErrors(t *testing.T) {
	bad := t.TempDir() + "/bad.rdb"
	if err := os.WriteFile(bad, []byte("REDIS0010\xfa"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--port", "0", "--rdb-import"}, "--rdb-import needs a file name"},
		{[]string{"--port", "0", "--appendonly", "no", "--rdb-import", "/nonexistent/dump.rdb"}, "rdb-import: open /nonexistent/dump.rdb"},
		{[]string{"--port", "0", "--appendonly", "no", "--rdb-import", bad}, "unexpected end of data"},
	} {
		_, errs, code := runServer(t, tc.args...)
		if code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("ordo-server %q: status %d, stderr %q; want status 1 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// ordo-server collects at GOGC=30 unless the environment sets GOGC, which
// it then leaves alone.
func TestGCPercent(t *testing.T) {
	old := debug.SetGCPercent(50)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "200")
	os.Unsetenv("GOGC")
	if !setGCPercent() || debug.SetGCPercent(50) != 100 {
		t.Fatal("without GOGC: not tuned, or not starting at Go's 100")
	}
	t.Setenv("GOGC", "50")
	if setGCPercent() || debug.SetGCPercent(50) != 50 {
		t.Fatal("with GOGC=50: tuned anyway, or the percent changed")
	}
	// At least gcMinHeadroom (16 MiB) of headroom, between 30 and 100.
	for _, c := range []struct {
		live uint64
		want int
	}{{0, 100}, {4 << 20, 100}, {16 << 20, 100}, {32 << 20, 50}, {64 << 20, 30}, {1 << 30, 30}} {
		if got := gcPercentFor(c.live); got != c.want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}
