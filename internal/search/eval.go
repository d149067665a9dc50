package search

import (
	"math"
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

// textFields are the field positions a text node searches.
func (ix *index) textFields(alias string) []int {
	var out []int
	for i, f := range ix.fields {
		if f.typ == typeText && !f.noindex && (alias == "" || f.alias == alias) {
			out = append(out, i)
		}
	}
	return out
}

// eval returns the documents matching n.
func (ix *index) eval(n *node) []uint32 {
	switch n.op {
	case opAll:
		return ix.all()
	case opNone:
		return nil
	case opTerm, opPrefix:
		set := map[uint32]bool{}
		for _, fi := range ix.textFields(n.field) {
			if n.op == opTerm {
				for id := range ix.texts[fi][n.term] {
					set[id] = true
				}
				continue
			}
			for t, docs := range ix.texts[fi] {
				if strings.HasPrefix(t, n.term) {
					for id := range docs {
						set[id] = true
					}
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
	case opNot:
		return minus(ix.all(), ix.eval(n.kids[0]))
	case opOr:
		var out []uint32
		for _, k := range n.kids {
			out = union(out, ix.eval(k))
		}
		return out
	case opAnd:
		var out []uint32
		first := true
		for _, k := range n.kids {
			if k.stop {
				continue
			}
			r := ix.eval(k)
			if first {
				out, first = r, false
			} else {
				out = intersect(out, r)
			}
		}
		if first { // only stop words
			return nil
		}
		return out
	}
	return nil
}

// scoreTerm is one positive text term of a query (not under a negation),
// with what scoring needs.
type scoreTerm struct {
	term   string
	fields []int
	idf    float64
}

// scoreTerms collects the positive text terms of query n.
func (ix *index) scoreTerms(n *node) []scoreTerm {
	var nodes []*node
	var walk func(n *node)
	walk = func(n *node) {
		switch n.op {
		case opTerm:
			nodes = append(nodes, n)
		case opAnd, opOr:
			for _, k := range n.kids {
				walk(k)
			}
		}
	}
	walk(n)
	out := make([]scoreTerm, 0, len(nodes))
	for _, t := range nodes {
		st := scoreTerm{term: t.term, fields: ix.textFields(t.field)}
		df := 0
		for _, fi := range st.fields {
			df += len(ix.texts[fi][t.term])
		}
		if df == 0 {
			continue
		}
		st.idf = math.Log1p(float64(ix.live) / float64(df))
		out = append(out, st)
	}
	if len(out) == 0 && len(nodes) > 0 {
		out = append(out, scoreTerm{}) // text terms, none present: score 0
	}
	return out
}

// score is the TF-IDF score of document id for the query's terms: the sum
// over terms of (frequency in the document's searched fields x field
// weight / document words) x log(1 + documents / documents with the
// term). A query without text terms scores every document 1.
func (ix *index) score(id uint32, terms []scoreTerm) float64 {
	if len(terms) == 0 {
		return 1
	}
	d := ix.docs[id]
	s := 0.0
	for _, t := range terms {
		tf := 0.0
		for _, fi := range t.fields {
			tf += float64(freq(d.terms[fi], t.term)) * ix.fields[fi].weight
		}
		s += tf / float64(max(d.words, 1)) * t.idf
	}
	return s
}
