//go:build !ordo_pprof

package main

import (
	"strings"
	"testing"
)

// Without -tags ordo_pprof, ORDO_PPROF says how to get profiling instead
// of being ignored silently.
func TestPprofNeedsBuildTag(t *testing.T) {
	t.Setenv("ORDO_PPROF", "127.0.0.1:0")
	_, errs, code := runServer(t, "--port", "0", "--appendonly", "no", "--rdb-import", "/nonexistent/dump.rdb")
	if code != 1 || !strings.Contains(errs, "ORDO_PPROF=127.0.0.1:0 ignored") || !strings.Contains(errs, "-tags ordo_pprof") {
		t.Errorf("ORDO_PPROF without the tag: status %d, stderr %q; want the message naming -tags ordo_pprof", code, errs)
	}
}
