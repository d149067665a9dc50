package aof

import (
	"strconv"
	"testing"
)

// TestBitmapHLLSurviveRestart: values written by the bit and HyperLogLog
// commands (raw strings, cached cardinalities, sparse and dense HLLs)
// come back byte for byte, from the replayed log and from a snapshot.
func TestBitmapHLLSurviveRestart(t *testing.T) {
	for _, snapshot := range []bool{false, true} {
		dir := t.TempDir()
		in := mustOpen(t, dir)
		in.do("SETBIT", "bm", "100", "1")
		in.do("SETBIT", "bm", "3", "1")
		in.do("BITFIELD", "bf", "SET", "i16", "#2", "-1234", "INCRBY", "u8", "0", "300")
		in.do("BITFIELD", "new", "OVERFLOW", "FAIL", "SET", "u2", "40", "9")
		in.do("BITOP", "XOR", "x", "bm", "bf")
		in.do("PFADD", "sparse", "a", "b", "c")
		in.do("PFCOUNT", "sparse") // stores the cache
		for i := 0; i < 3000; i += 100 {
			args := []string{"PFADD", "dense"}
			for j := i; j < i+100; j++ {
				args = append(args, strconv.Itoa(j))
			}
			in.do(args...)
		}
		in.do("PFMERGE", "m", "sparse", "dense")
		in.do("PFDEBUG", "TODENSE", "sparse")
		want := map[string]string{}
		for _, k := range []string{"bm", "bf", "new", "x", "sparse", "dense", "m"} {
			want[k] = in.do("GET", k)
		}
		in.close(t, snapshot)
		in2 := mustOpen(t, dir)
		for k, w := range want {
			if got := in2.do("GET", k); got != w {
				t.Errorf("snapshot=%v: GET %s after restart = %q, want %q", snapshot, k, got, w)
			}
		}
		in2.close(t, false)
	}
}
