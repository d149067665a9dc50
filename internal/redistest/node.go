package redistest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// NodeDir returns test/node, the directory of the Node.js client scripts,
// once node and its npm packages (npm ci, run by scripts/test) are there.
// It fails in CI and skips elsewhere when they are missing.
func NodeDir(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "test", "node")
	_, err := exec.LookPath("node")
	for _, pkg := range []string{"ioredis", "redis"} {
		if err == nil {
			_, err = os.Stat(filepath.Join(dir, "node_modules", pkg))
		}
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node or test/node's npm packages are missing (%v); scripts/test must install them", err)
		}
		t.Skipf("node clients not installed (npm ci --prefix test/node): %v", err)
	}
	return dir
}
