package search_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestRedisPyFT runs redis-py's search API (r.ft()) against Ordo. It needs
// python3 with redis-py (Debian's python3-redis, which scripts/test
// installs): it skips without it, and fails in CI.
func TestRedisPyFT(t *testing.T) {
	// The first python3 on PATH may be another installation (pyenv) than
	// Debian's, which python3-redis serves.
	py := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import redis").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 with redis-py is not installed; scripts/test must install python3-redis")
		}
		t.Skip("python3 with redis-py not installed (apt-get install -y python3-redis)")
	}
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
