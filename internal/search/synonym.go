package search

import (
	"slices"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
)

// Synonyms (FT.SYNUPDATE/FT.SYNDUMP). A synonym group is a set of terms
// that match each other in queries: a query term that belongs to groups
// also matches the other terms of those groups. Ordo expands the query
// (RediSearch also writes group tokens into the index at indexing time),
// so a group applies to every document at once, whether or not
// SKIPINITIALSCAN was given; VERBATIM in FT.AGGREGATE turns it off.

type synonyms struct {
	groups map[string][]string // group id -> terms (folded), in insertion order
}

type synGroup struct {
	id    string
	terms []string
}

func (s *state) syns(name string) *synonyms {
	if s.x.syn == nil {
		s.x.syn = map[string]*synonyms{}
	}
	sy := s.x.syn[name]
	if sy == nil {
		sy = &synonyms{groups: map[string][]string{}}
		s.x.syn[name] = sy
	}
	return sy
}

// synGroups returns ix's groups in id order (for AOF rewrites).
func synGroups(s *state, ix *index) []synGroup {
	sy := s.x.syn[ix.name]
	if sy == nil {
		return nil
	}
	var out []synGroup
	for _, id := range sortedKeys(sy.groups) {
		out = append(out, synGroup{id, sy.groups[id]})
	}
	return out
}

// expandSynonyms rewrites q's text terms into the union of the term and
// its synonyms.
func (s *state) expandSynonyms(ix *index, q *node) *node {
	sy := s.x.syn[ix.name]
	if sy == nil || len(sy.groups) == 0 {
		return q
	}
	var walk func(n *node) *node
	walk = func(n *node) *node {
		switch n.op {
		case opTerm:
			var alts []string
			for _, id := range sortedKeys(sy.groups) {
				ts := sy.groups[id]
				if slices.Contains(ts, n.term) {
					for _, t := range ts {
						if t != n.term && !slices.Contains(alts, t) {
							alts = append(alts, t)
						}
					}
				}
			}
			if len(alts) == 0 {
				return n
			}
			or := &node{op: opOr, kids: []*node{n}}
			for _, t := range alts {
				or.kids = append(or.kids, &node{op: opTerm, field: n.field, term: t})
			}
			return or
		case opAnd, opOr, opNot:
			for i, k := range n.kids {
				n.kids[i] = walk(k)
			}
		}
		return n
	}
	return walk(q)
}

// FT.SYNUPDATE idx gid [SKIPINITIALSCAN] term…
func ftSynUpdate(c *engine.Ctx, s *state) {
	ix := s.lookupIndex(string(c.Args[1]))
	if ix == nil {
		c.Error("Unknown index name")
		return
	}
	gid := string(c.Args[2])
	i := 3
	if i < len(c.Args) && c.ArgIs(i, "skipinitialscan") {
		i++
	}
	if i == len(c.Args) {
		c.Error("ERR wrong number of arguments for '" + strings.ToLower(string(c.Args[0])) + "' command")
		return
	}
	sy := s.syns(ix.name)
	ts := sy.groups[gid]
	for _, a := range c.Args[i:] {
		t := foldTerm(strings.TrimSpace(string(a)))
		if !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	sy.groups[gid] = ts
	c.Dirty(1)
	c.W.OK()
}

// FT.SYNDUMP idx: term, [group ids…], … (terms in order).
func ftSynDump(c *engine.Ctx, s *state) {
	ix := s.lookupIndex(string(c.Args[1]))
	if ix == nil {
		c.Error("Unknown index name")
		return
	}
	sy := s.x.syn[ix.name]
	byTerm := map[string][]string{}
	if sy != nil {
		for _, id := range sortedKeys(sy.groups) {
			for _, t := range sy.groups[id] {
				byTerm[t] = append(byTerm[t], id)
			}
		}
	}
	terms := sortedKeys(byTerm)
	c.W.Array(2 * len(terms))
	for _, t := range terms {
		c.W.BulkString(t)
		c.W.Array(len(byTerm[t]))
		for _, id := range byTerm[t] {
			c.W.BulkString(id)
		}
	}
}
