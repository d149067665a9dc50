package aof

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A restart of the log after a replica's full sync whose rewrite fails
// (its base cannot be renamed into place) is retried from a new T0, as
// Redis's AOF_WAIT_REWRITE schedules another rewrite; the changes made
// all along are in the log once it succeeds, and the failed attempt's
// incremental file is gone.
func TestRestartAfterSyncRetries(t *testing.T) {
	dir := t.TempDir()
	in := mustOpen(t, dir)
	for i := range 2000 {
		in.do("SET", "a:"+strconv.Itoa(i), strings.Repeat("v", i%50))
	}
	seq := in.a.man.maxSeq() + 2
	block := filepath.Join(dir, "appendonlydir", in.a.baseName(seq))
	if err := os.MkdirAll(filepath.Join(block, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	in.e.Lock()
	err := in.a.RestartAfterSync()
	in.e.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for i := 0; in.a.rewrites.Load() == 0; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("no rewrite completed within a minute; log:\n%s", in.log)
		}
		if i < 20000 {
			in.do("INCR", "c")
			in.do("SET", "b:"+strconv.Itoa(i), strconv.Itoa(i))
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if !strings.Contains(in.log.String(), "Background AOF rewrite failed") {
		t.Fatalf("the first rewrite did not fail; log:\n%s", in.log)
	}
	if !in.a.lastRewriteOK.Load() || in.a.rewriteFailures.Load() != 0 || in.a.rewriteScheduled.Load() {
		t.Fatalf("after the retry: ok %v, failures %d, scheduled %v", in.a.lastRewriteOK.Load(), in.a.rewriteFailures.Load(), in.a.rewriteScheduled.Load())
	}
	if _, err := os.Stat(filepath.Join(dir, "appendonlydir", in.a.incrName(seq))); !os.IsNotExist(err) {
		t.Fatalf("the failed attempt's incremental file: %v", err)
	}
	if got := in.a.man.incrs; len(got) != 1 || got[0] != in.a.incrName(seq+1) {
		t.Fatalf("manifest lists %v", got)
	}
	os.RemoveAll(block)
	want := dump(in.e)
	in.close(t, false)
	in = mustOpen(t, dir)
	defer in.close(t, false)
	if got := dump(in.e); got != want {
		t.Fatalf("after reopening, the data set differs:\n%.2000s\nwant\n%.2000s", got, want)
	}
}
