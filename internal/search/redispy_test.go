package search_test

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestRedisPyFT runs redis-py's search API (r.ft()) against Ordo. It needs
// python3 with redis-py (Debian's python3-redis, which scripts/test
// installs): it skips without it, and fails in CI.
func TestRedisPyFT(t *testing.T) {
	py := redistest.RedisPy(t)
	_, o := newClient(t)
	port := o.Addr[strings.LastIndexByte(o.Addr, ':')+1:]
	if _, err := strconv.Atoi(port); err != nil {
		t.Fatal(o.Addr)
	}
	out, err := exec.Command(py, "testdata/redispy_ft.py", port).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("redispy_ft.py: %v\n%s", err, out)
	}
}
