package redistest

import (
	"os"
	"os/exec"
	"testing"
)

// RedisPy finds a python3 that imports redis-py (Debian's python3-redis,
// installed by scripts/test; the first python3 on PATH may be another
// installation, such as pyenv's, so Debian's is tried too). It fails in
// CI and skips elsewhere when there is none.
func RedisPy(t testing.TB) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import redis").Run() == nil {
			return py
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("redis-py is not installed; scripts/test must install it (apt-get install -y python3-redis)")
	}
	t.Skip("redis-py not installed (apt-get install -y python3-redis)")
	return ""
}
