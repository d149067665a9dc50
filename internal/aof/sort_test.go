package aof

import (
	"strconv"
	"strings"
	"testing"
)

// TestSortStoreSurvivesRestart: SORT ... STORE is logged as its result
// (DEL and RPUSH batches, one transaction), so replaying the log rebuilds
// the same lists even after the weights changed; inside MULTI and a
// script the records join the enclosing transaction.
func TestSortStoreSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	in := mustOpen(t, dir)
	args := []string{"RPUSH", "l"}
	for i := 0; i < 2500; i++ {
		args = append(args, strconv.Itoa((i*7919)%2503))
		in.do("SET", "w_"+strconv.Itoa(i), strconv.Itoa(i%7))
	}
	in.do(args...)
	in.do("SET", "d1", "old")
	in.do("SORT", "l", "STORE", "d1")
	in.do("SORT", "l", "BY", "w_*", "DESC", "LIMIT", "10", "2000", "STORE", "d2")
	in.do("MULTI")
	in.do("SORT", "l", "ALPHA", "STORE", "d3")
	in.do("SORT", "nokey", "STORE", "d1")
	in.do("EXEC")
	in.do("SADD", "s", "b", "a", "c")
	in.do("SORT", "s", "BY", "nosort", "STORE", "d4")
	in.do("SET", "w_1", "100") // after the sort: the stored list stays
	want := dump(in.e)
	if !strings.Contains(want, "d2") || strings.Contains(want, "d1") {
		t.Fatalf("unexpected data set: %.300s", want)
	}
	in.close(t, false)
	in2 := mustOpen(t, dir)
	if got := dump(in2.e); got != want {
		t.Fatalf("after restart:\n%s", diffLines(got, want))
	}
	in2.close(t, false)
}
