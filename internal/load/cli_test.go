package load_test

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/load"
	"github.com/ordo-db/ordo/internal/redistest"
)

// --help, -help and a bare -h print the usage on stdout with status 0;
// -h followed by a value is the host (and "-a -h" is a password).
func TestLoadMainHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		help bool
	}{
		{[]string{"--help"}, true},
		{[]string{"-help"}, true},
		{[]string{"-h"}, true},
		{[]string{"-q", "-h"}, true},
		{[]string{"-p", "1", "-h"}, true},
		{[]string{"-h=127.0.0.1", "-p", "1"}, false},
		{[]string{"-h", "127.0.0.1", "-p", "1"}, false},
		{[]string{"-p", "1", "-a", "-h"}, false},
		{[]string{"-p", "1", "-", "-h", "127.0.0.1"}, false},
	} {
		var out, errb bytes.Buffer
		code := load.LoadMain(tc.args, strings.NewReader(""), &out, &errb)
		gotHelp := strings.HasPrefix(out.String(), "usage: ordo load")
		if gotHelp != tc.help || (tc.help && (code != 0 || errb.Len() != 0)) {
			t.Errorf("LoadMain(%q): status %d, stdout %q, stderr %q; help wanted: %v", tc.args, code, out.String(), errb.String(), tc.help)
		}
		if !tc.help && code == 0 {
			t.Errorf("LoadMain(%q) succeeded against port 1", tc.args)
		}
	}
}

func TestGenMainHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-help"}, {"-h"}, {"--cmd", "SET {a} {b}", "-h"}} {
		var out, errb bytes.Buffer
		code := load.GenMain(args, strings.NewReader(""), &out, &errb)
		if code != 0 || !strings.HasPrefix(out.String(), "usage: ordo gen") || errb.Len() != 0 {
			t.Errorf("GenMain(%q): status %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
	}
}

// /dev/null is a character device but not a terminal: a cron job or CI
// log that sends stdout there and stderr to a file must get no progress
// line (escape codes) in the file.
func TestProgressOnlyOnTerminals(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if load.IsTerminal(null) {
		t.Errorf("IsTerminal(%s) = true", os.DevNull)
	}
	logf, err := os.Create(filepath.Join(t.TempDir(), "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	if load.IsTerminal(logf) {
		t.Error("IsTerminal(regular file) = true")
	}
	o := redistest.StartOrdo(t)
	host, port, _ := net.SplitHostPort(o.Addr)
	var in strings.Builder
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&in, "SET k%d v\n", i)
	}
	if code := load.LoadMain([]string{"-h", host, "-p", port}, strings.NewReader(in.String()), null, logf); code != 0 {
		t.Fatalf("status %d", code)
	}
	b, err := os.ReadFile(logf.Name())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(b, "\x1b\r") {
		t.Errorf("stderr (a file) got terminal control codes: %q", b)
	}
}
