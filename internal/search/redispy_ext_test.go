package search_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestRedisPyFTAggregate runs redis-py's aggregation, cursor,
// suggestion, alias, synonym, dictionary, explain, profile and config API
// (testdata/redispy_ftagg.py) against Ordo.
func TestRedisPyFTAggregate(t *testing.T) {
	py := redistest.RedisPy(t)
	_, o := newClient(t)
	port := o.Addr[strings.LastIndexByte(o.Addr, ':')+1:]
	out, err := exec.Command(py, "testdata/redispy_ftagg.py", port).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("redispy_ftagg.py: %v\n%s", err, out)
	}
}
