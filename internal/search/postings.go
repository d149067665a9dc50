package search

import (
	"hash/maphash"
	"slices"
	"unsafe"
)

// Compact index structures. An index holds millions of entries, so none
// of these keeps a heap object per entry: document records are values in
// fixed-size pages, keys and forward records (what was indexed for a
// document) are bytes in one arena, postings are sorted id arrays in
// chunks, and the key -> id table is an open-addressing array of ids. The
// garbage collector sees a few pointers per thousand entries.

// plist is a posting list: document ids in increasing order, each with a
// value of type V (struct{} for none), kept as sorted chunks of at most
// plistChunk ids. Inserting an id in the middle moves at most a chunk;
// ids arriving in increasing order fill chunks completely.
type plist[V any] struct {
	ch   []pchunk[V]
	n    int
	last uint32 // the largest id (when n > 0): appends read no chunk
}

type pchunk[V any] struct {
	ids []uint32
	v   []V
}

const plistChunk = 256

// chunk returns the index of the chunk where id belongs.
func (p *plist[V]) chunk(id uint32) int {
	lo, hi := 0, len(p.ch)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		c := p.ch[m].ids
		if c[len(c)-1] < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(p.ch) {
		lo--
	}
	return lo
}

// add inserts id with value v, or replaces its value.
func (p *plist[V]) add(id uint32, v V) {
	if len(p.ch) == 0 {
		p.ch = []pchunk[V]{{ids: []uint32{id}, v: []V{v}}}
		p.n, p.last = 1, id
		return
	}
	// Ids mostly arrive in increasing order: an append touches only the
	// list's tail.
	ci := len(p.ch) - 1
	c := &p.ch[ci]
	var j int
	if id > p.last {
		j = len(c.ids)
		p.last = id
		if j < plistChunk {
			// The common write: an append to the tail chunk.
			p.n++
			c.ids = append(c.ids, id)
			c.v = append(c.v, v)
			return
		}
	} else {
		ci = p.chunk(id)
		c = &p.ch[ci]
		var found bool
		if j, found = slices.BinarySearch(c.ids, id); found {
			c.v[j] = v
			return
		}
	}
	p.n++
	if len(c.ids) >= plistChunk {
		if ci == len(p.ch)-1 && j == len(c.ids) {
			// Appending in id order: a new chunk, the full one stays full.
			p.ch = append(p.ch, pchunk[V]{ids: append(make([]uint32, 0, 8), id), v: append(make([]V, 0, 8), v)})
			return
		}
		h := len(c.ids) / 2
		right := pchunk[V]{ids: append(make([]uint32, 0, plistChunk/2+16), c.ids[h:]...), v: append(make([]V, 0, plistChunk/2+16), c.v[h:]...)}
		left := pchunk[V]{ids: append(make([]uint32, 0, plistChunk/2+16), c.ids[:h]...), v: append(make([]V, 0, plistChunk/2+16), c.v[:h]...)}
		p.ch = slices.Insert(p.ch, ci+1, right)
		p.ch[ci] = left
		if j >= h {
			ci, j = ci+1, j-h
		}
		c = &p.ch[ci]
	}
	c.ids = slices.Insert(c.ids, j, id)
	c.v = slices.Insert(c.v, j, v)
}

// remove deletes id; false if absent.
func (p *plist[V]) remove(id uint32) bool {
	_, ok := p.take(id)
	return ok
}

// take deletes id and returns its value; false if absent.
func (p *plist[V]) take(id uint32) (v V, ok bool) {
	if len(p.ch) == 0 {
		return v, false
	}
	ci := p.chunk(id)
	c := &p.ch[ci]
	j, found := slices.BinarySearch(c.ids, id)
	if !found {
		return v, false
	}
	v = c.v[j]
	p.n--
	if len(c.ids) == 1 {
		p.ch = slices.Delete(p.ch, ci, ci+1)
		if len(p.ch) == 0 {
			p.ch, p.last = nil, 0
			return v, true
		}
	} else {
		c.ids = slices.Delete(c.ids, j, j+1)
		c.v = slices.Delete(c.v, j, j+1)
		// Merge a small chunk into its right neighbour, to keep chunks full.
		if ci+1 < len(p.ch) && len(c.ids)+len(p.ch[ci+1].ids) <= plistChunk/2 {
			r := p.ch[ci+1]
			c.ids = append(c.ids, r.ids...)
			c.v = append(c.v, r.v...)
			p.ch = slices.Delete(p.ch, ci+1, ci+2)
		}
	}
	if id == p.last {
		lc := p.ch[len(p.ch)-1].ids
		p.last = lc[len(lc)-1]
	}
	return v, true
}

// get returns id's value.
func (p *plist[V]) get(id uint32) (V, bool) {
	var zero V
	if len(p.ch) == 0 {
		return zero, false
	}
	c := &p.ch[p.chunk(id)]
	j, found := slices.BinarySearch(c.ids, id)
	if !found {
		return zero, false
	}
	return c.v[j], true
}

// has reports whether id is in the list.
func (p *plist[V]) has(id uint32) bool {
	if len(p.ch) == 0 {
		return false
	}
	c := p.ch[p.chunk(id)].ids
	_, found := slices.BinarySearch(c, id)
	return found
}

// appendIDs appends the list's ids, in order.
func (p *plist[V]) appendIDs(out []uint32) []uint32 {
	for _, c := range p.ch {
		out = append(out, c.ids...)
	}
	return out
}

// each calls fn for every id and value, in order.
func (p *plist[V]) each(fn func(id uint32, v V)) {
	for _, c := range p.ch {
		for i, id := range c.ids {
			fn(id, c.v[i])
		}
	}
}

func (p *plist[V]) size() int { return p.n }

func (p *plist[V]) chunks() int { return len(p.ch) }

// bytes is the memory the list takes (FT.INFO).
func (p *plist[V]) bytes() int {
	var v V
	n := cap(p.ch) * int(unsafe.Sizeof(pchunk[V]{}))
	for _, c := range p.ch {
		n += cap(c.ids)*4 + cap(c.v)*int(unsafe.Sizeof(v))
	}
	return n
}

// postList is what dict needs of its posting lists: plist (tag values)
// or tlist (terms).
type postList[V, L any] interface {
	*L
	take(id uint32) (V, bool)
	size() int
	chunks() int
	bytes() int
}

// dict interns strings (terms, tag values) as small ids, each with a
// posting list of type L; an id whose list empties is freed and reused.
type dict[V, L any, P postList[V, L]] struct {
	ids   map[string]uint32
	names []string
	posts []L
	free  []uint32
	gen   []uint32 // by id: bumped when the id is freed (stemT's validity)
	// Terms only: by a word's id, its stem term's id+2 (1: the word has
	// no other stem, 0: not known yet) and that id's gen when cached.
	stemT, stemG []uint32
}

// tagDict is a TAG field's values, termDict the TEXT fields' terms.
type (
	tagDict  = dict[struct{}, plist[struct{}], *plist[struct{}]]
	termDict = dict[uint64, tlist, *tlist]
)

func newDict[V, L any, P postList[V, L]]() *dict[V, L, P] {
	return &dict[V, L, P]{ids: map[string]uint32{}}
}

// lookup returns the id of s, if s has postings.
func (d *dict[V, L, P]) lookup(s string) (uint32, bool) {
	id, ok := d.ids[s]
	return id, ok
}

// list returns s's postings (nil if none).
func (d *dict[V, L, P]) list(s string) P {
	if id, ok := d.ids[s]; ok {
		return &d.posts[id]
	}
	return nil
}

// intern returns the id of s, creating it (s is copied: it may alias
// storage the caller reuses).
func (d *dict[V, L, P]) intern(s string) uint32 {
	if id, ok := d.ids[s]; ok {
		return id
	}
	s = string(append([]byte(nil), s...))
	var id uint32
	if n := len(d.free); n > 0 {
		id = d.free[n-1]
		d.free = d.free[:n-1]
		d.names[id] = s
		d.stemT[id] = 0
	} else {
		id = uint32(len(d.names))
		d.names = append(d.names, s)
		var zero L
		d.posts = append(d.posts, zero)
		d.gen = append(d.gen, 0)
		d.stemT = append(d.stemT, 0)
		d.stemG = append(d.stemG, 0)
	}
	d.ids[s] = id
	return id
}

// drop removes doc from the postings of id, freeing id when it empties.
func (d *dict[V, L, P]) drop(id, doc uint32) { d.take(id, doc) }

// take removes doc from the postings of id, freeing id when it empties,
// and returns doc's value there.
func (d *dict[V, L, P]) take(id, doc uint32) (v V, ok bool) {
	p := P(&d.posts[id])
	v, ok = p.take(doc)
	if p.size() == 0 {
		delete(d.ids, d.names[id])
		d.names[id] = ""
		var zero L
		d.posts[id] = zero
		d.gen[id]++
		d.free = append(d.free, id)
	}
	return v, ok
}

// len is the number of distinct strings with postings.
func (d *dict[V, L, P]) len() int { return len(d.ids) }

// bytes is the memory of the postings (FT.INFO's inverted index).
func (d *dict[V, L, P]) bytes() (n int, blocks int) {
	for i := range d.posts {
		p := P(&d.posts[i])
		n += p.bytes()
		blocks += p.chunks()
	}
	return n, blocks
}

// keysBytes is the memory of the strings and their map.
func (d *dict[V, L, P]) keysBytes() int {
	var zero L
	n := len(d.ids)*24 + cap(d.names)*16 + cap(d.posts)*int(unsafe.Sizeof(zero)) + (cap(d.gen)+cap(d.stemT)+cap(d.stemG))*4
	for _, s := range d.names {
		n += len(s)
	}
	return n
}

// keyTable maps a document's key to its id: an open-addressing table
// (linear probing, backward-shift deletion) of slots holding the id and
// 32 bits of the key's hash, which spare reading keys from the
// documents' records on probes; 8 bytes a slot.
type keyTable struct {
	slots []uint64 // hash>>32 << 32 | id+1; 0: empty
	n     int
	seed  maphash.Seed
}

func (t *keyTable) hash(k string) uint64 { return maphash.String(t.seed, k) }

func slotOf(h uint64, id uint32) uint64 { return h&^(1<<32-1) | uint64(id+1) }

// find returns the id of key k (keyOf reads a document's key).
func (t *keyTable) find(k string, keyOf func(uint32) string) (uint32, bool) {
	if t.n == 0 {
		return 0, false
	}
	h := t.hash(k)
	mask := uint64(len(t.slots) - 1)
	for i := (h >> 32) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if s>>32 == h>>32 {
			if id := uint32(s) - 1; keyOf(id) == k {
				return id, true
			}
		}
	}
}

// slot returns the position in slots of key k and its id, or -1 (keyOf
// reads a document's key).
func (t *keyTable) slot(k string, keyOf func(uint32) string) (int, uint32) {
	if t.n == 0 {
		return -1, 0
	}
	h := t.hash(k)
	mask := uint64(len(t.slots) - 1)
	for i := (h >> 32) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return -1, 0
		}
		if s>>32 == h>>32 {
			if id := uint32(s) - 1; keyOf(id) == k {
				return int(i), id
			}
		}
	}
}

// setAt gives the key at position i (slot's) the id id.
func (t *keyTable) setAt(i int, id uint32) { t.slots[i] = t.slots[i]&^(1<<32-1) | uint64(id+1) }

// insert adds id under key k (absent).
func (t *keyTable) insert(k string, id uint32, keyOf func(uint32) string) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow(keyOf)
	}
	t.put(slotOf(t.hash(k), id))
	t.n++
}

func (t *keyTable) put(s uint64) {
	mask := uint64(len(t.slots) - 1)
	i := t.hash0(s) & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

// hash0 is a slot's hash bits, which give its home position.
func (t *keyTable) hash0(s uint64) uint64 { return s >> 32 }

func (t *keyTable) grow(keyOf func(uint32) string) {
	old := t.slots
	t.slots = make([]uint64, max(16, 2*len(old)))
	if t.n == 0 {
		t.seed = maphash.MakeSeed()
	}
	for _, s := range old {
		if s != 0 {
			t.put(s)
		}
	}
}

// remove deletes id, whose key is k.
func (t *keyTable) remove(k string, id uint32) {
	mask := uint64(len(t.slots) - 1)
	want := slotOf(t.hash(k), id)
	i := t.hash0(want) & mask
	for t.slots[i] != want {
		if t.slots[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	t.removeAt(int(i))
}

// removeAt empties position i (slot's).
func (t *keyTable) removeAt(at int) {
	mask := uint64(len(t.slots) - 1)
	i := uint64(at)
	t.n--
	// Backward-shift: move later entries of the probe run into the hole.
	for j := (i + 1) & mask; t.slots[j] != 0; j = (j + 1) & mask {
		home := t.hash0(t.slots[j]) & mask
		// The entry at j may move to i if i lies cyclically in [home, j).
		if (j-home)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = 0
}

// bytes is the table's memory (FT.INFO).
func (t *keyTable) bytes() int { return cap(t.slots) * 8 }
