package engine

import (
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"strings"
)

// Dict is Redis's dict in Go: a chained hash table with power-of-two
// sizes, incremental rehashing between two tables, and the reverse-binary
// cursor scan. We do not use a Go map because a map cannot be scanned
// with a cursor: SCAN's guarantee (every element present for the whole
// scan is returned at least once, across growth and shrinking) needs
// buckets addressed by hash bits, which is exactly this design.
//
// Dict is not safe for concurrent use; the engine lock protects it.
type Dict[V any] struct {
	tables  [2][]*dictEntry[V]
	used    [2]int
	rehash  int // next bucket of tables[0] to move, or -1
	pausing int // >0 while a caller iterates and must not see rehash steps
}

type dictEntry[V any] struct {
	key  string
	val  V
	next *dictEntry[V]
}

var dictSeed = maphash.MakeSeed()

func dictHash(key string) uint64 { return maphash.String(dictSeed, key) }

const dictInitialSize = 4

// NewDict returns an empty Dict.
func NewDict[V any]() *Dict[V] { return &Dict[V]{rehash: -1} }

// Len is the number of entries.
func (d *Dict[V]) Len() int { return d.used[0] + d.used[1] }

// Buckets reports the total number of buckets (for MEMORY USAGE and DEBUG).
func (d *Dict[V]) Buckets() int { return len(d.tables[0]) + len(d.tables[1]) }

func (d *Dict[V]) isRehashing() bool { return d.rehash >= 0 }

// rehashStep moves up to n buckets from table 0 to table 1.
func (d *Dict[V]) rehashStep(n int) {
	if !d.isRehashing() || d.pausing > 0 {
		return
	}
	empty := n * 10
	for ; n > 0 && d.used[0] > 0; n-- {
		for d.tables[0][d.rehash] == nil {
			d.rehash++
			if empty--; empty == 0 {
				return
			}
		}
		e := d.tables[0][d.rehash]
		mask := uint64(len(d.tables[1]) - 1)
		for e != nil {
			next := e.next
			i := dictHash(e.key) & mask
			e.next = d.tables[1][i]
			d.tables[1][i] = e
			d.used[0]--
			d.used[1]++
			e = next
		}
		d.tables[0][d.rehash] = nil
		d.rehash++
	}
	if d.used[0] == 0 {
		d.tables[0], d.tables[1] = d.tables[1], nil
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
	if d.tables[0] == nil {
		d.tables[0] = make([]*dictEntry[V], size)
		return
	}
	d.tables[1] = make([]*dictEntry[V], size)
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

// ShrinkIfNeeded shrinks the table when less than 1/8 of it is used.
func (d *Dict[V]) ShrinkIfNeeded() {
	if d.isRehashing() || d.pausing > 0 {
		return
	}
	size := len(d.tables[0])
	if size > dictInitialSize && d.used[0]*8 < size {
		d.resize(d.used[0])
	}
}

func (d *Dict[V]) find(key string) *dictEntry[V] {
	if d.Len() == 0 {
		return nil
	}
	d.rehashStep(1)
	h := dictHash(key)
	for t := 0; t < 2; t++ {
		tb := d.tables[t]
		if len(tb) == 0 {
			continue
		}
		for e := tb[h&uint64(len(tb)-1)]; e != nil; e = e.next {
			if e.key == key {
				return e
			}
		}
		if !d.isRehashing() {
			break
		}
	}
	return nil
}

// Get returns the value at key.
func (d *Dict[V]) Get(key string) (V, bool) {
	if e := d.find(key); e != nil {
		return e.val, true
	}
	var zero V
	return zero, false
}

// Ref returns a pointer to the value at key, valid until the next change.
func (d *Dict[V]) Ref(key string) *V {
	if e := d.find(key); e != nil {
		return &e.val
	}
	return nil
}

// Set stores val at key and reports whether the key is new. A new key is
// copied, so callers may pass a string that aliases a request buffer.
func (d *Dict[V]) Set(key string, val V) bool {
	if e := d.find(key); e != nil {
		e.val = val
		return false
	}
	d.expandIfNeeded()
	t := 0
	if d.isRehashing() {
		t = 1
	}
	tb := d.tables[t]
	i := dictHash(key) & uint64(len(tb)-1)
	tb[i] = &dictEntry[V]{key: cloneString(key), val: val, next: tb[i]}
	d.used[t]++
	return true
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
		var prev *dictEntry[V]
		for e := tb[i]; e != nil; prev, e = e, e.next {
			if e.key == key {
				if prev == nil {
					tb[i] = e.next
				} else {
					prev.next = e.next
				}
				d.used[t]--
				return e.val, true
			}
		}
		if !d.isRehashing() {
			break
		}
	}
	return zero, false
}

// Clear removes everything.
func (d *Dict[V]) Clear() { *d = Dict[V]{rehash: -1} }

// Each calls fn for every entry until fn returns false. fn must not
// change the Dict.
func (d *Dict[V]) Each(fn func(key string, val V) bool) {
	for t := 0; t < 2; t++ {
		for _, e := range d.tables[t] {
			for ; e != nil; e = e.next {
				if !fn(e.key, e.val) {
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
	emit := func(e *dictEntry[V]) {
		for ; e != nil; e = e.next {
			fn(e.key, e.val)
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
	var e *dictEntry[V]
	for e == nil {
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
	for x := e; x != nil; x = x.next {
		n++
	}
	for k := rand.IntN(n); k > 0; k-- {
		e = e.next
	}
	return e.key, e.val, true
}

func cloneString(s string) string { return strings.Clone(s) }
