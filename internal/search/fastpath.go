package search

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
)

// Early stop for a query that is one numeric range (FT.SEARCH
// '@price:[a b]' LIMIT off num): its result for a document is always
// resNumeric, so each match's score is a function of the document alone
// and the page is kept in a bounded heap while the range is walked once
// (no id list, no sort of the matches, no second walk for match). Sorted
// by that same field ascending, the walk is already in order: only the
// first off+num matches (and those tied with the last of them) become
// hits; the rest are only counted. Keys past their TTL are skipped and not
// counted, as in the general path.

// hitOrder is FT.SEARCH's result order: by the SORTBY values (documents
// without a value last), else by score; ties in indexing order
// (RediSearch's document ids).
func hitOrder(o *searchOpts, sorted bool) func(a, b hit) int {
	if sorted {
		return func(a, b hit) int {
			for i, k := range o.sortBy {
				x, y := a.sort[i], b.sort[i]
				if x.has != y.has { // documents without the value come last
					if x.has {
						return -1
					}
					return 1
				}
				r := cmp.Compare(x.p, y.p) // 0 for strings
				if r == 0 {
					r = strings.Compare(x.v, y.v)
				}
				if k.desc {
					r = -r
				}
				if r != 0 {
					return r
				}
			}
			return cmp.Compare(a.seq, b.seq)
		}
	}
	return func(a, b hit) int {
		if r := cmp.Compare(b.score, a.score); r != 0 {
			return r
		}
		return cmp.Compare(a.seq, b.seq)
	}
}

// topHeap keeps the best k hits pushed so far (a max-heap by order: its
// root is the worst kept).
type topHeap struct {
	h     []hit
	k     int
	order func(a, b hit) int
}

func (t *topHeap) push(x hit) {
	h := t.h
	if len(h) < t.k {
		h = append(h, x)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if t.order(h[i], h[p]) <= 0 {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		t.h = h
		return
	}
	if t.order(x, h[0]) >= 0 {
		return
	}
	h[0] = x
	for i := 0; ; {
		l, w := 2*i+1, i
		if l < len(h) && t.order(h[l], h[w]) > 0 {
			w = l
		}
		if r := l + 1; r < len(h) && t.order(h[r], h[w]) > 0 {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// sorted returns the kept hits in order.
func (t *topHeap) sorted() []hit {
	slices.SortFunc(t.h, t.order)
	return t.h
}

// searchNumRange is runSearch for a query that is the numeric range n
// alone; ok is false when the options need the general path.
func (s *state) searchNumRange(e *engine.Engine, ix *index, n *node, o *searchOpts, now int64, sortF []*field, sortFi []int) (total int, hits []hit, ok bool) {
	fi := ix.fieldIndex(n.field)
	if fi < 0 || ix.nums[fi] == nil {
		return 0, nil, false
	}
	k := o.off + o.num
	expired := func(d *doc) bool {
		at := e.PeekExpire(ix.db, d.key)
		return at >= 0 && at <= now
	}
	switch {
	case len(sortF) == 0:
		if k <= 0 {
			ix.nums[fi].scanEntries(n.lo, n.loEx, n.hi, n.hiEx, func(en numEntry) {
				if !expired(ix.docs[en.doc]) {
					total++
				}
			})
			return total, nil, true
		}
		t := topHeap{k: k, order: hitOrder(o, false)}
		ix.nums[fi].scanEntries(n.lo, n.loEx, n.hi, n.hiEx, func(en numEntry) {
			d := ix.docs[en.doc]
			if expired(d) {
				return
			}
			total++
			t.push(hit{id: en.doc, seq: d.seq, key: d.key, score: ix.scoreDoc(o.scorer, resNumeric, d)})
		})
		hits = t.sorted()
		if o.explain && o.withScores {
			for i := range hits {
				hits[i].expl = ix.explain(o.scorer, resNumeric, ix.docs[hits[i].id])
			}
		}
		return total, hits, true
	case len(sortF) == 1 && sortFi[0] == fi && !o.sortBy[0].desc:
		total, hits = ix.sortedPage(e, n, o, now, sortF[0], fi, nil)
		return total, hits, true
	}
	return 0, nil, false
}

// sortedPage walks numeric range n of field fi (the SORTBY field,
// ascending) in order, counting the documents that pass keep (nil: all)
// and are not past their TTL, and returns the first off+num of them in
// SORTBY order: hits are collected until off+num are held and the value
// moves on (those tied on the value are then ordered by seq).
func (ix *index) sortedPage(e *engine.Engine, n *node, o *searchOpts, now int64, f *field, fi int, keep func(id uint32, d *doc) bool) (total int, hits []hit) {
	k := o.off + o.num
	var last string
	ix.nums[fi].scanEntries(n.lo, n.loEx, n.hi, n.hiEx, func(en numEntry) {
		d := ix.docs[en.doc]
		if keep != nil && !keep(en.doc, d) {
			return
		}
		if at := e.PeekExpire(ix.db, d.key); at >= 0 && at <= now {
			return
		}
		total++
		if len(hits) >= k && (k <= 0 || en.key != last) {
			return
		}
		last = en.key
		hits = append(hits, hit{id: en.doc, seq: d.seq, key: d.key})
	})
	for i := range hits {
		h := &hits[i]
		d := ix.docs[h.id]
		if o.withScores {
			h.score = ix.scoreDoc(o.scorer, resNumeric, d)
			if o.explain {
				h.expl = ix.explain(o.scorer, resNumeric, d)
			}
		}
		var v sortVal
		if o.withSortKey {
			v = ix.sortValue(e, d, f, fi)
		} else {
			key := d.nums[fi]
			v = sortVal{p: keyPrefix(key), v: key, num: true, has: true}
		}
		h.sort = []sortVal{v}
	}
	slices.SortStableFunc(hits, hitOrder(o, true))
	return total, hits[:min(len(hits), max(k, 0))]
}

// searchSortedAnd is runSearch for an intersection of numeric ranges and
// exact tags sorted (ascending, no scores) by the field of one of its
// ranges: that range is walked in order and the other leaves checked on
// each document's indexed values, when the range is not much larger than
// the most selective other leaf. ok is false otherwise.
func (s *state) searchSortedAnd(e *engine.Engine, ix *index, q *node, o *searchOpts, now int64, sortF []*field, sortFi []int) (total int, hits []hit, ok bool) {
	if len(sortF) != 1 || o.sortBy[0].desc || o.withScores || sortF[0].typ != typeNumeric ||
		q.exact || o.slop >= 0 || o.inorder || len(q.kids) < 2 {
		return 0, nil, false
	}
	qc := ix.newQctx()
	var drive *node
	var others []*node
	for _, k := range q.kids {
		if k.stop || !qc.filterable(k) {
			return 0, nil, false
		}
		fi := ix.fieldIndex(k.field)
		switch {
		case k.op == opNum && ix.nums[fi] == nil, k.op == opTag && ix.tags[fi] == nil:
			return 0, nil, false
		case drive == nil && k.op == opNum && fi == sortFi[0]:
			drive = k
		default:
			others = append(others, k)
		}
	}
	if drive == nil {
		return 0, nil, false
	}
	least := -1
	for _, k := range others {
		if e := qc.estimate(k); least < 0 || e < least {
			least = e
		}
	}
	if qc.estimate(drive) > 2*least+64 {
		return 0, nil, false
	}
	type check struct {
		fi       int
		n        *node
		tags     []string
		loP, hiP uint64
	}
	checks := make([]check, len(others))
	for i, k := range others {
		c := check{fi: ix.fieldIndex(k.field), n: k}
		if k.op == opNum {
			c.loP, c.hiP = keyPrefix(k.lo), keyPrefix(k.hi)
		}
		for _, t := range k.tags {
			c.tags = append(c.tags, ix.fields[c.fi].normTag(t.val))
		}
		checks[i] = c
	}
	keep := func(id uint32, d *doc) bool {
		for _, c := range checks {
			if c.n.op == opNum {
				if !numMatch(ix, c.fi, ix.nums[c.fi].pre, id, c.n, c.loP, c.hiP) {
					return false
				}
				continue
			}
			has := false
			for _, t := range c.tags {
				if slices.Contains(d.tags[c.fi], t) {
					has = true
					break
				}
			}
			if !has {
				return false
			}
		}
		return true
	}
	total, hits = ix.sortedPage(e, drive, o, now, sortF[0], sortFi[0], keep)
	return total, hits, true
}
