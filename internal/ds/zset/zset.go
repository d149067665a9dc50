// Package zset is the ordered structure behind Ordo's sorted sets: a set
// of distinct byte-string members, each with a float64 score, ordered by
// (score, member) with members compared as raw bytes (memcmp order, a
// shorter prefix first), exactly as Redis orders a sorted set.
//
// # Guarantees
//
//   - Insert, delete, score update, rank of a member, member at a rank,
//     and the rank of the first element at or after a score or lex bound
//     are O(log n); iterating m elements from a rank is O(log n + m).
//   - Score lookup by member is O(1) once the set is in its large form
//     (BuildIndex); in the small form (Redis's "listpack" range) every
//     operation is a linear scan of one packed buffer, as in Redis.
//   - Scan visits members with Redis's reverse-binary cursor over the
//     member index: every member present for the whole scan is returned
//     at least once, even if the index grows or shrinks between calls.
//   - Byte slices handed to callers are views valid only until the next
//     change to the set.
//
// # Why it is hand-written
//
// Performance is the product: the sorted set is the heart of every index
// Ordo serves, and the target is at most 0.6x Redis's memory for a
// million members. A tree or skiplist of Go structs with one heap object
// per member (or a map[string]float64 beside it) costs 80-100 bytes per
// member, and Go's collector lets the heap grow to twice what is live and
// walks every object. Here no member owns a heap object:
//
//   - entries live in one slab ([]entry: score, offset, length; 16 bytes),
//     addressed by a uint32 id that never changes while the member lives;
//   - member bytes are packed into one arena ([]byte), compacted when more
//     than half of it is garbage;
//   - the order is a B+tree whose leaves hold only ids (4 bytes each, up
//     to 128 per leaf, linked for iteration): one heap object per ~100
//     members; inner nodes hold subtree counts (for rank) and each
//     child's maximum as (score, 8-byte member prefix, id), so a descent
//     touches the slab and arena only on ties;
//   - the member index is an open-addressing table of ids (linear
//     probing, backward-shift deletion) with a byte of hash per slot, so
//     most probes never leave the table;
//   - the slab, arena and index hold no pointers, and once large they are
//     mapped outside the Go heap (offheap.go): they do not count towards
//     the collector's heap goal and are returned to the OS as soon as they
//     are replaced or the set dies.
//
// Measured (1,000,000 members "user:N", random integer scores, loaded with
// redis-cli --pipe): ordo-server RSS 65 MiB against redis-server 7.0's
// 123 MiB (0.53x). The cost is an indirection per comparison at the
// leaves (id -> slab -> arena), about log2(128) of them per operation.
//
// Small sets (below the listpack limits the caller applies) are instead
// one packed byte string, entries in order ([score: 8 bytes][uvarint
// length][member]), with linear operations, as Redis's listpack: a
// five-member index costs one allocation of about 80 bytes.
//
// The mappings of a large set are counted in the *mem.Acct given to
// BuildIndex (copies count in the same one); the package keeps no
// mutable global state (the hash seed is fixed at start-up) and never
// starts a garbage collection itself: see offheap.go.
//
// A Set is not safe for concurrent use.
package zset

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
	"math/rand/v2"
	"sort"
	"unsafe"

	"github.com/ordo-db/ordo/internal/ds/mem"
)

const (
	leafCap = 128 // ids per leaf (512 bytes: one size class)
	fan     = 64  // children per inner node
)

type entry struct {
	score  float64
	off, n uint32
}

type leaf struct {
	ids        []uint32
	prev, next *leaf
}

// key is an element as inner nodes keep it: its score and the first 8
// bytes of its member (big-endian, zero-padded: prefix order never
// contradicts memcmp order) decide most comparisons without touching the
// slab or the arena.
type key struct {
	score float64
	pfx   uint64
	id    uint32
}

func prefix(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.BigEndian.Uint64(b)
	}
	var x uint64
	for i, c := range b {
		x |= uint64(c) << (56 - 8*i)
	}
	return x
}

func (s *tree) keyOf(id uint32) key {
	return key{score: s.ents[id].score, pfx: prefix(s.mem(id)), id: id}
}

// cmpKey compares (score, m) whose prefix is pfx with k.
func (s *tree) cmpKey(score float64, m []byte, pfx uint64, k *key) int {
	if score < k.score {
		return -1
	}
	if score > k.score {
		return 1
	}
	return s.cmpLex(m, pfx, k)
}

// cmpLex compares member m (prefix pfx) with k's member.
func (s *tree) cmpLex(m []byte, pfx uint64, k *key) int {
	if pfx < k.pfx {
		return -1
	}
	if pfx > k.pfx {
		return 1
	}
	return bytes.Compare(m, s.mem(k.id))
}

type inner struct {
	n        int
	leafKids bool
	cnt      [fan]int
	max      [fan]key // the largest element of each child
	lf       [fan]*leaf
	in       [fan]*inner
}

// tree is the large form of a Set: slab, arena, B+tree and member index.
type tree struct {
	ents    []entry
	arena   []byte
	free    []uint32
	garbage int // dead bytes in arena
	n       int

	rl *leaf  // root when the tree is a single leaf
	ri *inner // root otherwise

	// leaves and inners count the tree's nodes, so that MemoryUsage is
	// O(1): the engine re-measures a changed key after every write.
	leaves, inners int

	idx     []uint32 // member index: id+1 per slot, 0 empty; nil until BuildIndex
	tags    []uint8  // top hash byte per slot: most probes never touch the slab
	idxUsed int

	rg   *regions  // mappings behind ents/arena/idx, if any (offheap.go)
	acct *mem.Acct // where mappings are counted (nil: not counted)
}

var seed = maphash.MakeSeed()

func hashOf(m []byte) uint64 { return maphash.Bytes(seed, m) }

// newTree returns an empty tree whose mappings are counted in a.
func newTree(a *mem.Acct) *tree { return &tree{acct: a} }

// Len is the number of members.
func (s *tree) Len() int { return s.n }

// Indexed reports whether the member index is built (the "skiplist"
// encoding in Redis's terms; without it, the "listpack" one).
func (s *tree) Indexed() bool { return s.idx != nil }

func (s *tree) mem(id uint32) []byte {
	e := &s.ents[id]
	return s.arena[e.off : e.off+e.n : e.off+e.n]
}

// cmp compares the key (score, m) with the element id.
func (s *tree) cmp(score float64, m []byte, id uint32) int {
	e := &s.ents[id]
	if score < e.score {
		return -1
	}
	if score > e.score {
		return 1
	}
	return bytes.Compare(m, s.arena[e.off:e.off+e.n])
}

// ---- slab and arena ----

func (s *tree) alloc(m []byte, score float64) uint32 {
	if uint64(len(s.arena))+uint64(len(m)) > math.MaxUint32 {
		s.compact()
		if uint64(len(s.arena))+uint64(len(m)) > math.MaxUint32 {
			panic("zset: member bytes of one sorted set exceed 4 GiB (callers check MaxMemberBytes)")
		}
	}
	e := entry{score: score, off: uint32(len(s.arena)), n: uint32(len(m))}
	s.appendArena(m)
	if k := len(s.free); k > 0 {
		id := s.free[k-1]
		s.free = s.free[:k-1]
		s.ents[id] = e
		return id
	}
	return s.appendEnt(e)
}

func (s *tree) release(id uint32) {
	s.garbage += int(s.ents[id].n)
	s.ents[id] = entry{}
	s.free = append(s.free, id)
	if s.n == 0 {
		s.ents, s.arena, s.free, s.garbage = s.ents[:0], s.arena[:0], s.free[:0], 0
		return
	}
	if (s.garbage > 4096 && s.garbage > len(s.arena)/2) || (len(s.free) > 1024 && len(s.free) > len(s.ents)/2) {
		s.compact()
	}
}

// compact renumbers the live entries in order and rewrites the arena
// without garbage, then rebuilds the index. O(n), amortized over the
// deletions that made it necessary.
func (s *tree) compact() {
	ents, entsMem := allocSlice[entry](s.acct, growCap(s.n, s.n))
	ents = ents[:0]
	live := len(s.arena) - s.garbage
	arena, arenaMem := allocSlice[byte](s.acct, growCap(live, live))
	arena = arena[:0]
	for l := s.firstLeaf(); l != nil; l = l.next {
		for i, id := range l.ids {
			e := s.ents[id]
			nid := uint32(len(ents))
			ents = append(ents, entry{score: e.score, off: uint32(len(arena)), n: e.n})
			arena = append(arena, s.arena[e.off:e.off+e.n]...)
			l.ids[i] = nid
		}
	}
	s.setEnts(ents, entsMem)
	s.setArena(arena, arenaMem)
	s.free, s.garbage = nil, 0
	var fix func(in *inner)
	fix = func(in *inner) {
		for i := 0; i < in.n; i++ {
			if in.leafKids {
				in.max[i] = s.keyOf(last(in.lf[i].ids))
			} else {
				fix(in.in[i])
				in.max[i] = in.in[i].max[in.in[i].n-1]
			}
		}
	}
	if s.ri != nil {
		fix(s.ri)
	}
	if s.idx != nil {
		s.rehash(len(s.idx))
	}
}

func last(ids []uint32) uint32 { return ids[len(ids)-1] }

func (s *tree) firstLeaf() *leaf {
	if s.ri == nil {
		return s.rl
	}
	in := s.ri
	for !in.leafKids {
		in = in.in[0]
	}
	return in.lf[0]
}

// ---- member index ----

// BuildIndex builds the member index (O(1) Score, Scan). Sets convert to
// it past Redis's listpack limits; it is never dropped.
func (s *tree) BuildIndex() {
	if s.idx != nil {
		return
	}
	s.rehash(16)
}

func (s *tree) rehash(size int) {
	for size < 16 || s.n*4 > size*3 {
		size *= 2
		if size < 16 {
			size = 16
		}
	}
	s.setIdx(allocSlice[uint32](s.acct, size))
	s.setTags(allocSlice[uint8](s.acct, size))
	s.idxUsed = 0
	mask := uint64(size - 1)
	for l := s.firstLeaf(); l != nil; l = l.next {
		for _, id := range l.ids {
			h := hashOf(s.mem(id))
			i := h & mask
			for s.idx[i] != 0 {
				i = (i + 1) & mask
			}
			s.idx[i] = id + 1
			s.tags[i] = uint8(h >> 56)
			s.idxUsed++
		}
	}
}

// lookup returns the id of m.
func (s *tree) lookup(m []byte) (uint32, int, bool) {
	if s.idx == nil {
		for l := s.firstLeaf(); l != nil; l = l.next {
			for _, id := range l.ids {
				if bytes.Equal(s.mem(id), m) {
					return id, -1, true
				}
			}
		}
		return 0, -1, false
	}
	mask := uint64(len(s.idx) - 1)
	h := hashOf(m)
	tag := uint8(h >> 56)
	i := h & mask
	for {
		v := s.idx[i]
		if v == 0 {
			return 0, int(i), false
		}
		if s.tags[i] == tag && bytes.Equal(s.mem(v-1), m) {
			return v - 1, int(i), true
		}
		i = (i + 1) & mask
	}
}

func (s *tree) idxInsert(id uint32) {
	if (s.idxUsed+1)*4 > len(s.idx)*3 {
		s.rehash(len(s.idx) * 2) // the new id is already in the tree
		return
	}
	mask := uint64(len(s.idx) - 1)
	h := hashOf(s.mem(id))
	i := h & mask
	for s.idx[i] != 0 {
		i = (i + 1) & mask
	}
	s.idx[i] = id + 1
	s.tags[i] = uint8(h >> 56)
	s.idxUsed++
}

func (s *tree) idxDelete(slot int) {
	mask := len(s.idx) - 1
	i := slot
	j := i
	for {
		j = (j + 1) & mask
		v := s.idx[j]
		if v == 0 {
			break
		}
		k := int(hashOf(s.mem(v-1)) & uint64(mask))
		// Move v back to i unless its home lies cyclically in (i, j].
		if (i <= j && (k <= i || k > j)) || (i > j && k <= i && k > j) {
			s.idx[i] = v
			s.tags[i] = s.tags[j]
			i = j
		}
	}
	s.idx[i] = 0
	s.idxUsed--
	if len(s.idx) > 16 && s.idxUsed*8 < len(s.idx) {
		s.rehash(16)
	}
}

// ---- public operations ----

// Score returns the score of m.
func (s *tree) Score(m []byte) (float64, bool) {
	id, _, ok := s.lookup(m)
	if !ok {
		return 0, false
	}
	return s.ents[id].score, true
}

// Ref designates a member found by Find; it is valid until the next
// change to the set.
type Ref uint32

// Find looks m up once for a read-then-write sequence (ZADD's options).
func (s *tree) Find(m []byte) (Ref, bool) {
	id, _, ok := s.lookup(m)
	return Ref(id), ok
}

// RefScore is the score of the member r designates.
func (s *tree) RefScore(r Ref) float64 { return s.ents[r].score }

// SetScore changes the score of the member r designates.
func (s *tree) SetScore(r Ref, score float64) {
	id := uint32(r)
	e := &s.ents[id]
	if e.score == score {
		return
	}
	s.treeDelete(e.score, s.mem(id), id)
	e.score = score
	s.treeInsert(id)
}

// Insert adds m, which must be absent (checked by Find), with score.
func (s *tree) Insert(m []byte, score float64) {
	id := s.alloc(m, score)
	s.treeInsert(id)
	s.n++
	if s.idx != nil {
		s.idxInsert(id)
	}
}

// Add sets the score of m, inserting it if absent; it reports whether m
// was added. m is copied.
func (s *tree) Add(m []byte, score float64) bool {
	id, _, ok := s.lookup(m)
	if ok {
		e := &s.ents[id]
		if e.score == score {
			return false
		}
		s.treeDelete(e.score, s.mem(id), id)
		e.score = score
		s.treeInsert(id)
		return false
	}
	id = s.alloc(m, score)
	s.treeInsert(id)
	s.n++
	if s.idx != nil {
		s.idxInsert(id)
	}
	return true
}

// Delete removes m and returns its score.
func (s *tree) Delete(m []byte) (float64, bool) {
	id, slot, ok := s.lookup(m)
	if !ok {
		return 0, false
	}
	score := s.ents[id].score
	s.treeDelete(score, s.mem(id), id)
	if slot >= 0 {
		s.idxDelete(slot)
	}
	s.n--
	s.release(id)
	return score, true
}

// Rank returns the 0-based ascending rank of m.
func (s *tree) Rank(m []byte) (int, bool) {
	id, _, ok := s.lookup(m)
	if !ok {
		return 0, false
	}
	score := s.ents[id].score
	mm := s.mem(id)
	pfx := prefix(mm)
	return s.lowerBound(func(k *key) bool { return s.cmpKey(score, mm, pfx, k) <= 0 },
		func(x uint32) bool { return s.cmp(score, mm, x) <= 0 }), true
}

// At returns the member and score at rank r (0 <= r < Len).
func (s *tree) At(r int) ([]byte, float64) {
	l, i := s.locate(r)
	id := l.ids[i]
	return s.mem(id), s.ents[id].score
}

// CountBelowScore returns how many elements have a score < min (or <= min
// when excl): the rank of the first element in a range starting at min.
func (s *tree) CountBelowScore(min float64, excl bool) int {
	if excl {
		return s.lowerBound(func(k *key) bool { return k.score > min },
			func(x uint32) bool { return s.ents[x].score > min })
	}
	return s.lowerBound(func(k *key) bool { return k.score >= min },
		func(x uint32) bool { return s.ents[x].score >= min })
}

// CountBelowLex returns how many members are < m (or <= m when excl),
// assuming all scores are equal, as Redis's lex commands do.
func (s *tree) CountBelowLex(m []byte, excl bool) int {
	pfx := prefix(m)
	if excl {
		return s.lowerBound(func(k *key) bool { return s.cmpLex(m, pfx, k) < 0 },
			func(x uint32) bool { return bytes.Compare(s.mem(x), m) > 0 })
	}
	return s.lowerBound(func(k *key) bool { return s.cmpLex(m, pfx, k) <= 0 },
		func(x uint32) bool { return bytes.Compare(s.mem(x), m) >= 0 })
}

// Range calls fn for the elements from rank start, ascending (or
// descending when rev), until fn returns false or the set ends. fn must
// not change the set.
func (s *tree) Range(start int, rev bool, fn func(m []byte, score float64) bool) {
	if start < 0 || start >= s.n {
		return
	}
	l, i := s.locate(start)
	for l != nil {
		if !rev {
			for ; i < len(l.ids); i++ {
				id := l.ids[i]
				if !fn(s.mem(id), s.ents[id].score) {
					return
				}
			}
			l = l.next
			i = 0
		} else {
			for ; i >= 0; i-- {
				id := l.ids[i]
				if !fn(s.mem(id), s.ents[id].score) {
					return
				}
			}
			l = l.prev
			if l != nil {
				i = len(l.ids) - 1
			}
		}
	}
}

// Random returns a uniformly random element; the set must not be empty.
func (s *tree) Random() ([]byte, float64) { return s.At(rand.IntN(s.n)) }

// Scan calls fn for the members of one bucket of the member index at
// cursor and returns the next cursor (0 when done), as Redis's dictScan.
// It requires the index (Indexed); fn must not change the set.
func (s *tree) Scan(cursor uint64, fn func(m []byte, score float64)) uint64 {
	if s.idx == nil || s.n == 0 {
		return 0
	}
	mask := uint64(len(s.idx) - 1)
	b := cursor & mask
	for i := b; s.idx[i] != 0; i = (i + 1) & mask {
		id := s.idx[i] - 1
		m := s.mem(id)
		if hashOf(m)&mask == b {
			fn(m, s.ents[id].score)
		}
	}
	cursor |= ^mask
	return bits.Reverse64(bits.Reverse64(cursor) + 1)
}

// Copy returns a deep copy.
func (s *tree) Copy() *tree {
	c := newTree(s.acct)
	var b sortedBuilder
	b.start(c, s.n, len(s.arena)-s.garbage)
	// The copy numbers its members in order; newID maps the old ids, so
	// that the member index is copied slot for slot (a valid probing
	// layout whatever order made it) instead of rehashing every member:
	// most of a big set's copy, which an AOF rewrite or BGSAVE takes
	// under the lock.
	var newID []uint32
	if s.idx != nil {
		newID = make([]uint32, len(s.ents))
	}
	for l := s.firstLeaf(); l != nil; l = l.next {
		for _, id := range l.ids {
			if newID != nil {
				newID[id] = uint32(c.n)
			}
			b.add(s.mem(id), s.ents[id].score)
		}
	}
	b.finish()
	if s.idx != nil {
		idx, idxMem := allocSlice[uint32](c.acct, len(s.idx))
		c.setIdx(idx, idxMem)
		tags, tagsMem := allocSlice[uint8](c.acct, len(s.tags))
		c.setTags(tags, tagsMem)
		copy(c.tags, s.tags)
		for i, v := range s.idx {
			if v != 0 {
				c.idx[i] = newID[v-1] + 1
			}
		}
		c.idxUsed = s.idxUsed
	}
	return c
}

// sortedBuilder fills an empty tree with members given in ascending
// (score, member) order: entries and arena appended, leaves filled
// whole, the inner levels built once at the end (O(n), where inserting
// one by one searches and splits).
type sortedBuilder struct {
	t   *tree
	n   int // members expected
	cur *leaf
}

func (b *sortedBuilder) start(t *tree, n, memberBytes int) {
	b.t, b.n = t, n
	ents, entsMem := allocSlice[entry](t.acct, n)
	t.setEnts(ents[:0], entsMem)
	arena, arenaMem := allocSlice[byte](t.acct, memberBytes)
	t.setArena(arena[:0], arenaMem)
}

func (b *sortedBuilder) add(m []byte, score float64) {
	t := b.t
	id := uint32(len(t.ents))
	t.ents = append(t.ents, entry{score: score, off: uint32(len(t.arena)), n: uint32(len(m))})
	t.arena = append(t.arena, m...)
	if b.cur == nil || len(b.cur.ids) == leafCap {
		b.cur = &leaf{ids: make([]uint32, 0, min(leafCap, b.n-int(id))), prev: b.cur}
		t.leaves++
		if b.cur.prev != nil {
			b.cur.prev.next = b.cur
		}
	}
	b.cur.ids = append(b.cur.ids, id)
	t.n++
}

func (b *sortedBuilder) finish() {
	if b.cur != nil {
		b.t.buildFromLeaves(b.cur)
	}
}

// buildFromLeaves builds the inner levels over a linked chain of full
// leaves whose last one is tail.
func (s *tree) buildFromLeaves(tail *leaf) {
	first := tail
	for first.prev != nil {
		first = first.prev
	}
	if first == tail {
		s.rl = first
		return
	}
	var level []*inner
	var cur *inner
	for l := first; l != nil; l = l.next {
		if cur == nil || cur.n == fan {
			cur = &inner{leafKids: true}
			s.inners++
			level = append(level, cur)
		}
		cur.lf[cur.n], cur.cnt[cur.n], cur.max[cur.n] = l, len(l.ids), s.keyOf(last(l.ids))
		cur.n++
	}
	for len(level) > 1 {
		var up []*inner
		cur = nil
		for _, x := range level {
			if cur == nil || cur.n == fan {
				cur = &inner{}
				s.inners++
				up = append(up, cur)
			}
			cur.in[cur.n], cur.cnt[cur.n], cur.max[cur.n] = x, x.total(), x.max[x.n-1]
			cur.n++
		}
		level = up
	}
	s.ri = level[0]
}

// MemoryUsage estimates the bytes the set occupies, in O(1): a leaf of a
// multi-leaf tree is counted at its full capacity (leaves are allocated
// full size, so this is exact but for a copied or bulk-built tail).
func (s *tree) MemoryUsage() int64 {
	n := int64(120 + cap(s.ents)*16 + cap(s.arena) + cap(s.free)*4 + cap(s.idx)*5)
	n += int64(s.inners) * int64(unsafe.Sizeof(inner{}))
	if s.ri == nil && s.rl != nil {
		return n + 48 + int64(cap(s.rl.ids))*4
	}
	return n + int64(s.leaves)*(48+leafCap*4)
}

// ---- the tree ----

func (in *inner) total() int {
	t := 0
	for i := 0; i < in.n; i++ {
		t += in.cnt[i]
	}
	return t
}

// lowerBound returns the number of elements for which pred is false;
// pred must be false then true along the order. ipred is the same
// predicate on the keys of inner nodes.
func (s *tree) lowerBound(ipred func(k *key) bool, pred func(id uint32) bool) int {
	rank := 0
	l := s.rl
	for in := s.ri; in != nil; {
		i := sort.Search(in.n, func(i int) bool { return ipred(&in.max[i]) })
		for k := 0; k < i; k++ {
			rank += in.cnt[k]
		}
		if i == in.n {
			return rank
		}
		if in.leafKids {
			l = in.lf[i]
			break
		}
		in = in.in[i]
	}
	if l == nil {
		return 0
	}
	return rank + sort.Search(len(l.ids), func(j int) bool { return pred(l.ids[j]) })
}

// locate returns the leaf and index holding rank r.
func (s *tree) locate(r int) (*leaf, int) {
	l := s.rl
	for in := s.ri; in != nil; {
		i := 0
		for i < in.n-1 && r >= in.cnt[i] {
			r -= in.cnt[i]
			i++
		}
		if in.leafKids {
			l = in.lf[i]
			break
		}
		in = in.in[i]
	}
	return l, r
}

// childFor returns the child of in whose range holds the key.
func (s *tree) childFor(in *inner, score float64, m []byte) int {
	pfx := prefix(m)
	i := sort.Search(in.n, func(i int) bool { return s.cmpKey(score, m, pfx, &in.max[i]) <= 0 })
	if i == in.n {
		i--
	}
	return i
}

func (s *tree) treeInsert(id uint32) {
	score, m := s.ents[id].score, s.mem(id)
	if s.ri == nil {
		if s.rl == nil {
			s.rl = &leaf{}
			s.leaves++
		}
		r := s.leafInsert(s.rl, id, score, m)
		if r == nil {
			return
		}
		root := &inner{leafKids: true, n: 2}
		s.inners++
		root.lf[0], root.cnt[0], root.max[0] = s.rl, len(s.rl.ids), s.keyOf(last(s.rl.ids))
		root.lf[1], root.cnt[1], root.max[1] = r, len(r.ids), s.keyOf(last(r.ids))
		s.rl, s.ri = nil, root
		return
	}
	r := s.innerInsert(s.ri, id, score, m)
	if r == nil {
		return
	}
	old := s.ri
	root := &inner{n: 2}
	s.inners++
	root.in[0], root.cnt[0], root.max[0] = old, old.total(), old.max[old.n-1]
	root.in[1], root.cnt[1], root.max[1] = r, r.total(), r.max[r.n-1]
	s.ri = root
}

func (s *tree) leafInsert(l *leaf, id uint32, score float64, m []byte) *leaf {
	pos := sort.Search(len(l.ids), func(i int) bool { return s.cmp(score, m, l.ids[i]) < 0 })
	if len(l.ids) < leafCap {
		l.ids = append(l.ids, 0)
		copy(l.ids[pos+1:], l.ids[pos:])
		l.ids[pos] = id
		return nil
	}
	r := &leaf{ids: make([]uint32, 0, leafCap), prev: l, next: l.next}
	s.leaves++
	if l.next != nil {
		l.next.prev = r
	}
	l.next = r
	if pos == leafCap && r.next == nil {
		// Appending at the end (ascending loads): keep l full.
		r.ids = append(r.ids, id)
		return r
	}
	half := leafCap / 2
	r.ids = append(r.ids, l.ids[half:]...)
	if cap(l.ids) < leafCap {
		ids := make([]uint32, half, leafCap)
		copy(ids, l.ids)
		l.ids = ids
	} else {
		l.ids = l.ids[:half]
	}
	t, p := l, pos
	if pos > half {
		t, p = r, pos-half
	}
	t.ids = append(t.ids, 0)
	copy(t.ids[p+1:], t.ids[p:])
	t.ids[p] = id
	return r
}

// addChild inserts a child at position at of in, splitting in when full;
// it returns the new right sibling of in, if any.
func (s *tree) addChild(in *inner, at int, lf *leaf, ch *inner, cnt int, max key) *inner {
	if in.n < fan {
		insertChild(in, at, lf, ch, cnt, max)
		return nil
	}
	r := &inner{leafKids: in.leafKids}
	s.inners++
	half := fan / 2
	r.n = in.n - half
	copy(r.cnt[:], in.cnt[half:in.n])
	copy(r.max[:], in.max[half:in.n])
	copy(r.lf[:], in.lf[half:in.n])
	copy(r.in[:], in.in[half:in.n])
	for i := half; i < in.n; i++ {
		in.lf[i], in.in[i] = nil, nil
	}
	in.n = half
	if at <= half {
		insertChild(in, at, lf, ch, cnt, max)
	} else {
		insertChild(r, at-half, lf, ch, cnt, max)
	}
	return r
}

func insertChild(in *inner, at int, lf *leaf, ch *inner, cnt int, max key) {
	copy(in.cnt[at+1:in.n+1], in.cnt[at:in.n])
	copy(in.max[at+1:in.n+1], in.max[at:in.n])
	copy(in.lf[at+1:in.n+1], in.lf[at:in.n])
	copy(in.in[at+1:in.n+1], in.in[at:in.n])
	in.cnt[at], in.max[at], in.lf[at], in.in[at] = cnt, max, lf, ch
	in.n++
}

func removeChild(in *inner, at int) {
	copy(in.cnt[at:], in.cnt[at+1:in.n])
	copy(in.max[at:], in.max[at+1:in.n])
	copy(in.lf[at:], in.lf[at+1:in.n])
	copy(in.in[at:], in.in[at+1:in.n])
	in.n--
	in.lf[in.n], in.in[in.n] = nil, nil
}

func (s *tree) innerInsert(in *inner, id uint32, score float64, m []byte) *inner {
	i := s.childFor(in, score, m)
	if in.leafKids {
		l := in.lf[i]
		r := s.leafInsert(l, id, score, m)
		in.cnt[i], in.max[i] = len(l.ids), s.keyOf(last(l.ids))
		if r != nil {
			return s.addChild(in, i+1, r, nil, len(r.ids), s.keyOf(last(r.ids)))
		}
		return nil
	}
	ch := in.in[i]
	r := s.innerInsert(ch, id, score, m)
	if r == nil {
		in.cnt[i]++
		in.max[i] = ch.max[ch.n-1]
		return nil
	}
	in.cnt[i], in.max[i] = ch.total(), ch.max[ch.n-1]
	return s.addChild(in, i+1, nil, r, r.total(), r.max[r.n-1])
}

func (s *tree) treeDelete(score float64, m []byte, id uint32) {
	if s.ri == nil {
		s.leafDelete(s.rl, score, m, id)
		if len(s.rl.ids) == 0 {
			s.rl = nil
			s.leaves--
		}
		return
	}
	s.innerDelete(s.ri, score, m, id)
	for s.ri != nil && s.ri.n <= 1 {
		s.inners--
		switch {
		case s.ri.n == 0:
			s.ri = nil
		case s.ri.leafKids:
			s.rl, s.ri = s.ri.lf[0], nil
		default:
			s.ri = s.ri.in[0]
		}
	}
}

func (s *tree) leafDelete(l *leaf, score float64, m []byte, id uint32) {
	pos := sort.Search(len(l.ids), func(i int) bool { return s.cmp(score, m, l.ids[i]) <= 0 })
	if pos >= len(l.ids) || l.ids[pos] != id {
		panic("zset: element missing from the tree")
	}
	copy(l.ids[pos:], l.ids[pos+1:])
	l.ids = l.ids[:len(l.ids)-1]
}

func unlink(l *leaf) {
	if l.prev != nil {
		l.prev.next = l.next
	}
	if l.next != nil {
		l.next.prev = l.prev
	}
}

func (s *tree) innerDelete(in *inner, score float64, m []byte, id uint32) {
	i := s.childFor(in, score, m)
	if in.leafKids {
		l := in.lf[i]
		s.leafDelete(l, score, m, id)
		if len(l.ids) == 0 {
			unlink(l)
			removeChild(in, i)
			s.leaves--
			return
		}
		in.cnt[i], in.max[i] = len(l.ids), s.keyOf(last(l.ids))
		if len(l.ids) < leafCap/4 && in.n > 1 {
			a := i
			if a == in.n-1 {
				a--
			}
			la, lb := in.lf[a], in.lf[a+1]
			if len(la.ids)+len(lb.ids) <= leafCap {
				la.ids = append(la.ids, lb.ids...)
				unlink(lb)
				in.cnt[a], in.max[a] = len(la.ids), s.keyOf(last(la.ids))
				removeChild(in, a+1)
				s.leaves--
			}
		}
		return
	}
	ch := in.in[i]
	s.innerDelete(ch, score, m, id)
	if ch.n == 0 {
		removeChild(in, i)
		s.inners--
		return
	}
	in.cnt[i]--
	in.max[i] = ch.max[ch.n-1]
	if ch.n < fan/4 && in.n > 1 {
		a := i
		if a == in.n-1 {
			a--
		}
		x, y := in.in[a], in.in[a+1]
		if x.n+y.n <= fan {
			copy(x.cnt[x.n:], y.cnt[:y.n])
			copy(x.max[x.n:], y.max[:y.n])
			copy(x.lf[x.n:], y.lf[:y.n])
			copy(x.in[x.n:], y.in[:y.n])
			x.n += y.n
			in.cnt[a] += in.cnt[a+1]
			in.max[a] = x.max[x.n-1]
			removeChild(in, a+1)
			s.inners--
		}
	}
}
