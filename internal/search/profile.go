package search

import (
	"strconv"
	"strings"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
)

// FT.PROFILE idx SEARCH|AGGREGATE [LIMITED] QUERY q [options…]: the
// command's reply, then RediSearch 2.x's profile: total, parsing and
// pipeline times, the iterator tree (type, term, counter) and the result
// processors. Times are measured by Ordo (milliseconds) and differ from
// RediSearch's; counters are exact.
func ftProfile(c *engine.Ctx, s *state) {
	i := 2
	search := false
	switch {
	case c.ArgIs(i, "search"):
		search = true
	case c.ArgIs(i, "aggregate"):
	default:
		c.Error("No `SEARCH` or `AGGREGATE` provided")
		return
	}
	i++
	if i < len(c.Args) && c.ArgIs(i, "limited") {
		i++
	}
	if i >= len(c.Args) || !c.ArgIs(i, "query") {
		c.Error("The QUERY keyword is expected")
		return
	}
	i++
	if i >= len(c.Args) {
		c.Error("The QUERY keyword is expected")
		return
	}
	ix := s.lookupIndex(string(c.Args[1]))
	if ix == nil {
		c.Error(string(c.Args[1]) + ": no such index")
		return
	}
	for j := i + 1; j < len(c.Args); j++ {
		if !search && c.ArgIs(j, "withcursor") {
			c.Error("FT.PROFILE does not support cursor")
			return
		}
	}
	name := "FT.AGGREGATE"
	if search {
		name = "FT.SEARCH"
	}
	args := append([][]byte{[]byte(name), c.Args[1]}, c.Args[i:]...)
	saved := c.Args
	c.Args = args
	start := c.W.Len()
	t0 := time.Now()
	c.W.Array(2)
	hdr := c.W.Len()
	if search {
		ftSearch(c, s)
	} else {
		ftAggregate(c, s)
	}
	total := time.Since(t0)
	c.Args = saved
	if c.W.IsErrorAt(hdr) {
		// An error: only the error, as RediSearch.
		c.W.Cut(start, hdr)
		return
	}
	q, err := parseQuery(string(c.Args[i]), nil, ix)
	if err != nil {
		q = &node{op: opNone}
	}
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', -1, 64)
	}
	w := c.W
	w.Array(5)
	w.Array(2)
	w.Simple("Total profile time")
	w.BulkString(ms(total))
	w.Array(2)
	w.Simple("Parsing time")
	w.BulkString("0")
	w.Array(2)
	w.Simple("Pipeline creation time")
	w.BulkString("0")
	w.Array(2)
	w.Simple("Iterators profile")
	profileIter(c, ix, q)
	procs := []string{"Index"}
	if search {
		procs = append(procs, "Scorer", "Sorter", "Loader")
	}
	n := len(ix.eval(q))
	w.Array(1 + len(procs))
	w.Simple("Result processors profile")
	for _, p := range procs {
		w.Array(6)
		w.Simple("Type")
		w.Simple(p)
		w.Simple("Time")
		w.BulkString("0")
		w.Simple("Counter")
		w.Int(int64(n))
	}
}

// profileIter writes the iterator profile of n: Type, (Term,) Time,
// Counter, (Child iterators, children…).
func profileIter(c *engine.Ctx, ix *index, n *node) {
	w := c.W
	var typ, term string
	switch n.op {
	case opTerm:
		typ, term = "TEXT", n.term
	case opPrefix:
		typ, term = "UNION", n.term+"*"
	case opTag:
		typ = "TAG"
		var ts []string
		for _, t := range n.tags {
			ts = append(ts, t.val)
		}
		term = strings.Join(ts, "|")
	case opNum:
		typ = "NUMERIC"
		term = fmtG(decodeNumber(n.lo), 6) + " - " + fmtG(decodeNumber(n.hi), 6) // "%g - %g"
	case opAnd:
		typ = "INTERSECT"
	case opOr:
		typ = "UNION"
	case opNot:
		typ = "NOT"
	case opAll:
		typ = "WILDCARD"
	default:
		typ = "EMPTY"
	}
	var kids []*node
	if n.op == opAnd || n.op == opOr || n.op == opNot {
		for _, k := range n.kids {
			if !k.stop {
				kids = append(kids, k)
			}
		}
	}
	size := 6
	if term != "" {
		size += 4 // Term, and Size for a leaf
	}
	if len(kids) > 0 {
		size += 1 + len(kids)
	}
	count := int64(len(ix.eval(n)))
	w.Array(size)
	w.Simple("Type")
	w.Simple(typ)
	if term != "" {
		w.Simple("Term")
		w.Simple(term)
	}
	w.Simple("Time")
	w.BulkString("0")
	w.Simple("Counter")
	w.Int(count)
	if term != "" {
		w.Simple("Size")
		w.Int(count)
	}
	if len(kids) > 0 {
		w.Simple("Child iterators")
		for _, k := range kids {
			profileIter(c, ix, k)
		}
	}
}
