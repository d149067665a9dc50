package engine

import (
	"testing"

	"github.com/ordo-db/ordo/internal/resp"
)

// TestHotConfigFields checks that the typed copies of the limits the
// write commands read per call (SETBIT's and APPEND's proto-max-bulk-len,
// PFADD's hll-sparse-max-bytes, the set, hash and sorted-set encoding
// limits) hold what Config.Int reads by name, at start and after CONFIG
// SET through an alias and with a unit, so that a command sees the
// limit a client set.
func TestHotConfigFields(t *testing.T) {
	e := New(nil)
	defer e.Close()
	check := func(when string) {
		t.Helper()
		hs := e.Config.hot()
		for _, f := range []struct {
			name string
			got  int64
		}{
			{"proto-max-bulk-len", hs.protoMaxBulkLen},
			{"hll-sparse-max-bytes", hs.hllSparseMaxBytes},
			{"set-max-intset-entries", hs.setMaxIntsetEntries},
			{"hash-max-listpack-entries", hs.hashMaxEntries},
			{"hash-max-listpack-value", hs.hashMaxValue},
			{"zset-max-listpack-entries", hs.zsetMaxEntries},
			{"zset-max-listpack-value", hs.zsetMaxValue},
		} {
			if want := e.Config.Int(f.name); f.got != want || want == 0 {
				t.Errorf("%s: %s is %d in the snapshot, Config.Int says %d", when, f.name, f.got, want)
			}
		}
	}
	check("defaults")
	cl := e.NewClient("test")
	w := &resp.Writer{Proto: 2}
	for _, kv := range [][2]string{{"proto-max-bulk-len", "2mb"}, {"hll-sparse-max-bytes", "1000"},
		{"set-max-intset-entries", "7"}, {"hash-max-ziplist-entries", "9"}, {"hash-max-ziplist-value", "1kb"},
		{"zset-max-ziplist-entries", "11"}, {"zset-max-listpack-value", "13"}} {
		w.Reset()
		e.Lock()
		e.Call(cl, [][]byte{[]byte("CONFIG"), []byte("SET"), []byte(kv[0]), []byte(kv[1])}, w)
		e.Unlock()
		if string(w.Buf) != "+OK\r\n" {
			t.Fatalf("CONFIG SET %s %s: %q", kv[0], kv[1], w.Buf)
		}
	}
	check("after CONFIG SET")
	if hs := e.Config.hot(); hs.protoMaxBulkLen != 2<<20 || hs.hashMaxValue != 1024 || hs.zsetMaxEntries != 11 {
		t.Errorf("after CONFIG SET: proto-max-bulk-len %d, hash-max-listpack-value %d, zset-max-listpack-entries %d",
			hs.protoMaxBulkLen, hs.hashMaxValue, hs.zsetMaxEntries)
	}
}
