package search

import (
	"encoding/binary"
	"slices"
)

// Per-tag orders. For every TAG field and SORTABLE NUMERIC field of an
// index, each tag with at least tagNumMin documents keeps the (value, id)
// pairs of its documents in value order: a numTree of that tag's documents
// alone (chunks, no column by id: 12 bytes an entry). It answers
// "@t:{x} @n:[a b] SORTBY n LIMIT off num" by walking the tag's order from
// a and stopping after off+num hits, and counts the total chunk by chunk,
// instead of reading every document of the tag or of the range
// (fastpath.go, searchSorted). It is what a (tag, number) composite index
// is in a B-tree store. Smaller tags have none: reading their postings is
// as cheap. The orders are kept by add and remove (index.go calls tnAdd
// and tnRemove), renumbered with the ids (tnRenumber) and reset with the
// fields (tnInit).

// tagNumMin is the size from which a tag keeps its orders.
const tagNumMin = 256

// tnKey names one order: TAG field, tag id, NUMERIC field.
type tnKey struct{ tf, tid, nf uint32 }

// tagNums is an index's per-tag orders.
type tagNums struct {
	m   map[tnKey]*numTree
	num []int // the SORTABLE NUMERIC fields, if the index has a TAG field
	min int   // tests: tagNumMin's stand-in when not 0
}

// tnInit resets the orders for the index's fields (initFields).
func (ix *index) tnInit() {
	ix.tn = tagNums{min: ix.tn.min}
	hasTag := false
	for i, f := range ix.fields {
		switch {
		case f.noindex:
		case f.typ == typeTag:
			hasTag = true
		case f.typ == typeNumeric && f.sortable:
			ix.tn.num = append(ix.tn.num, i)
		}
	}
	if !hasTag {
		ix.tn.num = nil
	}
}

// docTags calls fn with each TAG field and tag id of document id, read
// from its record.
func (ix *index) docTags(id uint32, fn func(tf int, tid uint32)) {
	b := ix.recs.at(ix.doc(id).rec)
	_, w := binary.Uvarint(b)
	b = b[w:]
	kl, w := binary.Uvarint(b)
	b = b[w+int(kl):]
	read := func() uint32 {
		x, w := binary.Uvarint(b)
		b = b[w:]
		return uint32(x)
	}
	for i, f := range ix.fields {
		if f.typ != typeTag {
			continue
		}
		for k := read(); k > 0; k-- {
			fn(i, read())
		}
	}
}

// tnAdd adds document id, just indexed, to its tags' orders; a tag that
// reaches tagNumMin documents gets its orders, built from its postings.
func (ix *index) tnAdd(id uint32) {
	if len(ix.tn.num) == 0 {
		return
	}
	ix.docTags(id, func(tf int, tid uint32) {
		for _, nf := range ix.tn.num {
			k := tnKey{uint32(tf), tid, uint32(nf)}
			if t := ix.tn.m[k]; t != nil {
				if f, _, ok := ix.nums[nf].value(id); ok {
					t.insertPair(f, id)
				}
				continue
			}
			p := &ix.tags[tf].posts[tid]
			if p.n < tagNumMin && (ix.tn.min == 0 || p.n < ix.tn.min) {
				continue
			}
			if ix.tn.m == nil {
				ix.tn.m = map[tnKey]*numTree{}
			}
			ix.tn.m[k] = ix.nums[nf].subTree(p)
		}
	})
}

// tnRemove removes document id, about to be removed, from its tags'
// orders (an order left empty is dropped).
func (ix *index) tnRemove(id uint32) {
	if len(ix.tn.m) == 0 {
		return
	}
	ix.docTags(id, func(tf int, tid uint32) {
		for _, nf := range ix.tn.num {
			k := tnKey{uint32(tf), tid, uint32(nf)}
			t := ix.tn.m[k]
			if t == nil {
				continue
			}
			if f, _, ok := ix.nums[nf].value(id); ok {
				t.removePair(f, id)
			}
			if t.n == 0 {
				delete(ix.tn.m, k)
			}
		}
	})
}

// tnRenumber maps the orders' ids (m: old id -> new id + 1, increasing).
func (ix *index) tnRenumber(m []uint32) {
	for _, t := range ix.tn.m {
		for _, c := range t.ch {
			for i, id := range c.ids {
				c.ids[i] = m[id] - 1
			}
		}
		for i, id := range t.maxID {
			t.maxID[i] = m[id] - 1
		}
	}
}

// tagOrder returns the order of tag tid of TAG field tf on NUMERIC field
// nf, ready to scan (it shares nf's exact keys), or nil.
func (ix *index) tagOrder(tf int, tid uint32, nf int) *numTree {
	t := ix.tn.m[tnKey{uint32(tf), tid, uint32(nf)}]
	if t != nil {
		t.exact = ix.nums[nf].exact
	}
	return t
}

// tnBytes is the memory the orders take (FT.INFO).
func (ix *index) tnBytes() int {
	n := 0
	for _, t := range ix.tn.m {
		n += 64 + cap(t.ch)*48 + cap(t.maxF)*8 + cap(t.maxID)*4
		for _, c := range t.ch {
			n += cap(c.f)*8 + cap(c.ids)*4
		}
	}
	return n
}

// subTree returns the tree of the documents of p that have a value in t:
// their pairs in order, in full chunks, without a column by id.
func (t *numTree) subTree(p *plist[struct{}]) *numTree {
	type pair struct {
		f  float64
		id uint32
	}
	ps := make([]pair, 0, p.n)
	for _, c := range p.ch {
		for _, id := range c.ids {
			if int(id) < len(t.vals) && t.vals[id] == t.vals[id] {
				ps = append(ps, pair{t.vals[id], id})
			}
		}
	}
	slices.SortFunc(ps, func(a, b pair) int {
		if numLess(a.f, a.id, b.f, b.id) {
			return -1
		}
		return 1
	})
	s := &numTree{n: len(ps)}
	for i := 0; i < len(ps); i += chunkMax {
		part := ps[i:min(i+chunkMax, len(ps))]
		c := numChunk{f: make([]float64, len(part)), ids: make([]uint32, len(part))}
		for j, x := range part {
			c.f[j], c.ids[j] = x.f, x.id
		}
		s.ch = append(s.ch, c)
		s.maxF = append(s.maxF, c.f[len(c.f)-1])
		s.maxID = append(s.maxID, c.ids[len(c.ids)-1])
	}
	return s
}

// insertPair adds (f, id) to a tree without a column by id (subTree's).
func (t *numTree) insertPair(f float64, id uint32) {
	t.n++
	if len(t.ch) == 0 {
		t.ch = []numChunk{{f: []float64{f}, ids: []uint32{id}}}
		t.maxF, t.maxID = []float64{f}, []uint32{id}
		return
	}
	ci := t.chunkFor(f, id)
	c := &t.ch[ci]
	j := c.search(f, id)
	if len(c.f) >= chunkMax {
		if ci == len(t.ch)-1 && j == len(c.f) {
			t.ch = append(t.ch, numChunk{f: append(make([]float64, 0, 8), f), ids: append(make([]uint32, 0, 8), id)})
			t.maxF, t.maxID = append(t.maxF, f), append(t.maxID, id)
			return
		}
		h := len(c.f) / 2
		right := numChunk{f: append(make([]float64, 0, chunkMax/2+16), c.f[h:]...), ids: append(make([]uint32, 0, chunkMax/2+16), c.ids[h:]...)}
		left := numChunk{f: append(make([]float64, 0, chunkMax/2+16), c.f[:h]...), ids: append(make([]uint32, 0, chunkMax/2+16), c.ids[:h]...)}
		t.ch = slices.Insert(t.ch, ci+1, right)
		t.ch[ci] = left
		t.maxF = slices.Insert(t.maxF, ci, 0)
		t.maxID = slices.Insert(t.maxID, ci, 0)
		t.fix(ci)
		if j >= h {
			ci, j = ci+1, j-h
		}
		c = &t.ch[ci]
	}
	if len(c.f) == cap(c.f) {
		// Grown to at most a full chunk (append would double past it).
		n := min(max(2*cap(c.f), 8), chunkMax)
		c.f = append(make([]float64, 0, n), c.f...)
		c.ids = append(make([]uint32, 0, n), c.ids...)
	}
	c.f = slices.Insert(c.f, j, f)
	c.ids = slices.Insert(c.ids, j, id)
	t.fix(ci)
}

// removePair removes (f, id) from a tree without a column by id.
func (t *numTree) removePair(f float64, id uint32) {
	if len(t.ch) == 0 {
		return
	}
	ci := t.chunkFor(f, id)
	c := &t.ch[ci]
	j := c.search(f, id)
	if j == len(c.f) || c.ids[j] != id {
		return
	}
	t.n--
	if len(c.f) == 1 {
		t.ch = slices.Delete(t.ch, ci, ci+1)
		t.maxF = slices.Delete(t.maxF, ci, ci+1)
		t.maxID = slices.Delete(t.maxID, ci, ci+1)
		return
	}
	c.f = slices.Delete(c.f, j, j+1)
	c.ids = slices.Delete(c.ids, j, j+1)
	if ci+1 < len(t.ch) && len(c.f)+len(t.ch[ci+1].f) <= chunkMax/2 {
		r := t.ch[ci+1]
		c.f = append(c.f, r.f...)
		c.ids = append(c.ids, r.ids...)
		t.ch = slices.Delete(t.ch, ci+1, ci+2)
		t.maxF = slices.Delete(t.maxF, ci+1, ci+2)
		t.maxID = slices.Delete(t.maxID, ci+1, ci+2)
	}
	t.fix(ci)
}
