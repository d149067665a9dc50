package search

import (
	"slices"
	"strings"
)

// A result set is a sorted slice of document ids.

func sortedIDs[V any](m map[uint32]V) []uint32 {
	out := make([]uint32, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

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
	for id, d := range ix.docs {
		if d != nil {
			out = append(out, uint32(id))
		}
	}
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
		if _, ok := ix.texts[t]; ok && !slices.Contains(out, t) {
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
			if ix.phoneticIn(q.textMask(n.field)) {
				for _, c := range phoneticCodes(n.term) {
					add(phoneticPrefix + c)
				}
			}
		}
	default:
		var ts []string
		for t := range ix.texts {
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
	return n.op == opAnd && !n.nocheck && (n.exact || q.slop >= 0 || q.inorder)
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
		set := map[uint32]bool{}
		for _, t := range q.variants(n) {
			for id, e := range ix.texts[t] {
				if e.mask&m != 0 {
					set[id] = true
				}
			}
		}
		return sortedIDs(set)
	case opTag:
		fi := ix.fieldIndex(n.field)
		f := ix.fields[fi]
		set := map[uint32]bool{}
		for _, t := range n.tags {
			v := f.normTag(t.val)
			if !t.prefix {
				for id := range ix.tags[fi][v] {
					set[id] = true
				}
				continue
			}
			for tag, docs := range ix.tags[fi] {
				if strings.HasPrefix(tag, v) {
					for id := range docs {
						set[id] = true
					}
				}
			}
		}
		return sortedIDs(set)
	case opNum:
		fi := ix.fieldIndex(n.field)
		var out []uint32
		ix.nums[fi].scan(n.lo, n.loEx, n.hi, n.hiEx, func(id uint32) { out = append(out, id) })
		slices.Sort(out)
		return slices.Compact(out)
	case opGeo:
		return ix.geoScan(ix.fieldIndex(n.field), n.geo[0], n.geo[1], n.geo[2])
	case opMissing:
		fi := ix.fieldIndex(n.field)
		var out []uint32
		for id, d := range ix.docs {
			if d != nil && fi < 64 && d.has&(1<<fi) == 0 {
				out = append(out, uint32(id))
			}
		}
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
