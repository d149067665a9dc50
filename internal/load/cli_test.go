package load_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/load"
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
