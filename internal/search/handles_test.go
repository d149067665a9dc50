package search

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
)

// TestHandlesFollowKeyspace: after random writes of every kind that
// replace, move, convert or remove a hash (HSET into a listpack and past
// it into a hashtable, HDEL to empty, DEL then HSET, RENAME and COPY
// REPLACE onto an indexed key, MOVE and SWAPDB, RESTORE REPLACE, SET over
// a hash, FLUSHDB, expiry, enough deletions to renumber the ids), every
// live document's handle is the very object the keyspace holds at its key
// (what a search fetches without looking the key up), no removed id keeps
// one, and a search's content equals HGETALL's.
func TestHandlesFollowKeyspace(t *testing.T) {
	e, h, do := newSearchEngine(t)
	do("FT.CREATE", "idx", "PREFIX", "1", "d:", "SCHEMA", "n", "NUMERIC", "SORTABLE", "t", "TAG")
	do("CONFIG", "SET", "hash-max-listpack-entries", "8")
	e.Lock()
	h.get(e).lookupIndex("idx").holes = 8 // renumber often
	e.Unlock()
	renumbered := 0
	r := rand.New(rand.NewPCG(7, 8))
	key := func() string { return "d:" + strconv.Itoa(r.IntN(60)) }
	for step := range 3000 {
		k := key()
		switch r.IntN(14) {
		case 0:
			do("DEL", k)
		case 1:
			do("RENAME", key(), k)
		case 2:
			do("COPY", key(), k, "REPLACE")
		case 3:
			do("MOVE", k, "1")
			do("SELECT", "1")
			do("RENAME", k, key())
			do("MOVE", k, "0")
			do("SELECT", "0")
		case 4:
			if r.IntN(20) == 0 {
				do("SWAPDB", "0", "1")
			}
		case 5:
			dump := do("DUMP", key())
			if len(dump) > 0 && dump[0] == '$' && dump != "$-1\r\n" {
				// The bulk's payload, restored over k.
				i := 1
				for dump[i] != '\r' {
					i++
				}
				n, _ := strconv.Atoi(dump[1:i])
				do("RESTORE", k, "0", dump[i+2:i+2+n], "REPLACE")
			}
		case 6:
			do("HDEL", k, "n", "t", "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8")
		case 7:
			if r.IntN(10) == 0 {
				do("SET", k, "str")
			}
		case 8:
			do("PEXPIRE", k, "1")
		case 9:
			if r.IntN(100) == 0 {
				do("FLUSHDB")
			}
		case 10: // grow past the listpack limit: the hash converts
			args := []string{"HSET", k}
			for i := range 10 {
				args = append(args, "x"+strconv.Itoa(i), strconv.Itoa(r.IntN(9)))
			}
			do(args...)
		default:
			do("HSET", k, "n", strconv.Itoa(r.IntN(50)), "t", []string{"a", "b"}[r.IntN(2)])
		}
		if step%25 != 24 {
			continue
		}
		// A search syncs the index and reaps nothing; the handles are
		// compared with the keyspace under the lock.
		reply := do("FT.SEARCH", "idx", "*", "LIMIT", "0", "1000")
		e.Lock()
		s := h.get(e)
		ix := s.lookupIndex("idx")
		if int(ix.top) < ix.live*3/2+8 {
			renumbered++
		}
		for id := range ix.top {
			d := ix.doc(id)
			got := ix.handle(id)
			if !d.live() {
				if got != nil {
					t.Fatalf("step %d: removed id %d keeps a handle", step, id)
				}
				continue
			}
			v, _, ok := e.Peek(ix.db, ix.key(id))
			want, _ := v.Obj().(*engine.Hash)
			if !ok || want == nil || got != want {
				t.Fatalf("step %d: id %d (%s): handle %p, keyspace %p", step, id, ix.key(id), got, want)
			}
		}
		if len(ix.handles) > int(ix.top) {
			t.Fatalf("step %d: %d handles for %d ids", step, len(ix.handles), ix.top)
		}
		e.Unlock()
		// The content fetched through the handles is HGETALL's.
		for _, k := range matchKeys(reply) {
			want := do("HGETALL", k)
			if want == "*0\r\n" || do("PTTL", k) != ":-1\r\n" {
				continue // expired since the first search, or about to
			}
			if got := do("FT.SEARCH", "idx", "*", "INKEYS", "1", k); !endsWith(got, want) {
				t.Fatalf("step %d: %s: search %q, HGETALL %q", step, k, got, want)
			}
		}
	}
	if renumbered == 0 {
		t.Fatal("the ids were never renumbered")
	}
}

// matchKeys are the document keys of an FT.SEARCH RESP2 reply (the
// bulks that start with "d:").
func matchKeys(reply string) []string {
	var keys []string
	for i := 0; i+2 < len(reply); i++ {
		if reply[i] == '\n' && reply[i+1] == '$' {
			j := i + 2
			for j < len(reply) && reply[j] != '\r' {
				j++
			}
			n, err := strconv.Atoi(reply[i+2 : j])
			if err != nil || j+2+n > len(reply) {
				continue
			}
			if s := reply[j+2 : j+2+n]; len(s) > 2 && s[:2] == "d:" {
				keys = append(keys, s)
			}
		}
	}
	return keys
}

func endsWith(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}
