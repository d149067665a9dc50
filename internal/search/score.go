package search

import (
	"math"
	"slices"
)

// Scoring, as RediSearch 2.x's src/ext/default.c: a query's match of a
// document is a tree of results mirroring the query's iterators (terms,
// intersections, unions, and "virtual" results for *, negations, numeric
// and geo filters), and a scorer folds that tree.

type rkind uint8

const (
	rTerm    rkind = iota // a text term (idf) or a tag (no term: idf 0)
	rVirtual              // *, NOT, INKEYS, ismissing: frequency 1
	rNumeric              // numeric and geo ranges: frequency 1
	rInter
	rUnion
)

type rres struct {
	kind    rkind
	freq    uint32
	idf     float64 // TFIDF's
	bm25idf float64 // BM25STD's
	weight  float64
	pos     []uint32 // term positions (fieldOrd<<posBits | position)
	kids    []*rres
}

var (
	resVirtual = &rres{kind: rVirtual, freq: 1, weight: 1}
	resNumeric = &rres{kind: rNumeric, freq: 1, weight: 1}
	// an optional term a document lacks: a virtual result of weight 0
	resOptMissing = &rres{kind: rVirtual, freq: 1}
)

// idf is RediSearch's CalculateIDF: logb(1 + docs/termDocs) (logb: the
// binary exponent, an integer).
func idf(docs, termDocs int) float64 {
	return math.Logb(1 + float64(docs)/float64(max(termDocs, 1)))
}

// resArena hands out results for one document's match without a heap
// allocation each: slabs are kept and reused by the next document.
type resArena struct {
	slabs  [][]rres
	ptrs   [][]*rres
	n, p   int // used in the current slab of each
	si, pi int
}

const slabSize = 256

func (a *resArena) reset() { a.n, a.p, a.si, a.pi = 0, 0, 0, 0 }

func (a *resArena) res(r rres) *rres {
	if a.si == len(a.slabs) {
		a.slabs = append(a.slabs, make([]rres, slabSize))
	}
	x := &a.slabs[a.si][a.n]
	*x = r
	if a.n++; a.n == slabSize {
		a.si, a.n = a.si+1, 0
	}
	return x
}

// kids returns an empty slice with room for n results.
func (a *resArena) kids(n int) []*rres {
	if n > slabSize {
		return make([]*rres, 0, n)
	}
	if a.pi < len(a.ptrs) && a.p+n > slabSize {
		a.pi, a.p = a.pi+1, 0
	}
	if a.pi == len(a.ptrs) {
		a.ptrs = append(a.ptrs, make([]*rres, slabSize))
	}
	s := a.ptrs[a.pi][a.p : a.p : a.p+n]
	a.p += n
	return s
}

// termIDF is a term's TFIDF and BM25STD idfs, computed once per query.
func (q *qctx) termIDF(t string) [2]float64 {
	if v, ok := q.idfs[t]; ok {
		return v
	}
	df := q.ix.termDocs(t)
	v := [2]float64{idf(q.ix.live, df), math.Log(1 + (float64(q.ix.live)-float64(df)+0.5)/(float64(df)+0.5))}
	if q.idfs == nil {
		q.idfs = map[string][2]float64{}
	}
	q.idfs[t] = v
	return v
}

// matchDoc is match for a new document: the previous one's results are
// reused.
func (q *qctx) matchDoc(n *node, id uint32) *rres {
	q.arena.reset()
	q.posBuf = q.posBuf[:0]
	return q.match(n, id)
}

// match returns n's result for document id, or nil if it does not match;
// a node's $weight multiplies its result's weight.
func (q *qctx) match(n *node, id uint32) *rres {
	r := q.matchNode(n, id)
	if r != nil && n.hasW {
		c := *r
		c.weight *= n.weight
		r = q.arena.res(c)
	}
	return r
}

func (q *qctx) matchNode(n *node, id uint32) *rres {
	ix := q.ix
	switch n.op {
	case opAll:
		return resVirtual
	case opNone:
		return nil
	case opTerm, opPrefix, opSuffix, opInfix, opFuzzy:
		m := q.textMask(n.field)
		vars := q.variants(n)
		kids := q.arena.kids(len(vars))
		for _, t := range vars {
			p := ix.terms.list(t)
			if p == nil {
				continue
			}
			v, ok := p.get(id)
			if !ok || ix.entryMask(v)&m == 0 {
				continue
			}
			var e tentry
			e, q.posBuf = ix.unpack(v, q.posBuf)
			idfs := q.termIDF(t)
			r := q.arena.res(rres{kind: rTerm, freq: e.freq, weight: 1, idf: idfs[0], bm25idf: idfs[1]})
			if e.mask&^m == 0 {
				r.pos = e.pos
			} else {
				for _, p := range e.pos {
					if m&(1<<(p>>posBits)) != 0 {
						r.pos = append(r.pos, p)
					}
				}
			}
			kids = append(kids, r)
		}
		switch {
		case len(kids) == 0:
			return nil
		case len(vars) == 1:
			return kids[0]
		}
		return q.arena.res(rres{kind: rUnion, weight: 1, kids: kids})
	case opTag:
		if _, ok := slices.BinarySearch(q.set(n), id); !ok {
			return nil
		}
		return q.arena.res(rres{kind: rTerm, freq: 1, weight: 1})
	case opNum, opGeo, opMissing, opIDs:
		if _, ok := slices.BinarySearch(q.set(n), id); !ok {
			return nil
		}
		if n.op == opNum || n.op == opGeo {
			return resNumeric
		}
		return resVirtual
	case opNot:
		if q.match(n.kids[0], id) != nil {
			return nil
		}
		return resVirtual
	case opOpt:
		if r := q.match(n.kids[0], id); r != nil {
			return r
		}
		return resOptMissing
	case opOr:
		kids := q.arena.kids(len(n.kids))
		for _, k := range n.kids {
			if r := q.match(k, id); r != nil {
				kids = append(kids, r)
			}
		}
		if len(kids) == 0 {
			return nil
		}
		return q.arena.res(rres{kind: rUnion, weight: 1, kids: kids})
	case opAnd:
		kids := q.arena.kids(len(n.kids))
		for _, k := range n.kids {
			if k.stop {
				continue
			}
			r := q.match(k, id)
			if r == nil {
				return nil
			}
			kids = append(kids, r)
		}
		if len(kids) == 0 {
			return nil
		}
		if q.positional(n) {
			slop, inorder := q.slopOf(n)
			if n.exact {
				slop, inorder = 0, true
			}
			if slop < 0 {
				slop = math.MaxInt32
			}
			if !withinRange(kids, slop, inorder) {
				return nil
			}
		}
		return q.arena.res(rres{kind: rInter, weight: 1, kids: kids})
	}
	return nil
}

// offsets are the positions of a result: a term's, or its descendants'
// merged.
func (r *rres) offsets() []uint32 {
	switch r.kind {
	case rTerm:
		return r.pos
	case rInter, rUnion:
		if len(r.kids) == 1 {
			return r.kids[0].offsets()
		}
		var out []uint32
		for _, k := range r.kids {
			out = append(out, k.offsets()...)
		}
		slices.Sort(out)
		return out
	}
	return nil
}

func (r *rres) hasOffsets() bool {
	switch r.kind {
	case rTerm:
		return len(r.pos) > 0
	case rInter, rUnion:
		for _, k := range r.kids {
			if k.hasOffsets() {
				return true
			}
		}
	}
	return false
}

// withinRange reports whether the results' positions (those that have
// any) hold one position each such that the words between the first and
// the last number at most slop, in the query's order if inorder.
func withinRange(kids []*rres, slop int, inorder bool) bool {
	var lists [][]uint32
	for _, k := range kids {
		if k.hasOffsets() {
			lists = append(lists, k.offsets())
		}
	}
	n := len(lists)
	if n <= 1 {
		return true
	}
	if inorder {
		for _, start := range lists[0] {
			cur, ok := start, true
			for _, l := range lists[1:] {
				i, _ := slices.BinarySearch(l, cur+1)
				if i == len(l) {
					ok = false
					break
				}
				cur = l[i]
			}
			if !ok {
				return false
			}
			if int64(cur)-int64(start)-int64(n-1) <= int64(slop) {
				return true
			}
		}
		return false
	}
	idx := make([]int, n)
	for {
		lo, hi, loI := uint32(math.MaxUint32), uint32(0), 0
		for i, l := range lists {
			p := l[idx[i]]
			if p < lo {
				lo, loI = p, i
			}
			hi = max(hi, p)
		}
		if int64(hi)-int64(lo)-int64(n-1) <= int64(slop) {
			return true
		}
		idx[loI]++
		if idx[loI] == len(lists[loI]) {
			return false
		}
	}
}

// minOffsetDelta is RediSearch's IndexResult_MinOffsetDelta (the "slop"
// that divides TFIDF and BM25 scores): over adjacent children with
// positions, the square root of the sum of their squared closest
// distances.
func (r *rres) minOffsetDelta() int {
	if (r.kind != rInter && r.kind != rUnion) || len(r.kids) <= 1 {
		return 1
	}
	const mask = 1<<posBits - 1
	has := (*rres).hasOffsets
	num := len(r.kids)
	dist := 0
	for i := 0; i < num; {
		for i < num && !has(r.kids[i]) {
			i++
		}
		if i == num {
			break
		}
		v1 := r.kids[i].offsets()
		i++
		for i < num && !has(r.kids[i]) {
			i++
		}
		if i == num {
			if dist == 0 {
				dist = 100
			}
			break
		}
		v2 := r.kids[i].offsets()
		a, b := 0, 0
		p1, p2 := int(v1[0]&mask), int(v2[0]&mask)
		cd := abs(p2 - p1)
		for cd > 1 && a < len(v1) && b < len(v2) {
			cd = min(cd, abs(p2-p1))
			if p2 > p1 {
				a++
				if a < len(v1) {
					p1 = int(v1[a] & mask)
				}
			} else {
				b++
				if b < len(v2) {
					p2 = int(v2[b] & mask)
				}
			}
		}
		dist += cd * cd
	}
	if dist != 0 {
		return int(math.Sqrt(float64(dist)))
	}
	return num - 1
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Scorer names (FT.SEARCH SCORER), as RediSearch registers them.
const (
	scorerTFIDF    = "TFIDF"
	scorerDocNorm  = "TFIDF.DOCNORM"
	scorerBM25     = "BM25"
	scorerBM25STD  = "BM25STD"
	scorerDisMax   = "DISMAX"
	scorerDocScore = "DOCSCORE"
	scorerHamming  = "HAMMING"
)

func validScorer(s string) bool {
	switch s {
	case scorerTFIDF, scorerDocNorm, scorerBM25, scorerBM25STD, scorerDisMax, scorerDocScore, scorerHamming:
		return true
	}
	return false
}

// score is the scorer's value for document d matched with result r.
func (ix *index) scoreDoc(scorer string, r *rres, d sdoc) float64 {
	switch scorer {
	case scorerDocScore:
		return d.score
	case scorerHamming:
		return 0 // documents have no payloads
	case scorerDisMax:
		return r.dismax()
	case scorerBM25, scorerBM25STD:
		if d.score == 0 {
			return 0
		}
		avg := 0.0
		if ix.live > 0 {
			avg = float64(ix.totalLen) / float64(ix.live)
		}
		var s float64
		if scorer == scorerBM25 {
			s = d.score * r.bm25(avg)
		} else {
			s = d.score * r.bm25std(ix, d.doc, avg)
		}
		return s / float64(r.minOffsetDelta())
	}
	if d.score == 0 {
		return 0
	}
	norm := d.maxFreq
	if scorer == scorerDocNorm {
		norm = d.length
	}
	s := d.score * r.tfidf() / float64(max(norm, 1))
	return s / float64(r.minOffsetDelta())
}

func (r *rres) tfidf() float64 {
	switch r.kind {
	case rTerm:
		return r.weight * float64(r.freq) * r.idf
	case rInter, rUnion:
		s := 0.0
		for _, k := range r.kids {
			s += k.tfidf()
		}
		return r.weight * s
	}
	return r.weight * float64(r.freq)
}

// bm25 is RediSearch 2.x's BM25 (its k1 1.2, b 0.5 and average document
// length, with the TFIDF idf).
func (r *rres) bm25(avg float64) float64 {
	const b, k1 = float32(0.5), float32(1.2)
	den := float64(k1) * (float64(1-b) + float64(b)*avg)
	f := float64(r.freq)
	switch r.kind {
	case rTerm:
		return r.idf * f / (f + den)
	case rInter, rUnion:
		s := 0.0
		for _, k := range r.kids {
			s += k.bm25(avg)
		}
		return r.weight * s
	}
	if f == 0 {
		return 0
	}
	return r.weight * f / (f + den)
}

// bm25std is the standard BM25 of RediSearch 2.8's BM25STD: idf
// log(1 + (N - n + 0.5)/(n + 0.5)), k1 1.2, b 0.75, document length over
// the average.
func (r *rres) bm25std(ix *index, d *doc, avg float64) float64 {
	const b, k1 = 0.75, 1.2
	f := float64(r.freq)
	norm := 1.0
	if avg > 0 {
		norm = 1 - b + b*float64(d.length)/avg
	}
	switch r.kind {
	case rTerm:
		return r.weight * r.bm25idf * f * (k1 + 1) / (f + k1*norm)
	case rInter, rUnion:
		s := 0.0
		for _, k := range r.kids {
			s += k.bm25std(ix, d, avg)
		}
		return r.weight * s
	}
	if f == 0 {
		return 0
	}
	return r.weight * f * (k1 + 1) / (f + k1*norm)
}

func (r *rres) dismax() float64 {
	switch r.kind {
	case rInter:
		s := 0.0
		for _, k := range r.kids {
			s += k.dismax()
		}
		return r.weight * s
	case rUnion:
		s := 0.0
		for _, k := range r.kids {
			s = max(s, k.dismax())
		}
		return r.weight * s
	}
	return r.weight * float64(r.freq)
}
