package search

// tlist is a TEXT term's posting list: document ids in increasing order,
// each with its packed entry (index.pack), as plist[uint64] but laid out
// for writes. An entry is 12 bytes, the id next to its value (one cache
// line for both, where plist's separate arrays took two), and the last
// chunk, where appends go, is held in the list itself (no chunk header to
// read first). A write to a term touches the list's header and the
// entry's line: the term postings are the most numerous lists of an
// index, and every document writes several of them at random terms. The
// readers' methods are plist's: get, has, each, appendIDs, and n.
type tlist struct {
	full []tchunk // the chunks before the tail, in order
	tail tchunk   // the last chunk; not empty when n > 0
	n    int
}

type tchunk []tpost

type tpost struct{ id, lo, hi uint32 }

func (e tpost) val() uint64 { return uint64(e.hi)<<32 | uint64(e.lo) }

func mkTpost(id uint32, v uint64) tpost { return tpost{id, uint32(v), uint32(v >> 32)} }

// search returns the position of id in c, and whether it is there.
func (c tchunk) search(id uint32) (int, bool) {
	lo, hi := 0, len(c)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c[m].id < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(c) && c[lo].id == id
}

// chunk returns the chunk where id belongs: len(full) for the tail.
func (p *tlist) chunk(id uint32) int {
	nf := len(p.full)
	if nf == 0 || id > p.full[nf-1][len(p.full[nf-1])-1].id {
		return nf
	}
	lo, hi := 0, nf
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		c := p.full[m]
		if c[len(c)-1].id < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func (p *tlist) at(ci int) *tchunk {
	if ci == len(p.full) {
		return &p.tail
	}
	return &p.full[ci]
}

// grow returns c with room for one more entry: capacities grow by half
// (not double), up to a chunk, so that a list's slack stays small.
func (c tchunk) grow() tchunk {
	if len(c) < cap(c) {
		return c
	}
	n := min(plistChunk, max(4, cap(c)+cap(c)/2))
	return append(make(tchunk, 0, n), c...)
}

// add inserts id with value v, or replaces its value.
func (p *tlist) add(id uint32, v uint64) {
	e := mkTpost(id, v)
	if p.n == 0 {
		p.tail = append(make(tchunk, 0, 4), e)
		p.n = 1
		return
	}
	if l := len(p.tail); id > p.tail[l-1].id {
		// The common write: an append.
		p.n++
		if l < plistChunk {
			p.tail = append(p.tail.grow(), e)
			return
		}
		p.full = append(p.full, p.tail)
		p.tail = append(make(tchunk, 0, 8), e)
		return
	}
	ci := p.chunk(id)
	c := p.at(ci)
	j, found := c.search(id)
	if found {
		(*c)[j] = e
		return
	}
	p.n++
	if len(*c) >= plistChunk {
		h := len(*c) / 2
		left := append(make(tchunk, 0, plistChunk/2+16), (*c)[:h]...)
		right := append(make(tchunk, 0, plistChunk/2+16), (*c)[h:]...)
		if ci == len(p.full) {
			p.full = append(p.full, left)
			p.tail = right
		} else {
			p.full[ci] = left
			p.full = append(p.full, nil)
			copy(p.full[ci+2:], p.full[ci+1:])
			p.full[ci+1] = right
		}
		if j >= h {
			ci, j = ci+1, j-h
		}
		c = p.at(ci)
	}
	*c = c.grow()
	*c = (*c)[:len(*c)+1]
	copy((*c)[j+1:], (*c)[j:])
	(*c)[j] = e
}

// take deletes id and returns its value; false if absent.
func (p *tlist) take(id uint32) (uint64, bool) {
	if p.n == 0 {
		return 0, false
	}
	ci := p.chunk(id)
	c := p.at(ci)
	j, found := c.search(id)
	if !found {
		return 0, false
	}
	v := (*c)[j].val()
	p.n--
	copy((*c)[j:], (*c)[j+1:])
	*c = (*c)[:len(*c)-1]
	nf := len(p.full)
	switch {
	case len(*c) == 0 && ci == nf:
		// The tail emptied: the last full chunk becomes the tail.
		if nf > 0 {
			p.tail = p.full[nf-1]
			p.full[nf-1] = nil
			p.full = p.full[:nf-1]
		} else {
			p.tail = nil
		}
	case len(*c) == 0:
		copy(p.full[ci:], p.full[ci+1:])
		p.full[nf-1] = nil
		p.full = p.full[:nf-1]
	case ci < nf:
		// Merge a small chunk into its right neighbour, to keep chunks full.
		r := p.at(ci + 1)
		if len(*c)+len(*r) <= plistChunk/2 {
			*r = append(append(make(tchunk, 0, len(*c)+len(*r)+8), *c...), *r...)
			copy(p.full[ci:], p.full[ci+1:])
			p.full[nf-1] = nil
			p.full = p.full[:nf-1]
		}
	}
	if p.n == 0 {
		p.full = nil
	}
	return v, true
}

// get returns id's value.
func (p *tlist) get(id uint32) (uint64, bool) {
	if p.n == 0 {
		return 0, false
	}
	c := *p.at(p.chunk(id))
	if j, found := c.search(id); found {
		return c[j].val(), true
	}
	return 0, false
}

// has reports whether id is in the list.
func (p *tlist) has(id uint32) bool {
	if p.n == 0 {
		return false
	}
	_, found := p.at(p.chunk(id)).search(id)
	return found
}

// appendIDs appends the list's ids, in order.
func (p *tlist) appendIDs(out []uint32) []uint32 {
	for _, c := range p.full {
		for _, e := range c {
			out = append(out, e.id)
		}
	}
	for _, e := range p.tail {
		out = append(out, e.id)
	}
	return out
}

// each calls fn for every id and value, in order.
func (p *tlist) each(fn func(id uint32, v uint64)) {
	for _, c := range p.full {
		for _, e := range c {
			fn(e.id, e.val())
		}
	}
	for _, e := range p.tail {
		fn(e.id, e.val())
	}
}

// remap maps every id through m (old id -> new id + 1, increasing).
func (p *tlist) remap(m []uint32) {
	for _, c := range p.full {
		for i := range c {
			c[i].id = m[c[i].id] - 1
		}
	}
	for i := range p.tail {
		p.tail[i].id = m[p.tail[i].id] - 1
	}
}

func (p *tlist) size() int { return p.n }

// chunks is the number of chunks (FT.INFO's blocks).
func (p *tlist) chunks() int {
	if p.n == 0 {
		return 0
	}
	return len(p.full) + 1
}

// bytes is the memory the list takes beyond its header (FT.INFO).
func (p *tlist) bytes() int {
	n := cap(p.full)*24 + cap(p.tail)*12
	for _, c := range p.full {
		n += cap(c) * 12
	}
	return n
}
