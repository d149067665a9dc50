package engine_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
)

// TestHashAppendPairs: AppendPairs gives HGETALL's pairs in HGETALL's
// order for both encodings (lengths of one and of two uvarint bytes), one
// hash after another in one builder, and the strings keep their values
// after the hashes are overwritten, shrunk or deleted.
func TestHashAppendPairs(t *testing.T) {
	e := engine.New(engine.NewConfig())
	defer e.Close()
	cl := e.NewClient("embedded")
	do := func(args ...string) string { return callRaw(e, cl, args...) }
	do("CONFIG", "SET", "hash-max-listpack-value", "1000")
	long := strings.Repeat("v", 300) // a two-byte length
	do("HSET", "small", "a", "1", "bb", long, "", "empty", long+"f", "x")
	big := []string{}
	for i := range 600 { // past hash-max-listpack-entries (512): a hashtable
		big = append(big, "f"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('0'+i/26)), strings.Repeat("y", i))
	}
	do(append([]string{"HSET", "big"}, big...)...)

	var sb strings.Builder
	var got []string
	var ends []int
	e.Lock()
	for _, k := range []string{"small", "big", "small"} {
		v, _, _ := e.Peek(0, k)
		h := v.Obj().(*engine.Hash)
		if k == "small" && h.PairsBytes() == 0 || k == "big" && h.PairsBytes() != 0 {
			t.Fatalf("%s: PairsBytes %d", k, h.PairsBytes())
		}
		got = h.AppendPairs(got, &sb)
		ends = append(ends, len(got))
	}
	e.Unlock()
	// Overwrite, shrink and delete what was read: the strings stay.
	do("HSET", "small", "a", "2", "bb", "short")
	do("HDEL", "small", "")
	do("HSET", "big", big[0], "changed")
	do("DEL", "big")
	do("HSET", "big", "z", "1")

	small := []string{"a", "1", "bb", long, "", "empty", long + "f", "x"}
	if !slices.Equal(got[:ends[0]], small) || !slices.Equal(got[ends[1]:], small) {
		t.Errorf("listpack pairs %q", got[:ends[0]])
	}
	pairs := map[string]string{}
	for i := ends[0]; i < ends[1]; i += 2 {
		pairs[got[i]] = got[i+1]
	}
	if len(pairs) != len(big)/2 || ends[1]-ends[0] != len(big) {
		t.Fatalf("hashtable: %d pairs", ends[1]-ends[0])
	}
	for i := 0; i < len(big); i += 2 {
		if pairs[big[i]] != big[i+1] {
			t.Fatalf("hashtable: %s = %q", big[i], pairs[big[i]])
		}
	}
}
