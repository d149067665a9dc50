package search

import (
	"slices"
	"strings"
)

// A result set is a sorted slice of document ids.

func intersect(a, b []uint32) []uint32 {
	var out []uint32
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func union(a, b []uint32) []uint32 {
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

func minus(a, b []uint32) []uint32 {
	var out []uint32
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			continue
		}
		out = append(out, x)
	}
	return out
}

func (ix *index) all() []uint32 {
	out := make([]uint32, 0, ix.live)
	ix.eachDoc(func(id uint32, _ *doc) bool {
		out = append(out, id)
		return true
	})
	return out
}

// qctx is one query's evaluation: the index and the options that change
// what a node matches.
type qctx struct {
	ix       *index
	slop     int // -1: none
	inorder  bool
	verbatim bool
	lang     string
	mask     uint64 // the TEXT fields a node without @field searches (INFIELDS)
	vars     map[*node][]string
	sets     map[*node][]uint32 // leaf results, for match
	idfs     map[string][2]float64
	arena    resArena
	posBuf   []uint32 // positions of packed text entries (unpack), reset per document
}

// set is the (memoized) result of a tag, numeric, geo, ismissing or
// INKEYS leaf.
func (q *qctx) set(n *node) []uint32 {
	if r, ok := q.sets[n]; ok {
		return r
	}
	r := q.eval(n)
	if q.sets == nil {
		q.sets = map[*node][]uint32{}
	}
	q.sets[n] = r
	return r
}

// eval returns the documents matching n with the default options (no
// SLOP/INORDER, every TEXT field, the index's language).
func (ix *index) eval(n *node) []uint32 { return ix.newQctx().eval(n) }

// maxExpansions bounds the terms a prefix, suffix, infix or fuzzy term
// expands to (RediSearch's MAXPREFIXEXPANSIONS default).
const maxExpansions = 200

func (ix *index) newQctx() *qctx {
	return &qctx{ix: ix, slop: -1, lang: ix.lang, mask: ix.allText(), vars: map[*node][]string{}}
}

// allText is the mask of every indexed TEXT field.
func (ix *index) allText() uint64 {
	var m uint64
	for _, f := range ix.fields {
		if f.typ == typeText && !f.noindex {
			m |= 1 << f.ord
		}
	}
	return m
}

// textMask is the mask of the TEXT fields a node searches.
func (q *qctx) textMask(field string) uint64 {
	if field == "" {
		return q.mask
	}
	var m uint64
	for _, a := range strings.Split(field, "|") {
		if f := q.ix.attr(a); f != nil && f.typ == typeText && !f.noindex {
			m |= 1 << f.ord
		}
	}
	return m
}

// variants are the index terms a text leaf matches: for a term, the word,
// and unless verbatim its stem (as a word and as "+stem") and phonetic
// codes; for a prefix, suffix, infix or fuzzy term, the words it expands
// to. Only terms present in the index are kept.
func (q *qctx) variants(n *node) []string {
	if v, ok := q.vars[n]; ok {
		return v
	}
	ix := q.ix
	var out []string
	add := func(t string) {
		if _, ok := ix.terms.lookup(t); ok && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	switch n.op {
	case opTerm:
		add(n.term)
		if !n.verbatim && !q.verbatim {
			if s := stem(n.term, q.lang); s != "" {
				add(stemPrefix + s)
				if s != n.term {
					add(s)
				}
			}
			if n.phon != 1 && ix.phoneticIn(q.textMask(n.field)) { // not $phonetic: false
				for _, c := range phoneticCodes(n.term) {
					add(phoneticPrefix + c)
				}
			}
		}
	default:
		var ts []string
		for t := range ix.terms.ids {
			if t == "" || t[0] == '+' || t[0] == '<' {
				continue
			}
			ok := false
			switch n.op {
			case opPrefix:
				ok = strings.HasPrefix(t, n.term)
			case opSuffix:
				ok = strings.HasSuffix(t, n.term)
			case opInfix:
				ok = strings.Contains(t, n.term)
			case opFuzzy:
				ok = levenshtein(t, n.term, n.dist) <= n.dist
			}
			if ok {
				ts = append(ts, t)
			}
		}
		slices.Sort(ts)
		out = ts[:min(len(ts), maxExpansions)]
	}
	q.vars[n] = out
	return out
}

func (ix *index) phoneticIn(mask uint64) bool {
	for _, f := range ix.fields {
		if f.typ == typeText && f.phonetic != "" && mask&(1<<f.ord) != 0 {
			return true
		}
	}
	return false
}

// positional reports whether an intersection checks its terms' positions.
func (q *qctx) positional(n *node) bool {
	slop, inorder := q.slopOf(n) // the query's SLOP/INORDER, or the node's $slop/$inorder
	return n.op == opAnd && !n.nocheck && (n.exact || slop >= 0 || inorder)
}

// eval returns the documents matching n, in id order.
func (q *qctx) eval(n *node) []uint32 {
	ix := q.ix
	switch n.op {
	case opAll:
		return ix.all()
	case opNone:
		return nil
	case opTerm, opPrefix, opSuffix, opInfix, opFuzzy:
		m := q.textMask(n.field)
		vars := q.variants(n)
		var out []uint32
		for _, t := range vars {
			ix.terms.list(t).each(func(id uint32, v uint64) {
				if ix.entryMask(v)&m != 0 {
					out = append(out, id)
				}
			})
		}
		if len(vars) > 1 {
			slices.Sort(out)
			out = slices.Compact(out)
		}
		return out
	case opTag:
		fi := ix.fieldIndex(n.field)
		f := ix.fields[fi]
		td := ix.tags[fi]
		if len(n.tags) == 1 && !n.tags[0].prefix {
			// One tag: its postings, in order.
			p := td.list(f.normTag(n.tags[0].val))
			if p == nil {
				return nil
			}
			return p.appendIDs(make([]uint32, 0, p.n))
		}
		var out []uint32
		lists := 0
		for _, t := range n.tags {
			v := f.normTag(t.val)
			if !t.prefix {
				if p := td.list(v); p != nil {
					out = p.appendIDs(out)
					lists++
				}
				continue
			}
			for tag, tid := range td.ids {
				if strings.HasPrefix(tag, v) {
					out = td.posts[tid].appendIDs(out)
					lists++
				}
			}
		}
		if lists > 1 {
			slices.Sort(out)
			out = slices.Compact(out)
		}
		return out
	case opNum:
		fi := ix.fieldIndex(n.field)
		lo, hi := boundsOf(n)
		var out []uint32
		ix.nums[fi].scan(&lo, &hi, func(id uint32, _ float64) bool {
			out = append(out, id)
			return true
		})
		slices.Sort(out)
		return out
	case opGeo:
		return ix.geoScan(ix.fieldIndex(n.field), n.geo[0], n.geo[1], n.geo[2])
	case opMissing:
		fi := ix.fieldIndex(n.field)
		var out []uint32
		ix.eachDoc(func(id uint32, _ *doc) bool {
			if !ix.hasField(id, fi) {
				out = append(out, id)
			}
			return true
		})
		return out
	case opIDs:
		return n.ids
	case opNot:
		return minus(ix.all(), q.eval(n.kids[0]))
	case opOpt:
		return ix.all()
	case opOr:
		var out []uint32
		for _, k := range n.kids {
			out = union(out, q.eval(k))
		}
		return out
	case opAnd:
		if out, ok := q.evalFiltered(n); ok {
			return out
		}
		var out []uint32
		first := true
		for _, k := range n.kids {
			if k.stop || k.op == opOpt {
				continue // an optional term does not filter
			}
			r := q.eval(k)
			if first {
				out, first = r, false
			} else {
				out = intersect(out, r)
			}
		}
		if first { // only stop words, or optional terms
			for _, k := range n.kids {
				if k.op == opOpt {
					out = ix.all()
					break
				}
			}
			if out == nil {
				return nil
			}
		}
		if q.positional(n) {
			kept := out[:0]
			for _, id := range out {
				if q.matchDoc(n, id) != nil {
					kept = append(kept, id)
				}
			}
			out = kept
		}
		return out
	}
	return nil
}

// evalFiltered evaluates an intersection holding tag (exact tags) and
// numeric leaves without materializing each: the other kids, or else the
// smallest such leaf (by its estimated size), give the candidates, and the
// remaining leaves are checked on each candidate's indexed values (what
// the index holds for a document is exactly what its postings say). ok is
// false when n is not of that shape (phrases, SLOP/INORDER, optional
// terms, a single leaf).
func (q *qctx) evalFiltered(n *node) (out []uint32, ok bool) {
	ix := q.ix
	if q.positional(n) {
		return nil, false
	}
	var filters, rest []*node
	for _, k := range n.kids {
		switch {
		case k.op == opOpt:
			return nil, false
		case k.stop:
		case q.filterable(k):
			filters = append(filters, k)
		default:
			rest = append(rest, k)
		}
	}
	if len(filters) == 0 || len(filters) == 1 && len(rest) == 0 {
		return nil, false
	}
	if len(rest) > 0 {
		out = q.eval(rest[0])
		for _, k := range rest[1:] {
			out = intersect(out, q.eval(k))
		}
	} else {
		best, size := 0, -1
		for i, f := range filters {
			if e := q.estimate(f); size < 0 || e < size {
				best, size = i, e
			}
		}
		out = q.eval(filters[best])
		filters = slices.Delete(slices.Clone(filters), best, best+1)
	}
	checks := ix.checksOf(filters)
	kept := make([]uint32, 0, len(out)/2+1)
	for _, id := range out {
		if passes(checks, id) {
			kept = append(kept, id)
		}
	}
	return kept, true
}

// check is a filterable leaf resolved for per-document tests: a numeric
// field's tree and bounds, or the tags of a tag field. The fields after
// the first ones are what passes reads first: the numeric column and the
// tag column with the one tag's id+1 (tid), so that most documents are
// decided by one load and a compare.
type check struct {
	nt     *numTree
	lo, hi numBound
	col    []uint32 // the tag field's column (index.tagc)
	tids   []uint32 // the tags' ids+1
	tags   []*plist[struct{}]
	vals   []float64 // nt.vals
	tid    uint32    // the only tag's id+1 (0: none or several)
}

func (ix *index) checksOf(leaves []*node) []check {
	checks := make([]check, len(leaves))
	for i, n := range leaves {
		fi := ix.fieldIndex(n.field)
		c := check{}
		if n.op == opNum {
			c.nt = ix.nums[fi]
			c.vals = c.nt.vals
			c.lo, c.hi = boundsOf(n)
		}
		if n.op == opTag {
			c.col = ix.tagc[fi]
		}
		for _, t := range n.tags {
			if tid, ok := ix.tags[fi].lookup(ix.fields[fi].normTag(t.val)); ok && !slices.Contains(c.tids, tid+1) {
				c.tags = append(c.tags, &ix.tags[fi].posts[tid])
				c.tids = append(c.tids, tid+1)
			}
		}
		if len(c.tids) == 1 {
			c.tid = c.tids[0]
		}
		checks[i] = c
	}
	return checks
}

// passes reports whether document id passes every check.
func passes(checks []check, id uint32) bool {
	for i := range checks {
		c := &checks[i]
		if c.nt != nil {
			if int(id) < len(c.vals) {
				if f := c.vals[id]; f > c.lo.f && f < c.hi.f {
					continue
				}
			}
			if !c.nt.has(id, &c.lo, &c.hi) {
				return false
			}
			continue
		}
		if int(id) >= len(c.col) {
			return false
		}
		v := c.col[id]
		if v == c.tid && v != 0 {
			continue
		}
		if v == 0 {
			return false
		}
		if v != multiTag {
			if !slices.Contains(c.tids, v) {
				return false
			}
			continue
		}
		has := false
		for _, p := range c.tags {
			if p.has(id) {
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

// filterable: a numeric range, or exact tags, on a field of the index.
func (q *qctx) filterable(n *node) bool {
	if n.op != opNum && n.op != opTag {
		return false
	}
	fi := q.ix.fieldIndex(n.field)
	if fi < 0 {
		return false
	}
	for _, t := range n.tags {
		if t.prefix {
			return false
		}
	}
	return true
}

// estimate is about how many documents a filterable leaf matches.
func (q *qctx) estimate(n *node) int {
	ix := q.ix
	fi := ix.fieldIndex(n.field)
	if n.op == opNum {
		lo, hi := boundsOf(n)
		return ix.nums[fi].estimate(&lo, &hi)
	}
	f := ix.fields[fi]
	e := 0
	for _, t := range n.tags {
		if p := ix.tags[fi].list(f.normTag(t.val)); p != nil {
			e += p.n
		}
	}
	return e
}
