// Package dict is Redis's dict in Go: a generic string-keyed hash table
// (Dict[V]) that the engine uses for the keyspace, the expires, and the
// large forms of hashes and sets.
//
// # Guarantees
//
//   - Get, Has, Set, Delete are O(1) on average, with incremental
//     rehashing (one bucket moved per operation) so no single call pays
//     for a whole resize; Random is O(1) on average plus a chain walk.
//   - Scan is Redis's reverse-binary cursor scan: every element present
//     for the whole scan is returned at least once, across growth and
//     shrinking between calls (some may be returned more than once).
//   - Keys and values handed out are immutable Go strings, safe to keep
//     after the Dict changes (see the layout below).
//   - Big tables are mapped outside the Go heap and counted in the
//     *mem.Acct given to New; the package has no global mutable state
//     other than the hash seed, fixed at start-up.
//
// # Values
//
// V may be any type. Three kinds are stored specially: struct{} (a set:
// no value at all), string (kept in the record when short), and any
// struct type whose layout is exactly struct{ string; any } (the engine's
// Value: a string, kept in the record when short and the interface nil,
// or an object). Other types live in a slice indexed by entry.
//
// # Not safe
//
// A Dict is not safe for concurrent use; callers serialize access (the
// engine lock). Each, Scan and Random callbacks must not change the Dict.
package dict

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"unsafe"

	"github.com/ordo-db/ordo/internal/ds/mem"
)

// Dict is Redis's dict in Go: a chained hash table with power-of-two
// sizes, incremental rehashing between two tables, and the reverse-binary
// cursor scan. We do not use a Go map because a map cannot be scanned
// with a cursor: SCAN's guarantee (every element present for the whole
// scan is returned at least once, across growth and shrinking) needs
// buckets addressed by hash bits, which is exactly this design.
//
// # Layout: no heap object per element
//
// A chained table of Go structs costs a heap object per entry plus one
// per key and per value (about 100 bytes for a short string key), and Go's
// collector lets the heap grow to twice what is live. Here, as in the
// sorted sets (package zset), no element owns a heap object:
//
//   - buckets are []uint32 holding entry ids (id+1, 0 for an empty
//     bucket), so a table costs 4 bytes per bucket;
//   - entries live in one slab ([]dent: next id in the chain, and where
//     the element's record is; 12 bytes), ids recycled through a free list;
//   - keys, and short string values (hash values, the keyspace's string
//     values), are packed into records in arena chunks of up to 64 KiB:
//     [key length: uvarint][key][value tag: uvarint][value];
//   - values that are objects (the keyspace's *Hash, *Set ...) or long
//     strings (>= BigValue bytes, so APPEND keeps growing its buffer
//     in place) sit in a side slice (strObj), the tag holding their index;
//     values of other types (the expires' int64) in a slice by entry id.
//
// Arena chunks are append-only: a byte, once written, never changes, and
// a chunk's array is never reallocated. So the keys and values handed out
// (Get, Each, Scan, Random, Delete) are Go strings viewing a chunk: they
// are immutable and safe to keep (they keep their chunk alive, as any
// substring would). Overwriting a value writes a new record; the old one
// becomes garbage, counted per chunk; a chunk with no live record is
// dropped, and one less than a quarter live is compacted (its live
// records, found through their keys' chains, are copied to the
// active chunk), so the work per change is bounded by a chunk's size.
//
// Measured with `ordo bench -rows '^memory' -repeat 3` (RSS of the whole
// process after 1,000,000 elements, redis-server 7.0 / ordo-server): SET
// key:N value:N 106 / 63 MiB (the keyspace keeps a 4-byte access clock
// per key, EnableMeta), HSET of 1,000,000 fields in one hash 83 / 50 MiB,
// SADD of 1,000,000 members to one set 75 / 44 MiB (the chained table of
// Go structs this replaces: 152, 131 and 97 MiB). Per element that is a
// 4-byte bucket, a 12-byte entry, the record (key and inline value with
// their uvarint lengths) and for the keyspace the 4-byte clock; an empty
// ordo-server is 14 MiB RSS, redis-server 12. Later (bench/README.md,
// "Where the memory goes"), with a 10.5 MiB empty ordo-server (static,
// without net/http/pprof) and free heap returned when quiet: 54 / 46 /
// 41 MiB against Redis's 105 / 79 / 75.
// BenchmarkDictCommands (dict_bench_test.go) measures the command paths.
//
// Dict is not safe for concurrent use; the engine lock protects it.
type Dict[V any] struct {
	tables  [2][]uint32
	used    [2]int
	rehash  int // next bucket of tables[0] to move, or -1
	pausing int // >0 while a caller iterates and must not see rehash steps

	mode dictMode
	ents []dent
	free uint32 // id+1 of the first free entry, 0 if none
	vals []V    // dictAny: values by entry id

	side      []strObj // objects and long strings (dictString, dictValue)
	sideFree  []uint32
	sideBytes int64 // bytes of the long strings in side

	chunks    [][]byte // arena chunks (nil once dropped)
	live      []int32  // live record bytes per chunk
	chunkFree []uint32 // indexes of dropped chunks, to reuse
	cur       int      // active chunk, or -1
	nextSize  int      // size of the next active chunk
	arena     int64    // total capacity of the chunks

	rg   *dictRegions // mappings behind ents and tables, if any (offheap.go)
	acct *mem.Acct    // where mappings are counted (nil: not counted)

	// meta is one uint32 per entry for the caller (the keyspace keeps
	// Redis's LRU clock or LFU counter of each key there), by entry id,
	// 0 for a new entry; nil unless EnableMeta was called.
	meta   []uint32
	metaOn bool
}

// strObj is the layout of a value in dictValue mode: the engine's Value
// (a string, or an object with an empty string).
type strObj struct {
	s string
	o any
}

// isStrObj reports whether V has exactly strObj's layout, so that a *V
// may be converted to a *strObj.
func isStrObj[V any]() bool {
	t := reflect.TypeFor[V]()
	return t.Kind() == reflect.Struct && t.NumField() == 2 &&
		t.Field(0).Type.Kind() == reflect.String && t.Field(0).Offset == 0 &&
		t.Field(1).Type == reflect.TypeFor[any]() && t.Field(1).Offset == unsafe.Offsetof(strObj{}.o) &&
		t.Size() == unsafe.Sizeof(strObj{})
}

type dictMode uint8

const (
	dictAny    dictMode = iota // value in vals
	dictSet                    // no value (struct{})
	dictString                 // string value in the record or side
	dictValue                  // Value: string in the record, or side
)

// dent is an entry of the slab: its chain link and where its record is.
// A free entry has chunk == deadChunk and next linking the free list.
// off holds the record's offset in its chunk (chunks are at most 64 KiB,
// so 16 bits) and, above it, bits 16..31 of the key's hash: a lookup
// skips the record (a cache miss) of every chain entry whose bits differ,
// and a table of 2^16 buckets or more grows without hashing a key again
// (its bucket and these bits give every bit up to 2^32 buckets).
type dent struct {
	next  uint32
	chunk uint32
	off   uint32
}

func (e *dent) offset() int      { return int(e.off & 0xffff) }
func (e *dent) hashBits() uint32 { return e.off >> 16 }
func hashBits(h uint64) uint32   { return uint32(h>>16) & 0xffff }

const (
	deadChunk      = ^uint32(0)
	dictChunkMin   = 256
	dictChunkMax   = 64 << 10
	dictOwnChunk   = dictChunkMax / 4 // records at least this big get a chunk of their own
	BigValue       = 256              // string values at least this long are kept out of the arena, as passed
	dictEntryBytes = int64(unsafe.Sizeof(dent{}))
)

var dictSeed = maphash.MakeSeed()

func dictHash(key string) uint64 { return maphash.String(dictSeed, key) }

const dictInitialSize = 4

// New returns an empty Dict whose big tables, once mapped outside the
// Go heap, are counted in a (nil: not counted).
func New[V any](a *mem.Acct) *Dict[V] {
	d := &Dict[V]{acct: a}
	d.init()
	return d
}

// Acct returns the Acct the Dict counts its mappings in (for a copy that
// should count in the same one).
func (d *Dict[V]) Acct() *mem.Acct { return d.acct }

func (d *Dict[V]) init() {
	d.rehash, d.cur = -1, -1
	var zero V
	switch any(zero).(type) {
	case struct{}:
		d.mode = dictSet
	case string:
		d.mode = dictString
	default:
		d.mode = dictAny
		if isStrObj[V]() {
			d.mode = dictValue
		}
	}
}

// Len is the number of entries.
func (d *Dict[V]) Len() int { return d.used[0] + d.used[1] }

// Buckets reports the total number of buckets (for MEMORY USAGE and DEBUG).
func (d *Dict[V]) Buckets() int { return len(d.tables[0]) + len(d.tables[1]) }

// Overhead is the memory of the table structures alone (buckets and
// entries, not keys and values): MEMORY STATS's overhead.hashtable.*.
func (d *Dict[V]) Overhead() int64 {
	return int64(d.Buckets())*4 + int64(cap(d.ents))*dictEntryBytes + int64(cap(d.meta))*4
}

// Bytes estimates the memory the Dict holds: tables, entries, arena,
// side values (with their long strings, not the objects they point to).
func (d *Dict[V]) Bytes() int64 {
	var zero V
	n := int64(d.Buckets())*4 + int64(cap(d.ents))*dictEntryBytes + d.arena + int64(cap(d.meta))*4
	n += int64(cap(d.vals)) * int64(unsafe.Sizeof(zero))
	n += int64(cap(d.side))*int64(unsafe.Sizeof(strObj{})) + d.sideBytes
	return n + int64(cap(d.chunks))*24
}

func (d *Dict[V]) isRehashing() bool { return d.rehash >= 0 }

// ---- records ----

// rec parses the record of entry id: its key, the value tag and the
// inline value, and its size in bytes.
func (d *Dict[V]) rec(id uint32) (key string, tag uint64, val string, size int) {
	e := &d.ents[id]
	b := d.chunks[e.chunk]
	p := e.offset()
	kl, w := binary.Uvarint(b[p:])
	p += w
	if kl > 0 {
		key = unsafe.String(&b[p], int(kl))
	}
	p += int(kl)
	if d.mode >= dictString {
		tag, w = binary.Uvarint(b[p:])
		p += w
		if tag&1 == 0 && tag > 0 {
			val = unsafe.String(&b[p], int(tag>>1))
			p += int(tag >> 1)
		}
	}
	return key, tag, val, p - e.offset()
}

// key returns the key of entry id.
func (d *Dict[V]) key(id uint32) string {
	e := &d.ents[id]
	b := d.chunks[e.chunk]
	p := e.offset()
	kl, w := binary.Uvarint(b[p:])
	if kl == 0 {
		return ""
	}
	return unsafe.String(&b[p+w], int(kl))
}

// value rebuilds the value of entry id from its tag and inline string.
func (d *Dict[V]) value(id uint32, tag uint64, val string) (v V) {
	switch d.mode {
	case dictAny:
		return d.vals[id]
	case dictString:
		if tag&1 != 0 {
			val = d.side[tag>>1].s
		}
		*(*string)(unsafe.Pointer(&v)) = val
	case dictValue:
		if tag&1 != 0 {
			*(*strObj)(unsafe.Pointer(&v)) = d.side[tag>>1]
		} else {
			*(*strObj)(unsafe.Pointer(&v)) = strObj{s: val}
		}
	}
	return v
}

// encode turns val into a tag and an inline string, taking a side slot
// for objects and long strings.
func (d *Dict[V]) encode(id uint32, val V) (tag uint64, inline string) {
	var sv strObj
	switch d.mode {
	case dictAny:
		d.vals[id] = val
		return 0, ""
	case dictSet:
		return 0, ""
	case dictString:
		sv.s = *(*string)(unsafe.Pointer(&val))
	case dictValue:
		sv = *(*strObj)(unsafe.Pointer(&val))
	}
	if sv.o == nil && len(sv.s) < BigValue {
		return uint64(len(sv.s)) << 1, sv.s
	}
	var i uint32
	if n := len(d.sideFree); n > 0 {
		i = d.sideFree[n-1]
		d.sideFree = d.sideFree[:n-1]
		d.side[i] = sv
	} else {
		i = uint32(len(d.side))
		d.side = append(d.side, sv)
	}
	d.sideBytes += int64(len(sv.s))
	return uint64(i)<<1 | 1, ""
}

// release frees what the value tag holds outside the record.
func (d *Dict[V]) release(id uint32, tag uint64) {
	switch d.mode {
	case dictAny:
		var zero V
		d.vals[id] = zero
	case dictString, dictValue:
		if tag&1 != 0 {
			i := uint32(tag >> 1)
			d.sideBytes -= int64(len(d.side[i].s))
			d.side[i] = strObj{}
			d.sideFree = append(d.sideFree, i)
		}
	}
}

func dictUvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// alloc returns a chunk with room for n more bytes.
func (d *Dict[V]) alloc(n int) int {
	if n >= dictOwnChunk {
		return d.newChunk(n)
	}
	if d.cur >= 0 {
		b := d.chunks[d.cur]
		if cap(b)-len(b) >= n {
			return d.cur
		}
		old := d.cur
		d.cur = -1
		if d.live[old] == 0 {
			d.dropChunk(old)
		}
	}
	size := max(d.nextSize, dictChunkMin)
	for size < n {
		size *= 2
	}
	d.nextSize = min(size*2, dictChunkMax)
	d.cur = d.newChunk(size)
	return d.cur
}

func (d *Dict[V]) newChunk(size int) int {
	b := make([]byte, 0, size)
	d.arena += int64(size)
	if n := len(d.chunkFree); n > 0 {
		c := int(d.chunkFree[n-1])
		d.chunkFree = d.chunkFree[:n-1]
		d.chunks[c], d.live[c] = b, 0
		return c
	}
	d.chunks = append(d.chunks, b)
	d.live = append(d.live, 0)
	return len(d.chunks) - 1
}

func (d *Dict[V]) dropChunk(c int) {
	d.arena -= int64(cap(d.chunks[c]))
	d.chunks[c], d.live[c] = nil, 0
	d.chunkFree = append(d.chunkFree, uint32(c))
}

// write appends the record of entry id and points the entry at it.
func (d *Dict[V]) write(id uint32, key string, tag uint64, val string) {
	n := dictUvarintLen(uint64(len(key))) + len(key)
	if d.mode >= dictString {
		n += dictUvarintLen(tag) + len(val)
	}
	c := d.alloc(n)
	b := d.chunks[c]
	off := len(b)
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	if d.mode >= dictString {
		b = binary.AppendUvarint(b, tag)
		b = append(b, val...)
	}
	d.chunks[c] = b
	d.live[c] += int32(n)
	if off > 0xffff {
		panic("dict: record offset past 64 KiB")
	}
	d.ents[id].chunk, d.ents[id].off = uint32(c), d.ents[id].off&^0xffff|uint32(off)
}

// kill accounts for the record of size bytes in chunk c becoming
// garbage, dropping or compacting the chunk when little of it is live.
func (d *Dict[V]) kill(c uint32, size int) {
	d.live[c] -= int32(size)
	if int(c) == d.cur {
		return
	}
	if d.live[c] == 0 {
		d.dropChunk(int(c))
	} else if int(d.live[c])*4 < len(d.chunks[c]) {
		d.compactChunk(int(c))
	}
}

// compactChunk copies the live records of chunk c to the active chunk
// and drops c. A record is live if the entry of its key points at it;
// records do not store their entry id (4 bytes per element saved), so
// each is found through its key's chain, which compaction (of a chunk
// at most 64 KiB, once less than a quarter of it is live) can afford.
func (d *Dict[V]) compactChunk(c int) {
	b := d.chunks[c]
	for p := 0; p < len(b); {
		kl, w := binary.Uvarint(b[p:])
		key := unsafe.String(unsafe.SliceData(b[p+w:]), int(kl))
		q := p + w + int(kl)
		if d.mode >= dictString {
			tag, w := binary.Uvarint(b[q:])
			q += w
			if tag&1 == 0 {
				q += int(tag >> 1)
			}
		}
		if id := d.locate(key, uint32(c), uint32(p)); id >= 0 {
			nc := d.alloc(q - p)
			nb := d.chunks[nc]
			d.ents[id].chunk, d.ents[id].off = uint32(nc), d.ents[id].off&^0xffff|uint32(len(nb))
			d.chunks[nc] = append(nb, b[p:q]...)
			d.live[nc] += int32(q - p)
		}
		p = q
	}
	d.dropChunk(c)
}

// locate returns the entry of key whose record is at chunk c, offset
// off, or -1 if key's entry (if any) points elsewhere.
func (d *Dict[V]) locate(key string, c, off uint32) int64 {
	h := dictHash(key)
	for t := 0; t < 2; t++ {
		tb := d.tables[t]
		if len(tb) == 0 {
			continue
		}
		for e := tb[h&uint64(len(tb)-1)]; e != 0; e = d.ents[e-1].next {
			if en := &d.ents[e-1]; en.chunk == c && en.offset() == int(off) {
				return int64(e - 1)
			}
		}
		if !d.isRehashing() {
			break
		}
	}
	return -1
}

// ---- entries ----

func (d *Dict[V]) newEntry() uint32 {
	if d.free != 0 {
		id := d.free - 1
		d.free = d.ents[id].next
		d.ents[id].next = 0
		if d.metaOn {
			d.meta[id] = 0
		}
		return id
	}
	n := len(d.ents)
	if n == cap(d.ents) {
		d.growEnts()
	}
	d.ents = d.ents[:n+1]
	d.ents[n] = dent{}
	if d.metaOn {
		if n == cap(d.meta) {
			d.growMeta()
		}
		d.meta = d.meta[:n+1]
		d.meta[n] = 0
	}
	if d.mode == dictAny {
		var zero V
		d.vals = append(d.vals, zero)
	}
	return uint32(len(d.ents) - 1)
}

// freeEntry releases entry id and its record.
func (d *Dict[V]) freeEntry(id uint32, tag uint64, size int) {
	d.release(id, tag)
	c := d.ents[id].chunk
	d.ents[id] = dent{next: d.free, chunk: deadChunk}
	d.free = id + 1
	d.kill(c, size)
}

// ---- table ----

// rehashStep moves up to n buckets from table 0 to table 1.
func (d *Dict[V]) rehashStep(n int) {
	if !d.isRehashing() || d.pausing > 0 {
		return
	}
	empty := n * 10
	for ; n > 0 && d.used[0] > 0; n-- {
		for d.tables[0][d.rehash] == 0 {
			d.rehash++
			if empty--; empty == 0 {
				return
			}
		}
		e := d.tables[0][d.rehash]
		t1 := d.tables[1]
		mask := uint64(len(t1) - 1)
		b := uint64(d.rehash)
		for e != 0 {
			id := e - 1
			next := d.ents[id].next
			var i uint64
			switch n0 := len(d.tables[0]); {
			case len(t1) < n0: // shrinking: the low bits are the bucket's
				i = b & mask
			case n0 >= 1<<16: // the bucket has bits 0..15, the entry 16..31
				i = (uint64(d.ents[id].hashBits())<<16 | b) & mask
			default:
				i = dictHash(d.key(id)) & mask
			}
			d.ents[id].next = t1[i]
			t1[i] = e
			d.used[0]--
			d.used[1]++
			e = next
		}
		d.tables[0][d.rehash] = 0
		d.rehash++
	}
	if d.used[0] == 0 {
		d.promoteTable()
		d.used[0], d.used[1] = d.used[1], 0
		d.rehash = -1
	}
}

func nextPow2(n int) int {
	if n <= dictInitialSize {
		return dictInitialSize
	}
	return 1 << bits.Len(uint(n-1))
}

func (d *Dict[V]) resize(size int) {
	size = nextPow2(size)
	if d.isRehashing() || size == len(d.tables[0]) {
		return
	}
	tb, m := d.alloc32(size)
	if d.tables[0] == nil {
		d.setTable(0, tb, m)
		return
	}
	d.setTable(1, tb, m)
	d.rehash = 0
}

func (d *Dict[V]) expandIfNeeded() {
	if d.isRehashing() {
		return
	}
	if d.tables[0] == nil {
		d.resize(dictInitialSize)
	} else if d.used[0] >= len(d.tables[0]) {
		d.resize(d.used[0] + 1)
	}
}

// ShrinkIfNeeded shrinks the table when less than 1/8 of it is used, and
// the entry slab when less than 1/8 of it is live.
func (d *Dict[V]) ShrinkIfNeeded() {
	if d.pausing > 0 {
		return
	}
	if len(d.ents) > 1024 && d.Len()*8 < len(d.ents) {
		d.rebuild()
		return
	}
	if d.isRehashing() {
		return
	}
	size := len(d.tables[0])
	if size > dictInitialSize && d.used[0]*8 < size {
		d.resize(d.used[0])
	}
}

// rebuild copies the live elements into a fresh Dict with a table sized
// for them (a resize in one step, which SCAN's cursor tolerates as any
// other), so the slab, the side slice and the arena shrink too.
func (d *Dict[V]) rebuild() {
	old := *d
	var oldMaps dictRegions
	if d.rg != nil {
		oldMaps, *d.rg = *d.rg, dictRegions{acct: d.acct}
	}
	*d = Dict[V]{rg: old.rg, acct: old.acct, metaOn: old.metaOn}
	d.init()
	d.resize(old.Len())
	ents, m := dictAlloc[dent](d.acct, max(old.Len(), 8))
	if m != nil {
		d.regs().ents = m
	}
	d.ents = ents[:0]
	if d.metaOn {
		d.growMeta()
	}
	for t := 0; t < 2; t++ {
		for _, e := range old.tables[t] {
			for ; e != 0; e = old.ents[e-1].next {
				k, v := old.entry(e - 1)
				id := d.insert(k, v)
				if d.metaOn {
					d.meta[id] = old.meta[e-1]
				}
			}
		}
	}
	oldMaps.freeAll()
}

// find returns the entry id of key, or -1.
func (d *Dict[V]) find(key string) int64 {
	if d.Len() == 0 {
		return -1
	}
	d.rehashStep(1)
	h := dictHash(key)
	for t := 0; t < 2; t++ {
		tb := d.tables[t]
		if len(tb) == 0 {
			continue
		}
		hb := hashBits(h)
		for e := tb[h&uint64(len(tb)-1)]; e != 0; e = d.ents[e-1].next {
			if d.ents[e-1].hashBits() == hb && d.key(e-1) == key {
				return int64(e - 1)
			}
		}
		if !d.isRehashing() {
			break
		}
	}
	return -1
}

// Get returns the value at key.
func (d *Dict[V]) Get(key string) (V, bool) {
	if id := d.find(key); id >= 0 {
		_, tag, val, _ := d.rec(uint32(id))
		return d.value(uint32(id), tag, val), true
	}
	var zero V
	return zero, false
}

// EnableMeta gives every entry a uint32 of metadata (GetMeta), 0 for
// entries present now and for new ones. It costs 4 bytes per entry.
func (d *Dict[V]) EnableMeta() {
	if !d.metaOn {
		d.metaOn = true
		d.growMeta()
		d.meta = d.meta[:len(d.ents)]
	}
}

// GetMeta is Get also returning key's metadata word, which the caller may
// change through the pointer until the Dict next changes. The pointer is
// nil when the key is absent or EnableMeta was not called.
func (d *Dict[V]) GetMeta(key string) (V, *uint32, bool) {
	if id := d.find(key); id >= 0 {
		_, tag, val, _ := d.rec(uint32(id))
		var m *uint32
		if d.metaOn {
			m = &d.meta[id]
		}
		return d.value(uint32(id), tag, val), m, true
	}
	var zero V
	return zero, nil, false
}

// Has reports whether key is present.
func (d *Dict[V]) Has(key string) bool { return d.find(key) >= 0 }

// Set stores val at key and reports whether the key is new. The key and
// short string values are copied, so callers may pass strings that alias
// a request buffer; long string values and objects are kept as passed.
func (d *Dict[V]) Set(key string, val V) bool {
	if id := d.find(key); id >= 0 {
		d.replace(uint32(id), val)
		return false
	}
	d.expandIfNeeded()
	d.insert(key, val)
	return true
}

// SetMeta is Set also returning key's metadata word (nil unless
// EnableMeta was called), valid until the Dict next changes: 0 for a new
// key, the key's word for an existing one.
func (d *Dict[V]) SetMeta(key string, val V) (meta *uint32, isNew bool) {
	id := d.find(key)
	if id >= 0 {
		d.replace(uint32(id), val)
	} else {
		d.expandIfNeeded()
		id = int64(d.insert(key, val))
		isNew = true
	}
	if d.metaOn {
		meta = &d.meta[id]
	}
	return meta, isNew
}

// Swap is SetMeta also returning the value it replaced (had is false
// when the key is new): a Get and a SetMeta in one lookup, for the
// keyspace's SET, which must account for the old value.
func (d *Dict[V]) Swap(key string, val V) (old V, had bool, meta *uint32) {
	id := d.find(key)
	if id >= 0 {
		_, tag, v, _ := d.rec(uint32(id))
		old, had = d.value(uint32(id), tag, v), true
		d.replace(uint32(id), val)
	} else {
		d.expandIfNeeded()
		id = int64(d.insert(key, val))
	}
	if d.metaOn {
		meta = &d.meta[id]
	}
	return old, had, meta
}

// insert adds key, known to be absent, and returns its entry id.
func (d *Dict[V]) insert(key string, val V) uint32 {
	t := 0
	if d.isRehashing() {
		t = 1
	}
	tb := d.tables[t]
	h := dictHash(key)
	i := h & uint64(len(tb)-1)
	id := d.newEntry()
	d.ents[id].off = hashBits(h) << 16
	tag, inline := d.encode(id, val)
	d.write(id, key, tag, inline)
	d.ents[id].next = tb[i]
	tb[i] = id + 1
	d.used[t]++
	return id
}

// replace stores val in the existing entry id.
func (d *Dict[V]) replace(id uint32, val V) {
	switch d.mode {
	case dictSet:
		return
	case dictAny:
		d.vals[id] = val
		return
	}
	key, tag, _, size := d.rec(id)
	c := d.ents[id].chunk
	d.release(id, tag)
	ntag, inline := d.encode(id, val)
	d.write(id, key, ntag, inline) // key views the old record, which stays intact
	d.kill(c, size)
}

// Delete removes key and returns its value.
func (d *Dict[V]) Delete(key string) (V, bool) {
	var zero V
	if d.Len() == 0 {
		return zero, false
	}
	d.rehashStep(1)
	h := dictHash(key)
	for t := 0; t < 2; t++ {
		tb := d.tables[t]
		if len(tb) == 0 {
			continue
		}
		i := h & uint64(len(tb)-1)
		var prev uint32
		for e := tb[i]; e != 0; prev, e = e, d.ents[e-1].next {
			id := e - 1
			if d.ents[id].hashBits() != hashBits(h) || d.key(id) != key {
				continue
			}
			if prev == 0 {
				tb[i] = d.ents[id].next
			} else {
				d.ents[prev-1].next = d.ents[id].next
			}
			d.used[t]--
			_, tag, val, size := d.rec(id)
			v := d.value(id, tag, val)
			d.freeEntry(id, tag, size)
			return v, true
		}
		if !d.isRehashing() {
			break
		}
	}
	return zero, false
}

// Clear removes everything.
func (d *Dict[V]) Clear() {
	rg := d.rg
	if rg != nil {
		rg.freeAll()
	}
	*d = Dict[V]{rg: rg, acct: d.acct, metaOn: d.metaOn}
	d.init()
}

// entry returns the key and value of entry id.
func (d *Dict[V]) entry(id uint32) (string, V) {
	k, tag, val, _ := d.rec(id)
	return k, d.value(id, tag, val)
}

// Each calls fn for every entry until fn returns false. fn must not
// change the Dict, but may read it (Get, Has, Random): rehashing is
// paused meanwhile, as under Redis's safe iterator, since a rehash step
// taken by a lookup would move entries under the walk, from a bucket not
// yet visited to one already visited or the other way (ZINTER of a set
// with itself saw members twice or not at all).
func (d *Dict[V]) Each(fn func(key string, val V) bool) {
	d.pausing++
	defer func() { d.pausing-- }()
	for t := 0; t < 2; t++ {
		for _, e := range d.tables[t] {
			for ; e != 0; e = d.ents[e-1].next {
				if !fn(d.entry(e - 1)) {
					return
				}
			}
		}
	}
}

// Scan calls fn for the entries of the buckets at cursor and returns the
// next cursor (0 when the scan is complete). It is Redis's dictScan: the
// cursor's bits are incremented from the top so that buckets already
// visited stay visited when the table grows or shrinks between calls.
// fn must not change the Dict.
func (d *Dict[V]) Scan(cursor uint64, fn func(key string, val V)) uint64 {
	if d.Len() == 0 {
		return 0
	}
	d.pausing++
	defer func() { d.pausing-- }()
	emit := func(e uint32) {
		for ; e != 0; e = d.ents[e-1].next {
			fn(d.entry(e - 1))
		}
	}
	v := cursor
	if !d.isRehashing() {
		m0 := uint64(len(d.tables[0]) - 1)
		emit(d.tables[0][v&m0])
		v |= ^m0
		v = bits.Reverse64(bits.Reverse64(v) + 1)
		return v
	}
	t0, t1 := d.tables[0], d.tables[1]
	if len(t0) > len(t1) {
		t0, t1 = t1, t0
	}
	m0, m1 := uint64(len(t0)-1), uint64(len(t1)-1)
	emit(t0[v&m0])
	for {
		emit(t1[v&m1])
		v |= ^m1
		v = bits.Reverse64(bits.Reverse64(v) + 1)
		if v&(m0^m1) == 0 {
			break
		}
	}
	return v
}

// Random returns a random entry; ok is false when the Dict is empty.
func (d *Dict[V]) Random() (key string, val V, ok bool) {
	if d.Len() == 0 {
		return "", val, false
	}
	d.rehashStep(1)
	var e uint32
	for e == 0 {
		if d.isRehashing() {
			n0, n1 := len(d.tables[0]), len(d.tables[1])
			i := d.rehash + rand.IntN(n0+n1-d.rehash)
			if i >= n0 {
				e = d.tables[1][i-n0]
			} else {
				e = d.tables[0][i]
			}
		} else {
			e = d.tables[0][rand.IntN(len(d.tables[0]))]
		}
	}
	n := 0
	for x := e; x != 0; x = d.ents[x-1].next {
		n++
	}
	for k := rand.IntN(n); k > 0; k-- {
		e = d.ents[e-1].next
	}
	key, val = d.entry(e - 1)
	return key, val, true
}
