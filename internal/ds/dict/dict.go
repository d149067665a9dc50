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
// V may be any type. Four kinds are stored specially: struct{} (a set:
// no value at all), string (kept in the record when short), int64 (kept
// in the record, zigzag-encoded: the expires), and any struct type whose
// layout is exactly struct{ string; any } (the engine's Value: a string,
// kept in the record when short and the interface nil, or an object).
// Other types live in a slice, the record holding their index.
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
// sorted sets (package zset), no element owns a heap object. Each
// element is one record, packed into arena chunks, laid out as
// [next: 4 bytes][meta: 4 bytes, EnableMeta only][key length: uvarint]
// [key][value tag: uvarint][value]:
//
//   - a record is addressed by a 32-bit location (chunk index << 16 |
//     offset in the chunk); buckets are []uint32 holding the location
//     of their chain's first record (0 for none), and next is the
//     location of the following record in the chain, so a table costs 4
//     bytes per bucket and the chain 4 bytes per element;
//   - keys, short string values (hash values, the keyspace's string
//     values) and int64 values (the expires) are in the record itself;
//   - values that are objects (the keyspace's *Hash, *Set ...) sit in a
//     side slice of interfaces (objs, 16 bytes each), long strings (>=
//     BigValue bytes, so APPEND keeps growing its buffer in place, and
//     the rare Value holding both a string and an object) in one of
//     strObj (side, 32 bytes), the tag holding the slice and the index;
//     values of other types in a slice indexed by the tag.
//
// An earlier layout kept a 12-byte entry per element in a slab (chain
// link, record location, 16 hash bits) and put entry ids in the buckets:
// 8 bytes per element more, and on a lookup one more cache miss (the
// entry, then the record) than the record alone. Without the hash bits a
// chain walk compares the key of every record in the bucket, which is
// the same miss the entry cost; rehashing hashes each key again.
//
// Chunks are at most 64 KiB (so the offset fits 16 bits) for the first
// 32,767 chunk indexes (2 GiB of records) and at most 1 MiB, records
// 16-byte aligned (the offset counts 16-byte units), for the next 32,768
// (32 GiB more): a Dict holds at most 65,535 chunks, about 34 GiB of
// records (less when many keys are over 16 KiB, which get a chunk each),
// and panics past that. With EnableMeta every record starts 4-byte aligned
// so that the metadata word can be handed out as a *uint32.
//
// The key and inline value bytes of a record, once written, never change,
// and a chunk's array is never reallocated; only the header (next, meta)
// and int64 tags are written in place. So the keys and values handed out
// (Get, Each, Scan, Random, Delete) are Go strings viewing a chunk: they
// are immutable and safe to keep (they keep their chunk alive, as any
// substring would). Overwriting a value writes a new record and relinks
// the chain; the old one becomes garbage, counted per chunk; a chunk
// with no live record is dropped, and one less than a quarter live is
// compacted (its live records, found through their keys' chains, are
// copied to the active chunk and relinked), so the work per change is
// bounded by a chunk's size.
//
// Measured with `ordo bench -rows '^memory' -repeat 3` (RSS of the whole
// process after 1,000,000 elements, redis-server 7.0 / ordo-server): SET
// key:N value:N 106 / 63 MiB (the keyspace keeps a 4-byte access clock
// per key, EnableMeta), HSET of 1,000,000 fields in one hash 83 / 50 MiB,
// SADD of 1,000,000 members to one set 75 / 44 MiB (the chained table of
// Go structs this replaces: 152, 131 and 97 MiB). Later (bench/README.md,
// "Where the memory goes"), with a 10.5 MiB empty ordo-server (static,
// without net/http/pprof) and free heap returned when quiet: 54 / 46 /
// 41 MiB against Redis's 105 / 79 / 75.
//
// Then the entry slab went (the chain link moved into the record, the
// buckets hold record locations): `ordo bench -rows '^memory' -repeat 1`,
// one run each on the shared 2-core machine (2026-11-25, RSS moves by
// about 1 MiB between runs, Redis's strings row by up to 8), before /
// after, against Redis's figure of the same run: strings 54.3 / 46.7 MiB
// (ratio 0.51 -> 0.45), hash fields 46.4 / 38.9 MiB (0.56 -> 0.48), set
// members 40.7 / 33.3 MiB (0.54 -> 0.44). CPU per operation (cpu-ns/op,
// the median of 3 alternating runs, 1,000,000 elements loaded, random
// keys): BenchmarkDict get 1227 -> 1040 ns, overwriting set 1486 -> 1384,
// has 731 -> 669, Value get 1221 -> 1070, but inserting a new key and
// deleting it 1077 -> 1268; the engine's BenchmarkDictCommands SET 0.80x,
// GET 0.91x, HSET 0.90x, HGET 0.91x, SADD (existing member) 0.82x,
// SISMEMBER 0.83x the CPU before, and SET of a new key + DEL 1.24x. A
// lookup that finds its key now reads the bucket and the record (the
// entry was a third read); one that misses reads every record of its
// bucket's chain where it read their 12-byte entries, which the 16 hash
// bits let it pass without the record: at 1,000,000 keys the slab (12
// MB) mostly stayed in this machine's 32 MB L3 cache, the records (about
// 3x that) do not, so inserts of new keys cost more.
//
// Objects alone (a Value with no string: every hash, set, list... of the
// keyspace) then left side for objs, 16 bytes a slot instead of 32: with
// 100,000 small hashes loaded (bench/embedded's TestMeasureMemory), the
// Go heap went from 19.4 to 17.4 MB and RSS from 41.4 to 38.1 MB.
//
// BenchmarkDict (dict_bench_test.go) measures the Dict alone,
// internal/engine's BenchmarkDictCommands the command paths.
//
// Dict is not safe for concurrent use; the engine lock protects it.
type Dict[V any] struct {
	tables  [2][]uint32
	used    [2]int
	rehash  int // next bucket of tables[0] to move, or -1
	pausing int // >0 while a caller iterates and must not see rehash steps

	mode     dictMode
	vals     []V      // dictAny: values by tag
	valsFree []uint32 // free indexes of vals

	side      []strObj // long strings (dictString, dictValue)
	sideFree  []uint32
	sideBytes int64 // bytes of the long strings in side
	objs      []any // objects alone (dictValue: a Value with no string)
	objsFree  []uint32

	chunks    [][]byte // arena chunks by index (index 0 unused, nil once dropped)
	live      []int32  // live record bytes per chunk
	chunkFree []uint32 // indexes of dropped chunks, to reuse
	cur       int      // active chunk, or -1
	nextSize  int      // size of the next active chunk
	arena     int64    // total capacity of the chunks

	rg   *dictRegions // mappings behind the tables, if any (offheap.go)
	acct *mem.Acct    // where mappings are counted (nil: not counted)

	// metaOn gives every record a uint32 of metadata for the caller
	// (the keyspace keeps Redis's LRU clock or LFU counter of each key
	// there), 0 for a new entry; see EnableMeta.
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
	dictAny    dictMode = iota // value in vals, its index in the tag
	dictSet                    // no value (struct{}), no tag
	dictString                 // string value in the record or side
	dictValue                  // Value: string in the record, or side
	dictInt                    // int64: the tag is the value, zigzag
)

const (
	dictChunkMin  = 256
	dictChunkMax  = 64 << 10 // chunks of the first tier
	dictOwnChunk  = dictChunkMax / 4
	dictTier1     = 1 << 15 // first chunk index of the second tier
	dictTier1Unit = 4       // log2 of the second tier's offset unit
	dictMaxChunks = 1 << 16
	BigValue      = 256 // string values at least this long are kept out of the arena, as passed
	dictNextBytes = 4
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
	case int64:
		d.mode = dictInt
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
// the records' headers, not keys and values): MEMORY STATS's
// overhead.hashtable.*.
func (d *Dict[V]) Overhead() int64 {
	return int64(d.Buckets())*4 + int64(d.Len()*d.hdr())
}

// Bytes estimates the memory the Dict holds: tables, arena, side values
// (with their long strings, not the objects they point to).
func (d *Dict[V]) Bytes() int64 {
	var zero V
	n := int64(d.Buckets())*4 + d.arena
	n += int64(cap(d.vals)) * int64(unsafe.Sizeof(zero))
	n += int64(cap(d.side))*int64(unsafe.Sizeof(strObj{})) + d.sideBytes
	n += int64(cap(d.objs)) * int64(unsafe.Sizeof(any(nil)))
	return n + int64(cap(d.chunks))*24
}

func (d *Dict[V]) isRehashing() bool { return d.rehash >= 0 }

// ---- records ----

// hdr is the size of a record's fixed header: next, and meta if on.
func (d *Dict[V]) hdr() int {
	if d.metaOn {
		return dictNextBytes + 4
	}
	return dictNextBytes
}

func (d *Dict[V]) hasTag() bool { return d.mode != dictSet }

func chunkShift(c int) uint {
	if c >= dictTier1 {
		return dictTier1Unit
	}
	return 0
}

// chunkLimit is the most bytes chunk c may hold (except a record alone).
func chunkLimit(c int) int { return dictChunkMax << chunkShift(c) }

// align is the alignment of record starts in chunk c.
func (d *Dict[V]) align(c int) int {
	a := 1 << chunkShift(c)
	if d.metaOn {
		a = max(a, 4)
	}
	return a
}

func alignUp(n, a int) int { return (n + a - 1) &^ (a - 1) }

// at returns the chunk and offset of the record at loc.
func (d *Dict[V]) at(loc uint32) (c, off int) {
	c = int(loc >> 16)
	return c, int(loc&0xffff) << chunkShift(c)
}

// bytesAt returns the chunk's bytes from the record at loc on.
func (d *Dict[V]) bytesAt(loc uint32) []byte {
	c, off := d.at(loc)
	return d.chunks[c][off:]
}

func (d *Dict[V]) next(loc uint32) uint32 {
	return binary.LittleEndian.Uint32(d.bytesAt(loc))
}

func (d *Dict[V]) setNext(loc, next uint32) {
	binary.LittleEndian.PutUint32(d.bytesAt(loc), next)
}

// meta returns the metadata word of the record at loc (EnableMeta on:
// records are 4-byte aligned, chunks 8-byte aligned).
func (d *Dict[V]) meta(loc uint32) *uint32 {
	b := d.bytesAt(loc)
	return (*uint32)(unsafe.Pointer(&b[dictNextBytes]))
}

// rec parses the record at loc: its key, the value tag and the inline
// value, and its size in bytes.
func (d *Dict[V]) rec(loc uint32) (key string, tag uint64, val string, size int) {
	b := d.bytesAt(loc)
	p := d.hdr()
	kl, w := binary.Uvarint(b[p:])
	p += w
	if kl > 0 {
		key = unsafe.String(&b[p], int(kl))
	}
	p += int(kl)
	if d.hasTag() {
		tag, w = binary.Uvarint(b[p:])
		p += w
		if d.mode >= dictString && d.mode <= dictValue && tag&1 == 0 && tag > 0 {
			val = unsafe.String(&b[p], int(tag>>1))
			p += int(tag >> 1)
		}
	}
	return key, tag, val, p
}

// key returns the key of the record at loc.
func (d *Dict[V]) key(loc uint32) string {
	b := d.bytesAt(loc)
	p := d.hdr()
	kl, w := binary.Uvarint(b[p:])
	if kl == 0 {
		return ""
	}
	return unsafe.String(&b[p+w], int(kl))
}

// A value tag (dictString, dictValue) is the length of an inline string
// shifted left once (bit 0 clear), or an index shifted left twice with
// bits 01 (a slot of side) or 11 (a slot of objs).
const (
	tagSide = 1
	tagObj  = 3
)

// value rebuilds a value from its tag and inline string.
func (d *Dict[V]) value(tag uint64, val string) (v V) {
	switch d.mode {
	case dictAny:
		return d.vals[tag]
	case dictInt:
		*(*int64)(unsafe.Pointer(&v)) = int64(tag>>1) ^ -int64(tag&1)
	case dictString:
		if tag&1 != 0 {
			val = d.side[tag>>2].s
		}
		*(*string)(unsafe.Pointer(&v)) = val
	case dictValue:
		if tag&3 == tagObj {
			*(*strObj)(unsafe.Pointer(&v)) = strObj{o: d.objs[tag>>2]}
		} else if tag&1 != 0 {
			*(*strObj)(unsafe.Pointer(&v)) = d.side[tag>>2]
		} else {
			*(*strObj)(unsafe.Pointer(&v)) = strObj{s: val}
		}
	}
	return v
}

// encode turns val into a tag and an inline string, taking a side slot
// for objects and long strings.
func (d *Dict[V]) encode(val V) (tag uint64, inline string) {
	var sv strObj
	switch d.mode {
	case dictAny:
		return uint64(takeSlot(&d.vals, &d.valsFree, val)), ""
	case dictSet:
		return 0, ""
	case dictInt:
		x := *(*int64)(unsafe.Pointer(&val))
		return uint64(x<<1) ^ uint64(x>>63), ""
	case dictString:
		sv.s = *(*string)(unsafe.Pointer(&val))
	case dictValue:
		sv = *(*strObj)(unsafe.Pointer(&val))
	}
	if sv.o == nil && len(sv.s) < BigValue {
		return uint64(len(sv.s)) << 1, sv.s
	}
	if sv.s == "" {
		return uint64(takeSlot(&d.objs, &d.objsFree, sv.o))<<2 | tagObj, ""
	}
	i := takeSlot(&d.side, &d.sideFree, sv)
	d.sideBytes += int64(len(sv.s))
	return uint64(i)<<2 | tagSide, ""
}

// takeSlot stores v in a free slot of *slots (one listed in *free), or
// appends it, and returns its index.
func takeSlot[T any](slots *[]T, free *[]uint32, v T) uint32 {
	if n := len(*free); n > 0 {
		i := (*free)[n-1]
		*free = (*free)[:n-1]
		(*slots)[i] = v
		return i
	}
	*slots = append(*slots, v)
	return uint32(len(*slots) - 1)
}

// release frees what the value tag holds outside the record.
func (d *Dict[V]) release(tag uint64) {
	switch d.mode {
	case dictAny:
		var zero V
		d.vals[tag] = zero
		d.valsFree = append(d.valsFree, uint32(tag))
	case dictString, dictValue:
		if tag&3 == tagObj {
			i := uint32(tag >> 2)
			d.objs[i] = nil
			d.objsFree = append(d.objsFree, i)
		} else if tag&1 != 0 {
			i := uint32(tag >> 2)
			d.sideBytes -= int64(len(d.side[i].s))
			d.side[i] = strObj{}
			d.sideFree = append(d.sideFree, i)
		}
	}
}

func dictUvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// alloc returns a chunk with room for a record of n bytes and the
// (aligned) offset where it goes.
func (d *Dict[V]) alloc(n int) (c, off int) {
	if n >= dictOwnChunk {
		return d.newChunk(n, n), 0
	}
	if d.cur >= 0 {
		b := d.chunks[d.cur]
		if off := alignUp(len(b), d.align(d.cur)); off+n <= cap(b) {
			return d.cur, off
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
	d.cur = d.newChunk(size, n)
	d.nextSize = min(cap(d.chunks[d.cur])*2, chunkLimit(d.cur))
	return d.cur, 0
}

// newChunk adds a chunk of size bytes (at most its tier's limit, at
// least n) and returns its index.
func (d *Dict[V]) newChunk(size, n int) int {
	var c int
	if k := len(d.chunkFree); k > 0 {
		c = int(d.chunkFree[k-1])
		d.chunkFree = d.chunkFree[:k-1]
	} else {
		if len(d.chunks) == 0 {
			d.chunks, d.live = append(d.chunks, nil), append(d.live, 0) // index 0: location 0 is "none"
		}
		c = len(d.chunks)
		if c >= dictMaxChunks {
			panic("dict: more than 65,535 arena chunks (about 34 GiB of records)")
		}
		d.chunks, d.live = append(d.chunks, nil), append(d.live, 0)
	}
	size = max(min(size, chunkLimit(c)), n)
	d.chunks[c], d.live[c] = make([]byte, 0, size), 0
	d.arena += int64(size)
	return c
}

func (d *Dict[V]) dropChunk(c int) {
	d.arena -= int64(cap(d.chunks[c]))
	d.chunks[c], d.live[c] = nil, 0
	d.chunkFree = append(d.chunkFree, uint32(c))
}

// write appends a record and returns its location.
func (d *Dict[V]) write(key string, tag uint64, val string, next, meta uint32) uint32 {
	h := d.hdr()
	n := h + dictUvarintLen(uint64(len(key))) + len(key)
	if d.hasTag() {
		n += dictUvarintLen(tag) + len(val)
	}
	c, off := d.alloc(n)
	b := d.chunks[c][:off+h]
	binary.LittleEndian.PutUint32(b[off:], next)
	if d.metaOn {
		binary.NativeEndian.PutUint32(b[off+dictNextBytes:], meta)
	}
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	if d.hasTag() {
		b = binary.AppendUvarint(b, tag)
		b = append(b, val...)
	}
	d.chunks[c] = b
	d.live[c] += int32(n)
	return uint32(c)<<16 | uint32(off>>chunkShift(c))
}

// kill accounts for the record of size bytes at loc becoming garbage,
// dropping or compacting its chunk when little of it is live.
func (d *Dict[V]) kill(loc uint32, size int) {
	c, _ := d.at(loc)
	d.live[c] -= int32(size)
	if c == d.cur {
		return
	}
	if d.live[c] == 0 {
		d.dropChunk(c)
	} else if int(d.live[c])*4 < len(d.chunks[c]) {
		d.compactChunk(c)
	}
}

// compactChunk copies the live records of chunk c to the active chunk,
// relinks them, and drops c. A record is live if its key's chain leads
// to it; records do not store a back link (4 bytes per element saved),
// so each is found through its key's chain, which compaction (of a chunk
// at most 64 KiB, or 1 MiB past 2 GiB of records, once less than a
// quarter of it is live) can afford.
func (d *Dict[V]) compactChunk(c int) {
	b := d.chunks[c]
	a, h, sh := d.align(c), d.hdr(), chunkShift(c)
	for p := 0; p < len(b); p = alignUp(p, a) {
		loc := uint32(c)<<16 | uint32(p>>sh)
		q := p + h
		kl, w := binary.Uvarint(b[q:])
		key := unsafe.String(unsafe.SliceData(b[q+w:]), int(kl))
		q += w + int(kl)
		if d.hasTag() {
			tag, w := binary.Uvarint(b[q:])
			q += w
			if d.mode >= dictString && d.mode <= dictValue && tag&1 == 0 {
				q += int(tag >> 1)
			}
		}
		if ln, ok := d.locate(key, loc); ok {
			nc, off := d.alloc(q - p)
			nb := d.chunks[nc]
			nb = append(nb[:off], b[p:q]...)
			d.chunks[nc] = nb
			d.live[nc] += int32(q - p)
			d.setLink(ln, uint32(nc)<<16|uint32(off>>chunkShift(nc)))
		}
		p = q
	}
	d.dropChunk(c)
}

// link is where the location of a record is kept: a bucket (rec == 0)
// or the next field of the record at rec.
type link struct {
	tb  []uint32
	i   int
	rec uint32
}

func (d *Dict[V]) setLink(ln link, loc uint32) {
	if ln.rec == 0 {
		ln.tb[ln.i] = loc
	} else {
		d.setNext(ln.rec, loc)
	}
}

// locate returns the link to the record at loc, whose key is key, or
// false if key's chain (if any) does not lead to it.
func (d *Dict[V]) locate(key string, loc uint32) (link, bool) {
	h := dictHash(key)
	for t := 0; t < 2; t++ {
		tb := d.tables[t]
		if len(tb) == 0 {
			continue
		}
		i := int(h & uint64(len(tb)-1))
		ln := link{tb: tb, i: i}
		for e := tb[i]; e != 0; e = d.next(e) {
			if e == loc {
				return ln, true
			}
			ln.rec = e
		}
		if !d.isRehashing() {
			break
		}
	}
	return link{}, false
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
		shrinking := len(t1) < len(d.tables[0])
		b := uint64(d.rehash)
		for e != 0 {
			next := d.next(e)
			var i uint64
			if shrinking { // the low bits are the bucket's
				i = b & mask
			} else {
				i = dictHash(d.key(e)) & mask
			}
			d.setNext(e, t1[i])
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
// the side slices when less than 1/8 of them is live.
func (d *Dict[V]) ShrinkIfNeeded() {
	if d.pausing > 0 {
		return
	}
	if sparse(len(d.side), len(d.sideFree)) || sparse(len(d.objs), len(d.objsFree)) || sparse(len(d.vals), len(d.valsFree)) {
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

func sparse(n, free int) bool { return n > 1024 && (n-free)*8 < n }

// rebuild copies the live elements into a fresh Dict with a table sized
// for them (a resize in one step, which SCAN's cursor tolerates as any
// other), so the side slices and the arena shrink too.
func (d *Dict[V]) rebuild() { d.rebuildWith(d.metaOn) }

// rebuildWith is rebuild, the new records with a metadata word if meta.
func (d *Dict[V]) rebuildWith(meta bool) {
	old := *d
	var oldMaps dictRegions
	if d.rg != nil {
		oldMaps, *d.rg = *d.rg, dictRegions{acct: d.acct}
	}
	*d = Dict[V]{rg: old.rg, acct: old.acct, metaOn: meta}
	d.init()
	d.resize(old.Len())
	for t := 0; t < 2; t++ {
		for _, e := range old.tables[t] {
			for ; e != 0; e = old.next(e) {
				k, v := old.entry(e)
				loc := d.insert(k, v)
				if d.metaOn && old.metaOn {
					*d.meta(loc) = *old.meta(e)
				}
			}
		}
	}
	oldMaps.freeAll()
}

// find returns the location of key's record (0 if absent), the link to
// it, its table, and key's hash (for an insert that follows; 0 when the
// Dict is empty).
func (d *Dict[V]) find(key string) (loc uint32, ln link, t int, h uint64) {
	if d.Len() == 0 {
		return 0, ln, 0, 0
	}
	d.rehashStep(1)
	h = dictHash(key)
	for t = 0; t < 2; t++ {
		tb := d.tables[t]
		if len(tb) == 0 {
			continue
		}
		i := int(h & uint64(len(tb)-1))
		ln = link{tb: tb, i: i}
		for e := tb[i]; e != 0; e = d.next(e) {
			if d.keyIs(e, key) {
				return e, ln, t, h
			}
			ln.rec = e
		}
		if !d.isRehashing() {
			break
		}
	}
	return 0, link{}, 0, h
}

// keyIs reports whether the record at loc has key.
func (d *Dict[V]) keyIs(loc uint32, key string) bool {
	b := d.bytesAt(loc)
	p := d.hdr()
	if kl := int(b[p]); kl < 0x80 { // a one-byte length: keys under 128 bytes
		return kl == len(key) && string(b[p+1:p+1+kl]) == key
	}
	return d.key(loc) == key
}

// Get returns the value at key.
func (d *Dict[V]) Get(key string) (V, bool) {
	if loc, _, _, _ := d.find(key); loc != 0 {
		_, tag, val, _ := d.rec(loc)
		return d.value(tag, val), true
	}
	var zero V
	return zero, false
}

// EnableMeta gives every entry a uint32 of metadata (GetMeta), 0 for
// entries present now and for new ones. It costs 4 bytes per entry (and
// records start 4-byte aligned). Called on a Dict that has records, it
// rewrites them all (once).
func (d *Dict[V]) EnableMeta() {
	if d.metaOn {
		return
	}
	if len(d.chunks) == 0 {
		d.metaOn = true
		return
	}
	d.rebuildWith(true)
}

// GetMeta is Get also returning key's metadata word, which the caller may
// change through the pointer until the Dict next changes. The pointer is
// nil when the key is absent or EnableMeta was not called.
func (d *Dict[V]) GetMeta(key string) (V, *uint32, bool) {
	if loc, _, _, _ := d.find(key); loc != 0 {
		_, tag, val, _ := d.rec(loc)
		var m *uint32
		if d.metaOn {
			m = d.meta(loc)
		}
		return d.value(tag, val), m, true
	}
	var zero V
	return zero, nil, false
}

// Has reports whether key is present.
func (d *Dict[V]) Has(key string) bool {
	loc, _, _, _ := d.find(key)
	return loc != 0
}

// Set stores val at key and reports whether the key is new. The key and
// short string values are copied, so callers may pass strings that alias
// a request buffer; long string values and objects are kept as passed.
func (d *Dict[V]) Set(key string, val V) bool {
	loc, ln, _, h := d.find(key)
	if loc != 0 {
		d.replace(loc, ln, val)
		return false
	}
	d.expandIfNeeded()
	d.insertHashed(key, val, h)
	return true
}

// SetMeta is Set also returning key's metadata word (nil unless
// EnableMeta was called), valid until the Dict next changes: 0 for a new
// key, the key's word for an existing one.
func (d *Dict[V]) SetMeta(key string, val V) (meta *uint32, isNew bool) {
	loc, ln, _, h := d.find(key)
	if loc != 0 {
		loc = d.replace(loc, ln, val)
	} else {
		d.expandIfNeeded()
		loc = d.insertHashed(key, val, h)
		isNew = true
	}
	if d.metaOn {
		meta = d.meta(loc)
	}
	return meta, isNew
}

// Swap is SetMeta also returning the value it replaced (had is false
// when the key is new): a Get and a SetMeta in one lookup, for the
// keyspace's SET, which must account for the old value.
func (d *Dict[V]) Swap(key string, val V) (old V, had bool, meta *uint32) {
	loc, ln, _, h := d.find(key)
	if loc != 0 {
		_, tag, v, _ := d.rec(loc)
		old, had = d.value(tag, v), true
		loc = d.replace(loc, ln, val)
	} else {
		d.expandIfNeeded()
		loc = d.insertHashed(key, val, h)
	}
	if d.metaOn {
		meta = d.meta(loc)
	}
	return old, had, meta
}

// insert adds key, known to be absent, and returns its record's location.
func (d *Dict[V]) insert(key string, val V) uint32 {
	return d.insertHashed(key, val, dictHash(key))
}

// insertHashed is insert given key's hash, or 0 to compute it (find
// returns 0 for an empty Dict, which it does not hash).
func (d *Dict[V]) insertHashed(key string, val V, h uint64) uint32 {
	if h == 0 {
		h = dictHash(key)
	}
	t := 0
	if d.isRehashing() {
		t = 1
	}
	tb := d.tables[t]
	i := h & uint64(len(tb)-1)
	tag, inline := d.encode(val)
	loc := d.write(key, tag, inline, tb[i], 0)
	tb[i] = loc
	d.used[t]++
	return loc
}

// replace stores val in the existing record at loc (reached through ln)
// and returns the record's location, which changes unless the value fits
// in place.
func (d *Dict[V]) replace(loc uint32, ln link, val V) uint32 {
	switch d.mode {
	case dictSet:
		return loc
	case dictAny:
		_, tag, _, _ := d.rec(loc)
		d.vals[tag] = val
		return loc
	}
	key, tag, _, size := d.rec(loc)
	if d.mode == dictInt {
		// The tag is the last thing in the record and no string views
		// it: a new value of the same length is written in place.
		ntag, _ := d.encode(val)
		if n := dictUvarintLen(ntag); n == dictUvarintLen(tag) {
			binary.PutUvarint(d.bytesAt(loc)[size-n:size], ntag)
			return loc
		}
	}
	var m uint32
	if d.metaOn {
		m = *d.meta(loc)
	}
	d.release(tag)
	ntag, inline := d.encode(val)
	nloc := d.write(key, ntag, inline, d.next(loc), m) // key views the old record, which stays intact
	d.setLink(ln, nloc)
	d.kill(loc, size)
	return nloc
}

// Delete removes key and returns its value.
func (d *Dict[V]) Delete(key string) (V, bool) {
	loc, ln, t, _ := d.find(key)
	if loc == 0 {
		var zero V
		return zero, false
	}
	d.setLink(ln, d.next(loc))
	d.used[t]--
	_, tag, val, size := d.rec(loc)
	v := d.value(tag, val)
	d.release(tag)
	d.kill(loc, size)
	return v, true
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

// entry returns the key and value of the record at loc.
func (d *Dict[V]) entry(loc uint32) (string, V) {
	k, tag, val, _ := d.rec(loc)
	return k, d.value(tag, val)
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
			for ; e != 0; e = d.next(e) {
				if !fn(d.entry(e)) {
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
		for ; e != 0; e = d.next(e) {
			fn(d.entry(e))
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
	for x := e; x != 0; x = d.next(x) {
		n++
	}
	for k := rand.IntN(n); k > 0; k-- {
		e = d.next(e)
	}
	key, val = d.entry(e)
	return key, val, true
}
