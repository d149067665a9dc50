package search

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestNumRangeEarlyStop: a numeric range query (alone, or in an
// intersection with tags and ranges), or a tag alone, answered by the
// early-stop paths (searchNumRange, searchSorted) gives the general path's
// total and page, for every scorer, WITHSCORES, SORTBY the range's field
// or another (documents without it last), ascending and descending,
// offsets and limits, with tied values, varying document scores and
// lengths, reused document ids, and keys past their TTL.
func TestNumRangeEarlyStop(t *testing.T) {
	e, h, do := newSearchEngine(t)
	do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	do("FT.CREATE", "idx", "PREFIX", "1", "d:", "SCHEMA", "n", "NUMERIC", "SORTABLE", "m", "NUMERIC", "t", "TAG", "body", "TEXT")
	r := rand.New(rand.NewPCG(3, 4))
	const future = int64(4102444800000) // 2100-01-01
	for step := range 600 {
		key := "d:" + strconv.Itoa(r.IntN(300))
		switch r.IntN(10) {
		case 0:
			do("DEL", key)
		case 1:
			do("PEXPIREAT", key, strconv.FormatInt(future+int64(r.IntN(3)), 10))
		default:
			words := ""
			for range 1 + r.IntN(3) {
				words += fmt.Sprintf("w%d ", r.IntN(6))
			}
			args := []string{"HSET", key, "n", strconv.Itoa(r.IntN(20) - 5), "body", words}
			if r.IntN(3) == 0 { // else the index's score: most documents score alike (uniform)
				args = append(args, "__score", fmt.Sprint(r.Float64()))
			}
			if r.IntN(5) != 0 {
				args = append(args, "t", []string{"a", "b", "A,c", "b,c"}[r.IntN(4)])
			}
			if r.IntN(4) == 0 {
				args = append(args, "m", "x") // not a number: not indexed
			} else if r.IntN(3) == 0 {
				args = append(args, "m", strconv.Itoa(r.IntN(5)))
			}
			do(args...)
		}
		if step%50 != 49 {
			continue
		}
		e.Lock()
		s := h.get(e)
		ix := s.lookupIndex("idx")
		for range 40 {
			lo := r.IntN(25) - 7
			f := []string{"n", "m"}[r.IntN(2)]
			n := &node{op: opNum, field: f}
			n.lo, _ = parseNumber(strconv.Itoa(lo))
			n.hi, _ = parseNumber(strconv.Itoa(lo + r.IntN(12)))
			n.loEx, n.hiEx = r.IntN(3) == 0, r.IntN(3) == 0
			q := n
			tagOnly := r.IntN(6) == 0
			if tagOnly || r.IntN(2) == 0 { // an intersection with a tag and maybe another range
				tag := &node{op: opTag, field: "t", tags: []tagTerm{{val: []string{"a", "b", "c"}[r.IntN(3)]}}}
				if r.IntN(3) == 0 {
					tag.tags = append(tag.tags, tagTerm{val: "b"})
				}
				q = &node{op: opAnd, kids: []*node{n, tag}}
				if tagOnly {
					q = tag
				} else if r.IntN(3) == 0 {
					other := &node{op: opNum, field: []string{"n", "m"}[r.IntN(2)]}
					other.lo, _ = parseNumber(strconv.Itoa(r.IntN(10) - 5))
					other.hi, _ = parseNumber(strconv.Itoa(r.IntN(10)))
					other.loEx = r.IntN(2) == 0
					q.kids = append(q.kids, other)
				}
				r.Shuffle(len(q.kids), func(i, j int) { q.kids[i], q.kids[j] = q.kids[j], q.kids[i] })
			}
			o := searchOpts{off: r.IntN(5) * r.IntN(3), num: r.IntN(12), slop: -1, lang: ix.lang,
				scorer:     []string{scorerTFIDF, scorerDocNorm, scorerBM25, scorerBM25STD, scorerDisMax, scorerDocScore}[r.IntN(6)],
				withScores: r.IntN(2) == 0}
			o.explain = o.withScores && r.IntN(2) == 0
			if r.IntN(2) == 0 {
				sf := f
				if r.IntN(3) == 0 { // by a field the query may not filter on
					sf = []string{"n", "m"}[r.IntN(2)]
				}
				o.sortBy = []sortKey{{name: sf, desc: r.IntN(3) == 0}}
				o.withSortKey = r.IntN(3) == 0
			}
			now := future + int64(r.IntN(4)) // some keys are past their TTL
			g := o
			g.general = true
			wt, wp, _ := s.runSearch(e, ix, q, &g, now)
			gt, gp, _ := s.runSearch(e, ix, q, &o, now)
			want, got := fmt.Sprint(wt, pageOf(wp, &o)), fmt.Sprint(gt, pageOf(gp, &o))
			if want != got {
				e.Unlock()
				t.Fatalf("step %d %s [%q %q] %+v:\n got %s\nwant %s", step, f, n.lo, n.hi, o, got, want)
			}
		}
		e.Unlock()
	}
}

// pageOf is a page as FT.SEARCH replies it: the sort values only under
// WITHSORTKEYS.
func pageOf(p []hit, o *searchOpts) []string {
	var out []string
	for _, h := range p {
		s := fmt.Sprint(h.key, " ", h.score)
		if o.withSortKey {
			s += fmt.Sprint(" ", h.sort)
		}
		if h.expl != nil {
			s += " " + explText(h.expl)
		}
		out = append(out, s)
	}
	return out
}

func explText(x *expl) string {
	s := x.s + "("
	for _, k := range x.kids {
		s += explText(k) + ","
	}
	return s + ")"
}

// A descending walk of a NUMERIC range is the first read after writes
// (which wait in the tree's buffer until a read): it sees them.
func TestDescendingWalkSeesBufferedWrites(t *testing.T) {
	_, _, do := newSearchEngine(t)
	do("FT.CREATE", "idx", "PREFIX", "1", "d:", "SCHEMA", "price", "NUMERIC", "SORTABLE")
	for i, p := range []string{"3", "5", "2", "12", "25500.12346"} {
		do("HSET", "d:"+strconv.Itoa(i+1), "price", p)
	}
	got := do("FT.SEARCH", "idx", "@price:[2 12]", "SORTBY", "price", "DESC", "LIMIT", "0", "2", "NOCONTENT")
	if want := "*3\r\n:4\r\n$3\r\nd:4\r\n$3\r\nd:2\r\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
