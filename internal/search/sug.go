package search

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
)

// Suggestion dictionaries (FT.SUGADD/SUGGET/SUGDEL/SUGLEN). RediSearch
// keeps each in a key of its own module type. Ordo keeps them beside the
// keyspace, per engine and database, named by the key argument: they are
// not listed by KEYS or SCAN, DEL does not remove them (FT.SUGDEL of the
// last entry does), and a key of the same name may exist beside one.
// FLUSHDB/FLUSHALL empty them; SWAPDB swaps them with their database.
// They are durable: the commands are logged, and an AOF rewrite re-emits
// FT.SUGADD for every entry (with its score and payload).

type sugEntry struct {
	seq     uint64 // insertion order: ties in SUGGET come in this order
	score   float64
	payload string
	hasPay  bool
}

type sugDict struct {
	entries map[string]*sugEntry
	seq     uint64
}

func (s *state) sugDict(db int, key string, create bool) *sugDict {
	pk := pendKey{db, key}
	d := s.x.sugs[pk]
	if d == nil && create {
		if s.x.sugs == nil {
			s.x.sugs = map[pendKey]*sugDict{}
		}
		d = &sugDict{entries: map[string]*sugEntry{}}
		s.x.sugs[pk] = d
	}
	return d
}

// sugKeyEvent keeps suggestion dictionaries in step with FLUSHDB and
// SWAPDB.
func (s *state) sugKeyEvent(ev engine.KeyEvent) {
	if ev.Event == "flushdb" {
		s.x.dicts = nil
	}
	if len(s.x.sugs) == 0 {
		return
	}
	switch ev.Event {
	case "flushdb":
		for pk := range s.x.sugs {
			if pk.db == ev.DB {
				delete(s.x.sugs, pk)
			}
		}
	case "swapdb":
		moved := map[pendKey]*sugDict{}
		for pk, d := range s.x.sugs {
			switch pk.db {
			case ev.DB:
				delete(s.x.sugs, pk)
				moved[pendKey{ev.Other, pk.key}] = d
			case ev.Other:
				delete(s.x.sugs, pk)
				moved[pendKey{ev.DB, pk.key}] = d
			}
		}
		for pk, d := range moved {
			s.x.sugs[pk] = d
		}
	}
}

func (s *state) rewriteSugs(emit func(db int, args [][]byte)) {
	pks := make([]pendKey, 0, len(s.x.sugs))
	for pk := range s.x.sugs {
		pks = append(pks, pk)
	}
	slices.SortFunc(pks, func(a, b pendKey) int {
		if a.db != b.db {
			return a.db - b.db
		}
		return strings.Compare(a.key, b.key)
	})
	for _, pk := range pks {
		d := s.x.sugs[pk]
		strs := sortedKeys(d.entries)
		slices.SortFunc(strs, func(a, b string) int { return cmp.Compare(d.entries[a].seq, d.entries[b].seq) })
		for _, str := range strs {
			e := d.entries[str]
			args := [][]byte{[]byte("FT.SUGADD"), []byte(pk.key), []byte(str), []byte(strconv.FormatFloat(e.score, 'g', -1, 64))}
			if e.hasPay {
				args = append(args, []byte("PAYLOAD"), []byte(e.payload))
			}
			emit(pk.db, args)
		}
	}
}

// FT.SUGADD key string score [INCR] [PAYLOAD p]: the dictionary's size.
func ftSugAdd(c *engine.Ctx, s *state) {
	incr, hasPay, payload := false, false, ""
	for i := 4; i < len(c.Args); i++ {
		switch {
		case c.ArgIs(i, "incr"):
			incr = true
		case c.ArgIs(i, "payload"):
			if i+1 >= len(c.Args) {
				c.Error("Invalid payload: Expected an argument")
				return
			}
			hasPay, payload = true, string(c.Args[i+1])
			i++
		default:
			c.Error("Unknown argument `" + string(c.Args[i]) + "`")
			return
		}
	}
	score, err := strconv.ParseFloat(string(c.Args[3]), 64)
	if err != nil || math.IsNaN(score) {
		c.Error("ERR invalid score")
		return
	}
	str := string(c.Args[2])
	if len(str) == 0 || len(str) > 254*4 {
		c.W.Int(int64(len(s.sugDict(c.DB.ID, string(c.Args[1]), false).safeEntries())))
		return
	}
	d := s.sugDict(c.DB.ID, string(c.Args[1]), true)
	e := d.entries[str]
	if e == nil {
		d.seq++
		e = &sugEntry{seq: d.seq}
		d.entries[str] = e
		e.score = score
	} else if incr {
		e.score += score
	} else {
		e.score = score
	}
	if hasPay {
		e.payload, e.hasPay = payload, true
	}
	c.Dirty(1)
	c.W.Int(int64(len(d.entries)))
}

func (d *sugDict) safeEntries() map[string]*sugEntry {
	if d == nil {
		return nil
	}
	return d.entries
}

// FT.SUGLEN key
func ftSugLen(c *engine.Ctx, s *state) {
	c.W.Int(int64(len(s.sugDict(c.DB.ID, string(c.Args[1]), false).safeEntries())))
}

// FT.SUGDEL key string: 1 if it was there.
func ftSugDel(c *engine.Ctx, s *state) {
	key := string(c.Args[1])
	d := s.sugDict(c.DB.ID, key, false)
	if d == nil || d.entries[string(c.Args[2])] == nil {
		c.W.Int(0)
		return
	}
	delete(d.entries, string(c.Args[2]))
	if len(d.entries) == 0 {
		delete(s.x.sugs, pendKey{c.DB.ID, key})
	}
	c.Dirty(1)
	c.W.Int(1)
}

// FT.SUGGET key prefix [FUZZY] [MAX n] [WITHSCORES] [WITHPAYLOADS] [TRIM] [OPTIMIZE]
//
// Matching and scores follow RediSearch's trie search: entries with the
// prefix (case-insensitively; FUZZY: a prefix within one edit), an exact
// match scoring 2147483647, others their score divided by
// sqrt(1 + length difference) and, with FUZZY, times exp(-2 x distance),
// in float32 arithmetic as RediSearch; best first, at most MAX (5).
func ftSugGet(c *engine.Ctx, s *state) {
	fuzzy, withScores, withPayloads, max := false, false, false, 5
	for i := 3; i < len(c.Args); i++ {
		switch {
		case c.ArgIs(i, "fuzzy"):
			fuzzy = true
		case c.ArgIs(i, "withscores"):
			withScores = true
		case c.ArgIs(i, "withpayloads"):
			withPayloads = true
		case c.ArgIs(i, "trim"), c.ArgIs(i, "optimize"):
		case c.ArgIs(i, "max"):
			if i+1 >= len(c.Args) {
				c.Error("MAX: Expected an argument")
				return
			}
			n, err := strconv.Atoi(string(c.Args[i+1]))
			if err != nil || n < 0 {
				c.Error("MAX: Could not convert argument to expected type")
				return
			}
			max = n
			i++
		default:
			c.Error("Unrecognized argument: " + string(c.Args[i]))
			return
		}
	}
	prefix := string(c.Args[2])
	if len(prefix) >= 254*4 {
		c.Error("Invalid query length")
		return
	}
	d := s.sugDict(c.DB.ID, string(c.Args[1]), false)
	if d == nil {
		c.W.Null()
		return
	}
	q := []rune(strings.ToLower(prefix))
	type hit struct {
		str   string
		score float32
		e     *sugEntry
	}
	var hits []hit
	maxDist := 0
	if fuzzy {
		maxDist = 1
	}
	for str, e := range d.entries {
		r := []rune(strings.ToLower(str))
		dist, ok := prefixDist(q, r, maxDist)
		if !ok {
			continue
		}
		score := float32(e.score)
		if len(r) > 0 && len(r) == len(q) && string(r) == string(q) {
			score = float32(math.MaxInt32)
		}
		if maxDist > 0 {
			score *= float32(math.Exp(float64(-2 * dist)))
		}
		diff := len(r) - len(prefix)
		if diff < 0 {
			diff = -diff
		}
		score /= float32(math.Sqrt(float64(1 + diff)))
		hits = append(hits, hit{str, score, e})
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.e.seq, b.e.seq)
	})
	hits = hits[:min(max, len(hits))]
	per := 1
	if withScores {
		per++
	}
	if withPayloads {
		per++
	}
	c.W.Array(per * len(hits))
	for _, h := range hits {
		c.W.BulkString(h.str)
		if withScores {
			c.W.BulkString(fmtG(float64(h.score), 17))
		}
		if withPayloads {
			if h.e.hasPay {
				c.W.BulkString(h.e.payload)
			} else {
				c.W.Null()
			}
		}
	}
}

// prefixDist reports whether some prefix of r is within maxDist edits
// (Levenshtein) of q, and the smallest such distance.
func prefixDist(q, r []rune, maxDist int) (int, bool) {
	if maxDist == 0 {
		if len(r) < len(q) {
			return 0, false
		}
		return 0, string(r[:len(q)]) == string(q)
	}
	// DP over q x r: row[j] = distance between q[:i] and r[:j]; the best
	// prefix of r is the minimum of the last row.
	prev := make([]int, len(r)+1)
	cur := make([]int, len(r)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(q); i++ {
		cur[0] = i
		for j := 1; j <= len(r); j++ {
			cost := 1
			if q[i-1] == r[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	best := prev[0]
	for _, v := range prev {
		best = min(best, v)
	}
	return best, best <= maxDist
}
