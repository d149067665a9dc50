package search

import (
	"strconv"
	"testing"
)

// TestUpdateKeySlots: re-indexing a key keeps its place in the key table
// (update) through overwrites, values that fail to index (the key leaves
// the index), deletions, renumbering and record compaction: every key
// of the keyspace holding a valid number is found with its own document
// and value, and no other key is.
func TestUpdateKeySlots(t *testing.T) {
	e, h, do := newSearchEngine(t)
	do("FT.CREATE", "idx", "PREFIX", "1", "k:", "SCHEMA", "n", "NUMERIC", "t", "TEXT")
	want := map[string]string{} // key -> its number, for the keys that index
	const keys = 300
	for step := range 30000 {
		i := (step * 7919) % keys
		key := "k:" + strconv.Itoa(i)
		switch step % 13 {
		case 0:
			do("DEL", key)
			delete(want, key)
		case 5:
			do("HSET", key, "n", "not a number", "t", "w"+strconv.Itoa(step%50))
			delete(want, key)
		default:
			n := strconv.Itoa(step % 1000)
			do("HSET", key, "n", n, "t", "w"+strconv.Itoa(step%50)+" common")
			want[key] = n
		}
		if step%997 != 0 && step != 29999 {
			continue
		}
		e.Lock()
		s := h.get(e)
		ix := s.indexes["idx"]
		if ix.live != len(want) || ix.keys.n != len(want) {
			t.Fatalf("step %d: %d documents, %d keys in the table, want %d", step, ix.live, ix.keys.n, len(want))
		}
		for k := range keys {
			key := "k:" + strconv.Itoa(k)
			id, ok := ix.idOf(key)
			n, in := want[key]
			if ok != in {
				t.Fatalf("step %d: %s indexed %v, want %v", step, key, ok, in)
			}
			if !ok {
				continue
			}
			if ix.key(id) != key || !ix.doc(id).live() {
				t.Fatalf("step %d: %s has document %d of key %q", step, key, id, ix.key(id))
			}
			if got := ix.nums[0].key(id); got != exactKey(mustNum(n)) {
				t.Fatalf("step %d: %s value differs", step, key)
			}
		}
		e.Unlock()
	}
}

func mustNum(s string) (float64, string) {
	f, k, _ := numValue(s)
	return f, k
}
