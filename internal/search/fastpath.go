package search

import (
	"cmp"
	"math"
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
						odd.push(scored{score: ix.scoreDoc(o.scorer, resNumeric, ix.sdoc(id)), seq: uint64(id), id: id})
					} else if len(t.h) < t.k || id < t.h[0] {
						t.push(id)
					}
				}
				return true
			})
			for _, id := range t.h {
				odd.push(scored{score: s0, seq: uint64(id), id: id})
			}
			hits = odd.hits()
			if o.explain && o.withScores {
				for i := range hits {
					hits[i].expl = ix.explain(o.scorer, resNumeric, ix.sdoc(hits[i].id))
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
			t.push(scored{score: ix.scoreDoc(o.scorer, resNumeric, ix.sdoc(id)), seq: uint64(id), id: id})
			return true
		})
		hits = t.hits()
		if o.explain && o.withScores {
			for i := range hits {
				hits[i].expl = ix.explain(o.scorer, resNumeric, ix.sdoc(hits[i].id))
			}
		}
		return total, hits, true
	case len(sortF) == 1 && sortFi[0] == fi:
		total, hits = ix.sortedPage(e, nt, n, o, now, sortF[0], fi, nil)
		return total, hits, true
	}
	return 0, nil, false
}

// sortedPage walks numeric range n of field fi (the SORTBY field, in the
// sort's direction) in order, counting the documents that pass checks and
// are not past their TTL, and returns the first off+num of them in SORTBY
// order: hits are collected until off+num are held and the value's double
// moves on (those tied are then ordered exactly, then by seq). Without
// checks or TTLs, the walk stops there and the range is counted chunk by
// chunk (numTree.count).
//
// nt is the tree walked: field fi's, or a tag's order on it (tagnum.go),
// whose documents all have the tag.
func (ix *index) sortedPage(e *engine.Engine, nt *numTree, n *node, o *searchOpts, now int64, f *field, fi int, checks []check) (total int, hits []hit) {
	k := o.off + o.num
	lo, hi := boundsOf(n)
	expiring := ix.expiring(e)
	counted := len(checks) == 0 && !expiring
	desc := o.sortBy[0].desc
	// Ascending, equal doubles come by id, which is seq order (ids are
	// handed out in indexing order, and renumbering keeps their order):
	// without exact keys the walk is in SORTBY order, and the page is its
	// first off+num matches, ties or not.
	inOrder := !desc && nt.exact == nil
	if k > 0 {
		hits = o.pageBuf(min(k, 1024))
	}
	var last float64
	nt.walk(&lo, &hi, desc, func(id uint32, f float64) bool {
		if len(checks) > 0 && !passes(checks, id) {
			return true
		}
		if expiring && ix.expired(e, id, now) {
			return true
		}
		if len(hits) >= k && (k <= 0 || inOrder || f != last) {
			if counted {
				return false
			}
			total++
			return true
		}
		total++
		last = f
		hits = append(hits, hit{id: id, seq: uint64(id)})
		return true
	})
	if counted {
		total = nt.count(&lo, &hi)
	}
	return total, ix.finishSorted(e, o, hits, f, fi, inOrder)
}

// finishSorted gives hits (sorted by one numeric field) their sort values
// (and scores, when asked), in one allocation, and returns the first
// off+num of them in SORTBY order (they are in it already if inOrder).
func (ix *index) finishSorted(e *engine.Engine, o *searchOpts, hits []hit, f *field, fi int, inOrder bool) []hit {
	nt := ix.nums[fi]
	var sorts []sortVal // read by the sort, and by WITHSORTKEYS
	if !inOrder || o.withSortKey {
		sorts = make([]sortVal, len(hits))
	}
	for i := range hits {
		h := &hits[i]
		if o.withScores {
			d := ix.sdoc(h.id)
			h.score = ix.scoreDoc(o.scorer, resNumeric, d)
			if o.explain {
				h.expl = ix.explain(o.scorer, resNumeric, d)
			}
		}
		switch {
		case sorts == nil:
			continue
		case o.withSortKey:
			sorts[i] = ix.sortValue(e, h.id, f, fi)
		default:
			sorts[i] = nt.sortVal(h.id)
		}
		h.sort = sorts[i : i+1 : i+1]
	}
	if !inOrder {
		slices.SortStableFunc(hits, hitOrder(o, true))
	}
	return hits[:min(len(hits), max(o.off+o.num, 0))]
}

// walk is numTree.scan in the order of the values' doubles, ascending or
// (desc) descending: then documents whose doubles are equal come by id
// downwards (sortedPage sorts ties).
func (t *numTree) walk(lo, hi *numBound, desc bool, fn func(id uint32, f float64) bool) {
	if !desc {
		t.scan(lo, hi, fn)
		return
	}
	t.flush() // buffered writes (numeric.go)
	// From the last entry whose double is at most hi's, backwards.
	ci, j := t.startAfter(hi.f)
	for {
		if j == 0 {
			if ci == 0 {
				return
			}
			ci--
			j = len(t.ch[ci].f)
			continue
		}
		j--
		c := &t.ch[ci]
		f := c.f[j]
		if f > lo.f && f < hi.f {
			if !fn(c.ids[j], f) {
				return
			}
			continue
		}
		if f < lo.f {
			return
		}
		if t.edgeIn(f, c.ids[j], lo, hi) && !fn(c.ids[j], f) {
			return
		}
	}
}

// startAfter returns the position (chunk, index) of the first entry whose
// double is above f (len(ch), 0 if none).
func (t *numTree) startAfter(f float64) (int, int) {
	ci, _ := slices.BinarySearchFunc(t.maxF, f, func(m, f float64) int {
		if m <= f {
			return -1
		}
		return 1
	})
	if ci == len(t.ch) {
		return ci, 0
	}
	j, _ := slices.BinarySearchFunc(t.ch[ci].f, f, func(x, f float64) int {
		if x <= f {
			return -1
		}
		return 1
	})
	return ci, j
}

// eachRunOf calls fn with the documents filterable leaf n matches, a run
// of them at a time, each document once: a numeric range's (numTree.runs),
// or the union of the postings of a tag field's tags (a document with
// several of them comes from the first only).
func (ix *index) eachRunOf(n *node, fn func(ids []uint32)) {
	fi := ix.fieldIndex(n.field)
	if n.op == opNum {
		lo, hi := boundsOf(n)
		ix.nums[fi].runs(&lo, &hi, func(ids []uint32) bool {
			fn(ids)
			return true
		})
		return
	}
	td, col := ix.tags[fi], ix.tagc[fi]
	var lists []*plist[struct{}]
	for _, t := range n.tags {
		tid, found := td.lookup(ix.fields[fi].normTag(t.val))
		if found && !slices.Contains(lists, &td.posts[tid]) {
			lists = append(lists, &td.posts[tid])
		}
	}
	var buf []uint32
	for i, l := range lists {
		for _, c := range l.ch {
			if i == 0 {
				fn(c.ids)
				continue
			}
			buf = buf[:0]
			for _, id := range c.ids {
				if col[id] != multiTag || !inAny(lists[:i], id) {
					buf = append(buf, id)
				}
			}
			fn(buf)
		}
	}
}

func inAny(lists []*plist[struct{}], id uint32) bool {
	for _, l := range lists {
		if l.has(id) {
			return true
		}
	}
	return false
}

// byValue is a candidate hit of sortedTop: its value of the SORTBY field
// (has false: none, it comes last), seq and id.
type byValue struct {
	f   float64
	k   string // exact key, "" when f says it
	has bool
	seq uint64
	id  uint32
}

// before is SORTBY order (hitOrder) on one numeric field.
func (a *byValue) before(b *byValue, desc bool) bool {
	if a.has != b.has {
		return a.has
	}
	if a.has {
		c := numCmp(a.f, a.k, b.f, b.k)
		if desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return a.seq < b.seq
}

// sortedTop is runSearch for filterable leaves sorted by one numeric
// field, read from the documents of the smallest leaf src: each that
// passes checks (the other leaves) and is not past its TTL is counted,
// and the best off+num by the field's value are kept in a bounded heap
// (most are turned away by one compare of doubles with its worst). One
// pass, no id list: what the general path does with evalFiltered, hits
// and topK, without a hit or a sort value per match.
func (ix *index) sortedTop(e *engine.Engine, o *searchOpts, now int64, src *node, checks []check, f *field, fi int) (total int, hits []hit) {
	k := o.off + o.num
	nt := ix.nums[fi]
	vals := nt.vals
	desc := o.sortBy[0].desc
	expiring := ix.expiring(e)
	h := make([]byValue, 0, max(min(k, 1024), 0))
	worse := func(a, b *byValue) bool { return b.before(a, desc) }
	// One numeric check (the common "tag AND range" with the heap on
	// another field, or the range's field itself): its first test inline.
	var num *check
	if len(checks) == 1 && checks[0].nt != nil {
		num = &checks[0]
	}
	ix.eachRunOf(src, func(ids []uint32) {
		for _, id := range ids {
			if num != nil {
				if int(id) >= len(num.vals) {
					continue
				}
				if v := num.vals[id]; !(v > num.lo.f && v < num.hi.f) && !num.nt.has(id, &num.lo, &num.hi) {
					continue
				}
			} else if len(checks) > 0 && !passes(checks, id) {
				continue
			}
			if expiring && ix.expired(e, id, now) {
				continue
			}
			total++
			if k <= 0 {
				continue
			}
			x := byValue{f: math.NaN(), id: id}
			if int(id) < len(vals) {
				x.f = vals[id]
			}
			x.has = x.f == x.f
			if len(h) == k && h[0].has && x.has {
				// Turned away by doubles alone: most candidates.
				if !desc && x.f > h[0].f || desc && x.f < h[0].f {
					continue
				}
			}
			if x.has && nt.exact != nil {
				x.k = nt.exact[id]
			}
			x.seq = uint64(id)
			if len(h) < k {
				h = append(h, x)
				for i := len(h) - 1; i > 0; {
					p := (i - 1) / 2
					if !worse(&h[i], &h[p]) {
						break
					}
					h[i], h[p] = h[p], h[i]
					i = p
				}
				continue
			}
			if !x.before(&h[0], desc) {
				continue
			}
			h[0] = x
			for i := 0; ; {
				l, w := 2*i+1, i
				if l < len(h) && worse(&h[l], &h[w]) {
					w = l
				}
				if r := l + 1; r < len(h) && worse(&h[r], &h[w]) {
					w = r
				}
				if w == i {
					break
				}
				h[i], h[w] = h[w], h[i]
				i = w
			}
		}
	})
	// (value, seq) is a total order: sorted, h is the page's order.
	slices.SortFunc(h, func(a, b byValue) int {
		if a.before(&b, desc) {
			return -1
		}
		return 1
	})
	hits = make([]hit, len(h))
	for i, x := range h {
		hits[i] = hit{id: x.id, seq: x.seq}
	}
	return total, ix.finishSorted(e, o, hits, f, fi, true)
}

// searchSorted is runSearch for exact tags and numeric ranges (one leaf,
// or an intersection) sorted by one NUMERIC field, either direction,
// without scores. The smallest leaf (by estimate) gives the candidates,
// the others are checked on each candidate's indexed values, and every
// match is counted (the total) in the same pass:
//
//   - when the smallest is a range of the sort field, it is walked in the
//     sort's order (sortedPage): hits are only the first matches, the rest
//     are counted;
//   - else its documents are read in id order and the page is kept in a
//     bounded heap by the sort field's value (sortedTop).
//
// Either reads what the general path reads (evalFiltered starts from the
// same leaf) without building an id list or a hit per match. But first,
// when a leaf is one tag with an order on the sort field (tagnum.go) and
// another a range of that field, the tag's order is walked over the
// range (orderOf): only the documents with both, and without other leaves
// or TTLs only the page's, the total counted chunk by chunk. ok is false
// for other shapes.
func (s *state) searchSorted(e *engine.Engine, ix *index, q *node, o *searchOpts, now int64, sortF []*field, sortFi []int) (total int, hits []hit, ok bool) {
	if len(sortF) != 1 || o.withScores || sortF[0].typ != typeNumeric || ix.nums[sortFi[0]] == nil ||
		q.exact || o.slop >= 0 || o.inorder {
		return 0, nil, false
	}
	leaves := []*node{q}
	if q.op == opAnd {
		leaves = q.kids
	}
	qc := ix.newQctx()
	best, least := -1, 0
	for i, k := range leaves {
		if k.stop || !qc.filterable(k) {
			return 0, nil, false
		}
		fi := ix.fieldIndex(k.field)
		if k.op == opNum && ix.nums[fi] == nil || k.op == opTag && ix.tags[fi] == nil {
			return 0, nil, false
		}
		if e := qc.estimate(k); best < 0 || e < least {
			best, least = i, e
		}
	}
	if best < 0 {
		return 0, nil, false
	}
	if t, tag, drive := ix.orderOf(e, leaves, sortFi[0], least); t != nil {
		var rest []*node
		for i, k := range leaves {
			if i != tag && i != drive {
				rest = append(rest, k)
			}
		}
		total, hits = ix.sortedPage(e, t, leaves[drive], o, now, sortF[0], sortFi[0], ix.checksOf(rest))
		return total, hits, true
	}
	src := leaves[best]
	checks := ix.checksOf(slices.Delete(slices.Clone(leaves), best, best+1))
	if src.op == opNum && ix.fieldIndex(src.field) == sortFi[0] {
		total, hits = ix.sortedPage(e, ix.nums[sortFi[0]], src, o, now, sortF[0], sortFi[0], checks)
		return total, hits, true
	}
	total, hits = ix.sortedTop(e, o, now, src, checks, sortF[0], sortFi[0])
	return total, hits, true
}

// orderOf finds, among filterable leaves, one tag (a single value) whose
// order on field sf exists and a range of sf (tag and drive: their
// places), and returns the order when walking it over the range is
// cheaper than reading the smallest leaf (least documents): the walk stops
// after the page when nothing else is checked, and else reads the
// documents with the tag in the range.
func (ix *index) orderOf(e *engine.Engine, leaves []*node, sf int, least int) (t *numTree, tag, drive int) {
	drive = -1
	for i, k := range leaves {
		if k.op == opNum && ix.fieldIndex(k.field) == sf {
			drive = i
			break
		}
	}
	if drive < 0 || len(ix.tn.m) == 0 {
		return nil, 0, 0
	}
	for i, k := range leaves {
		if k.op != opTag {
			continue
		}
		fi := ix.fieldIndex(k.field)
		var tid uint32
		n := 0
		for _, tt := range k.tags {
			id, ok := ix.tags[fi].lookup(ix.fields[fi].normTag(tt.val))
			if ok && (n == 0 || id != tid) {
				tid = id
				n++
			}
		}
		if n != 1 {
			continue
		}
		if o := ix.tagOrder(fi, tid, sf); o != nil && (t == nil || o.n < t.n) {
			t, tag = o, i
		}
	}
	if t == nil {
		return nil, 0, 0
	}
	if len(leaves) > 2 || ix.expiring(e) {
		lo, hi := boundsOf(leaves[drive])
		if t.estimate(&lo, &hi) > least {
			return nil, 0, 0
		}
	}
	return t, tag, drive
}
