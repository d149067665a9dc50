package search

import (
	"slices"

	"github.com/ordo-db/ordo/internal/engine"
)

// Custom dictionaries (FT.DICTADD/DICTDEL/DICTDUMP): sets of terms, per
// engine and not per database, as RediSearch's are per server. FLUSHDB
// and FLUSHALL delete them, as they delete RediSearch's (kept in keys
// there). They are durable: the commands are logged, and an AOF rewrite re-emits
// FT.DICTADD for every dictionary.

// FT.DICTADD dict term…
func ftDictAdd(c *engine.Ctx, s *state) {
	name := string(c.Args[1])
	if s.x.dicts == nil {
		s.x.dicts = map[string]map[string]bool{}
	}
	d := s.x.dicts[name]
	if d == nil {
		d = map[string]bool{}
		s.x.dicts[name] = d
	}
	n := 0
	for _, t := range c.Args[2:] {
		if !d[string(t)] {
			d[string(t)] = true
			n++
		}
	}
	if n > 0 {
		c.Dirty(n)
	}
	c.W.Int(int64(n))
}

// FT.DICTDEL dict term…
func ftDictDel(c *engine.Ctx, s *state) {
	name := string(c.Args[1])
	d := s.x.dicts[name]
	n := 0
	for _, t := range c.Args[2:] {
		if d[string(t)] {
			delete(d, string(t))
			n++
		}
	}
	if len(d) == 0 {
		delete(s.x.dicts, name)
	}
	if n > 0 {
		c.Dirty(n)
	}
	c.W.Int(int64(n))
}

// FT.DICTDUMP dict: the terms in lexicographic order.
func ftDictDump(c *engine.Ctx, s *state) {
	d := s.x.dicts[string(c.Args[1])]
	if d == nil {
		c.Error("could not open dict key")
		return
	}
	terms := sortedKeys(d)
	slices.Sort(terms)
	c.W.Array(len(terms))
	for _, t := range terms {
		c.W.BulkString(t)
	}
}
