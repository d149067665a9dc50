package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestMain runs the real main when re-executed by runOrdo, so the tests
// see the exit status and the output of the command itself.
func TestMain(m *testing.M) {
	if os.Getenv("ORDO_CMD_TEST_MAIN") == "1" {
		os.Args = append([]string{"ordo"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type result struct {
	stdout, stderr string
	code           int
}

// runOrdo runs `ordo args...` (this test binary, re-executed into main).
func runOrdo(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "ORDO_CMD_TEST_MAIN=1")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("ordo %q did not finish within 60 s", args)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the usage's first line starts so
	}{
		{[]string{"--help"}, "usage: ordo <command>"},
		{[]string{"-h"}, "usage: ordo <command>"},
		{[]string{"-help"}, "usage: ordo <command>"},
		{[]string{"help"}, "usage: ordo <command>"},
		{[]string{"help", "load"}, "usage: ordo load"},
		{[]string{"help", "gen"}, "usage: ordo gen"},
		{[]string{"help", "bench"}, "usage: ordo bench"},
		{[]string{"load", "--help"}, "usage: ordo load"},
		{[]string{"load", "-help"}, "usage: ordo load"},
		{[]string{"load", "-h"}, "usage: ordo load"},
		{[]string{"load", "-p", "6390", "-h"}, "usage: ordo load"},
		{[]string{"load", "in.txt", "--help"}, "usage: ordo load"},
		{[]string{"gen", "--help"}, "usage: ordo gen"},
		{[]string{"gen", "-h"}, "usage: ordo gen"},
		{[]string{"gen", "--cmd", "SET {a} {b}", "--help"}, "usage: ordo gen"},
		{[]string{"bench", "--help"}, "usage: ordo bench"},
		{[]string{"bench", "-h"}, "usage: ordo bench"},
	} {
		r := runOrdo(t, "", tc.args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, tc.want) || r.stderr != "" {
			t.Errorf("ordo %q: status %d, stdout %q, stderr %q; want status 0 and stdout starting %q",
				tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
}

// Mistakes still fail with status 2 and the usage on stderr.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage: ordo <command>"},
		{[]string{"nosuchcommand"}, `unknown command "nosuchcommand"`},
		{[]string{"bench", "-nosuchflag"}, "usage: ordo bench"},
		{[]string{"bench", "extra"}, `unexpected argument "extra"`},
		{[]string{"load", "-nosuchflag"}, "usage: ordo load"},
		{[]string{"gen"}, "usage: ordo gen"},
	} {
		r := runOrdo(t, "", tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("ordo %q: status %d, stdout %q, stderr %q; want status 2 and stderr containing %q",
				tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
}

// -h with a value is the host, as in redis-cli, not a request for help.
func TestLoadHostFlag(t *testing.T) {
	o := redistest.StartOrdo(t)
	host, port, err := net.SplitHostPort(o.Addr)
	if err != nil {
		t.Fatal(err)
	}
	r := runOrdo(t, "SET cmdtest:k v1\n", "load", "-h", host, "-p", port, "-q")
	if r.code != 0 || strings.Contains(r.stdout, "usage") {
		t.Fatalf("ordo load -h %s -p %s: status %d, stdout %q, stderr %q", host, port, r.code, r.stdout, r.stderr)
	}
	// Flags in another order, and after the file argument "-".
	r = runOrdo(t, "SET cmdtest:k2 v2\n", "load", "-q", "-p", port, "-", "-h", host)
	if r.code != 0 {
		t.Fatalf("ordo load -p %s - -h %s: status %d, stdout %q, stderr %q", port, host, r.code, r.stdout, r.stderr)
	}
	c := redistest.Dial(t, o.Addr)
	defer c.Close()
	for k, want := range map[string]string{"cmdtest:k": "v1", "cmdtest:k2": "v2"} {
		if v := c.Do("GET", k); v.Str != want {
			t.Errorf("GET %s = %q after ordo load, want %q", k, v.Str, want)
		}
	}
	// Another host on the same port: the value of -h is what load dials.
	if host == "127.0.0.1" {
		r = runOrdo(t, "SET cmdtest:k3 v3\n", "load", "-h", "127.0.0.2", "-p", port, "-q", "-pipe-timeout", "5")
		if r.code == 0 || !strings.Contains(r.stderr, "127.0.0.2:"+port) {
			t.Errorf("ordo load -h 127.0.0.2: status %d, stderr %q; want a failure to reach 127.0.0.2:%s", r.code, r.stderr, port)
		}
	}
}
