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
// (no id list, no sort of the matches, no second walk for match). With
// the scorers that read only a document's score and TFIDF norm, every
// document that is not odd (index.odd: its own score, or a repeated
// term) scores the same, so those compete by id (indexing order) without
// being read, and only the odd ones are scored. Without keys past their
// TTL, the total is counted chunk by chunk (numTree.count). Sorted
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
					if x.num && y.num {
						r = numCmp(x.f, x.v, y.f, y.v)
					} else {
						r = strings.Compare(x.v, y.v)
					}
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

// idHeap keeps the k smallest ids pushed (a max-heap: its root is the
// largest kept).
type idHeap struct {
	h []uint32
	k int
}

func (t *idHeap) push(x uint32) {
	h := t.h
	if len(h) < t.k {
		h = append(h, x)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if h[p] >= h[i] {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		t.h = h
		return
	}
	if x >= h[0] {
		return
	}
	h[0] = x
	for i := 0; ; {
		l, w := 2*i+1, i
		if l < len(h) && h[l] > h[w] {
			w = l
		}
		if r := l + 1; r < len(h) && h[r] > h[w] {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// scored is a hit ordered by score (higher first), then seq.
type scored struct {
	score float64
	seq   uint64
	id    uint32
}

func (a *scored) before(b *scored) bool {
	return a.score > b.score || a.score == b.score && a.seq < b.seq
}

// scoreHeap keeps the best k hits (by score, then seq) pushed so far: a
// max-heap by that order, its root the worst kept.
type scoreHeap struct {
	h []scored
	k int
}

func (t *scoreHeap) push(x scored) {
	h := t.h
	if len(h) < t.k {
		h = append(h, x)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if !h[p].before(&h[i]) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		t.h = h
		return
	}
	if !x.before(&h[0]) {
		return
	}
	h[0] = x
	for i := 0; ; {
		l, w := 2*i+1, i
		if l < len(h) && h[w].before(&h[l]) {
			w = l
		}
		if r := l + 1; r < len(h) && h[w].before(&h[r]) {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// hits returns the kept hits in order.
func (t *scoreHeap) hits() []hit {
	slices.SortFunc(t.h, func(a, b scored) int {
		if a.before(&b) {
			return -1
		}
		if b.before(&a) {
			return 1
		}
		return 0
	})
	out := make([]hit, len(t.h))
	for i, x := range t.h {
		out[i] = hit{id: x.id, seq: x.seq, score: x.score}
	}
	return out
}

// searchNumRange is runSearch for a query that is the numeric range n
// alone; ok is false when the options need the general path.
func (s *state) searchNumRange(e *engine.Engine, ix *index, n *node, o *searchOpts, now int64, sortF []*field, sortFi []int) (total int, hits []hit, ok bool) {
	fi := ix.fieldIndex(n.field)
	if fi < 0 || ix.nums[fi] == nil {
		return 0, nil, false
	}
	nt := ix.nums[fi]
	lo, hi := boundsOf(n)
	k := o.off + o.num
	expiring := ix.expiring(e)
	switch {
	case len(sortF) == 0:
		if k <= 0 {
			if !expiring {
				return nt.count(&lo, &hi), nil, true
			}
			nt.scan(&lo, &hi, func(id uint32, _ float64) bool {
				if !ix.expired(e, id, now) {
					total++
				}
				return true
			})
			return total, nil, true
		}
		if s0, ok := ix.uniform(o.scorer); ok {
			// Every match that is not odd scores s0: the first off+num of
			// them by id, which is indexing order, compete with the best
			// odd ones, scored; documents are read only for those.
			t, odd := idHeap{k: k}, scoreHeap{k: k}
			nt.runs(&lo, &hi, func(ids []uint32) bool {
				for _, id := range ids {
					if expiring && ix.expired(e, id, now) {
						continue
					}
					total++
					if ix.isOdd(id) {
						d := ix.doc(id)
						odd.push(scored{score: ix.scoreDoc(o.scorer, resNumeric, d), seq: d.seq, id: id})
					} else if len(t.h) < t.k || id < t.h[0] {
						t.push(id)
					}
				}
				return true
			})
			for _, id := range t.h {
				odd.push(scored{score: s0, seq: ix.doc(id).seq, id: id})
			}
			hits = odd.hits()
			if o.explain && o.withScores {
				for i := range hits {
					hits[i].expl = ix.explain(o.scorer, resNumeric, ix.doc(hits[i].id))
				}
			}
			return total, hits, true
		}
		t := scoreHeap{k: k}
		nt.scan(&lo, &hi, func(id uint32, _ float64) bool {
			if expiring && ix.expired(e, id, now) {
				return true
			}
			total++
			d := ix.doc(id)
			t.push(scored{score: ix.scoreDoc(o.scorer, resNumeric, d), seq: d.seq, id: id})
			return true
		})
		hits = t.hits()
		if o.explain && o.withScores {
			for i := range hits {
				hits[i].expl = ix.explain(o.scorer, resNumeric, ix.doc(hits[i].id))
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
// ascending) in order, counting the documents that pass checks and are
// not past their TTL, and returns the first off+num of them in SORTBY
// order: hits are collected until off+num are held and the value's double
// moves on (those tied are then ordered exactly, then by seq). Without
// checks or TTLs, the walk stops there and the range is counted.
func (ix *index) sortedPage(e *engine.Engine, n *node, o *searchOpts, now int64, f *field, fi int, checks []check) (total int, hits []hit) {
	k := o.off + o.num
	nt := ix.nums[fi]
	lo, hi := boundsOf(n)
	expiring := ix.expiring(e)
	counted := len(checks) == 0 && !expiring
	var last float64
	nt.scan(&lo, &hi, func(id uint32, f float64) bool {
		if len(checks) > 0 && !passes(checks, id) {
			return true
		}
		if expiring && ix.expired(e, id, now) {
			return true
		}
		if len(hits) >= k && (k <= 0 || f != last) {
			if counted {
				return false
			}
			total++
			return true
		}
		total++
		last = f
		hits = append(hits, hit{id: id, seq: ix.doc(id).seq})
		return true
	})
	if counted {
		total = nt.count(&lo, &hi)
	}
	for i := range hits {
		h := &hits[i]
		d := ix.doc(h.id)
		if o.withScores {
			h.score = ix.scoreDoc(o.scorer, resNumeric, d)
			if o.explain {
				h.expl = ix.explain(o.scorer, resNumeric, d)
			}
		}
		var v sortVal
		if o.withSortKey {
			v = ix.sortValue(e, h.id, f, fi)
		} else {
			v = nt.sortVal(h.id)
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
	total, hits = ix.sortedPage(e, drive, o, now, sortF[0], sortFi[0], ix.checksOf(others))
	return total, hits, true
}
