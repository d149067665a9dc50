package lock_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBinarySize builds two small programs that take and release a lock
// over go-redis, one with this package (through backend/goredis), one
// with go-redis alone (testdata/sizes), and requires the first to be at
// most 10% larger: lock must not drag the embedded engine, its Lua
// interpreter or its AOF into programs that only want a lock.
func TestBinarySize(t *testing.T) {
	goCmd, err := exec.LookPath("go") // go test puts its own on PATH
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	dir := t.TempDir()
	size := func(name string) int64 {
		out := filepath.Join(dir, name)
		cmd := exec.Command(goCmd, "build", "-o", out, "./testdata/sizes/"+name)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", name, err, b)
		}
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	withLock, alone := size("lockgoredis"), size("goredisonly")
	ratio := float64(withLock) / float64(alone)
	t.Logf("lock over go-redis: %d bytes; go-redis alone: %d bytes; ratio %.3f", withLock, alone, ratio)
	if ratio > 1.10 {
		t.Errorf("a lock-only program is %.1f%% larger than go-redis alone (limit 10%%): %d vs %d bytes",
			100*(ratio-1), withLock, alone)
	}
}
