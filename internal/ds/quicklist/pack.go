package quicklist

import "encoding/binary"

// Packing interior chunks (Redis's list-compress-depth, with front
// coding instead of LZF).
//
// A long list is mostly read and written at its ends, so a chunk at
// least packDepth chunks away from both ends is kept packed: each entry
// as the bytes it shares with the previous element's prefix and the rest
// (the format is below pack's comment). Elements that share prefixes
// with their neighbours (ids, keys, timestamps, log lines: "element:N"
// takes 2 bytes instead of 16) shrink to a fraction; a chunk that would
// not shrink by a quarter stays as it is. Reads decode a packed chunk in
// place (readPacked). A packed chunk is unpacked when it is changed or
// an end reaches it (chunkAt); the two interior chunks unpacked last
// stay so (List.loose), and a third one unpacked packs the older one
// again, so changing a range unpacks each chunk once.
//
// CPU: a push or pop packs or unpacks nothing except when it starts or
// drops a chunk, and then at most one chunk packDepth away, whose
// distance from the end must change by two chunks (512 elements) before
// the next such step: pushing and popping around a chunk boundary never
// packs and unpacks the same chunk over and over. Reading element i of a
// packed chunk decodes at most packRestart entries of it; changing one
// costs unpacking the chunk once (a few µs for 4 KiB) and, when a third
// interior chunk was unpacked, packing one.
//
// Cost against the previous format (two uvarints per entry, a restart
// every 16 entries with 4-byte offsets, a read unpacking the whole block
// of 16 into a copy), in instructions per operation under
// valgrind --tool=cachegrind, 10,000 "element:N": reading one element
// at random 3,800 -> 3,000; 10 consecutive from a random start 7,550 ->
// 4,700; a push at the front and a pop at the back of "xxx"
// (redis-benchmark's value) 1,440 -> 1,380. A restart every 32 entries
// instead of 64 reads one element in 1,700 and 10 in 3,400, for 0.25
// bytes more per element.

// packDepth is the distance in chunks from the nearer end at which a
// chunk is packed (the end chunks are at distance 0). Chunks at distance
// 1 or 2 are left as they are: packing starts at 3 and unpacking happens
// only when a chunk is used, which for pushes and pops is at distance 0.
const packDepth = 3

// chunkAt returns chunk dir[ci], unpacked.
func (l *List) chunkAt(ci int) *chunk {
	ch := l.dir[ci]
	if ch.packed == 0 {
		return ch
	}
	before := ch.memory()
	ch.unpack()
	l.big += ch.memory() - before
	if old := l.loose[1]; old != 0 && old-1 != ci {
		l.loose[1] = 0
		l.packAt(old - 1)
	}
	if l.loose[0]-1 != ci {
		l.loose[1] = l.loose[0]
	}
	l.loose[0] = ci + 1
	return ch
}

// readPacked returns element k of the packed chunk dir[ci] without
// unpacking the chunk. In big mode the small-mode chunk l.sm is unused,
// and serves as a read cursor, so a List costs no more bytes for it:
// l.sm.b holds the bytes of element l.sm.ck of chunk l.sm.packed-1 (0:
// none), and l.sm.co is the offset in the packed chunk of the entry after
// it. Reading element k decodes from its block's restart, at most
// packRestart-1 entries after it, each only its header and the bytes it
// adds; reading on forwards decodes one entry per element. Views into the
// cursor are valid until the next call on the list, as BytesAt's are.
func (l *List) readPacked(ci, k int) []byte {
	ch, cur := l.dir[ci], &l.sm
	if cur.packed != ci+1 || k < cur.ck || k/packRestart != cur.ck/packRestart {
		blk := k / packRestart
		off := 0
		if blk > 0 {
			width := tabWidth(len(ch.b))
			off = ch.restartAt(len(ch.b)-width*ch.restarts(), width, blk-1)
		}
		x, w := binary.Uvarint(ch.b[off:])
		off += w
		cur.b = append(cur.b[:0], ch.b[off:off+int(x)]...)
		cur.ck, cur.co, cur.packed = blk*packRestart, off+int(x), ci+1
	}
	for cur.ck < k { // within k's block: no restart on the way
		p, r, w := readPackHeader(ch.b[cur.co:])
		off := cur.co + w
		cur.b = append(cur.b[:p], ch.b[off:off+r]...)
		cur.ck, cur.co = cur.ck+1, off+r
	}
	return cur.b[:len(cur.b):len(cur.b)]
}

// packAt packs chunk dir[ci] if it is at least packDepth chunks from both
// ends and worth packing.
func (l *List) packAt(ci int) {
	if ci-l.lo < packDepth || l.hi-1-ci < packDepth {
		return
	}
	ch := l.dir[ci]
	if ch == nil || ch.packed > 0 || ch.n == 0 {
		return
	}
	before := ch.memory()
	if ch.pack() {
		l.sm.packed = 0 // the read cursor may have been on this index's chunk
		l.big += ch.memory() - before
		for i, x := range l.loose {
			if x-1 == ci {
				l.loose[i] = 0
			}
		}
	}
}

// The packed form: the entries, then the offsets of the restarts after
// the first (tabWidth bytes each, little-endian). Every packRestart-th
// entry is a restart, sharing nothing with the element before it:
// uvarint(length), the bytes. Any other entry shares p bytes with the
// previous element's prefix and adds the r bytes of the rest after its
// header (putPackHeader):
//
//   - p < 32 and r < 4 (the common case: keys, ids, counters that
//     differ from their neighbour in the last few bytes): one byte,
//     0x80 | r<<5 | p;
//   - otherwise: one byte min(r, 127) (then uvarint(r-127) if r >= 127)
//     and uvarint(p).
//
// "element:N" pushed in order takes 2 bytes per entry (a header and one
// digit), about 2.3 with the restarts and their offsets.
const packRestart = 64

// restarts is the number of restart offsets stored after the entries.
func (ch *chunk) restarts() int { return (ch.n - 1) / packRestart }

// tabWidth is the width of a restart offset in a packed chunk of size
// bytes: 2 below 64 KiB, where every offset fits, else 4. pack chooses
// the width from the entries' size so that this rule reads it back.
func tabWidth(size int) int {
	if size < 1<<16 {
		return 2
	}
	return 4
}

// packHeaderLen is the size of the header of a non-restart entry.
func packHeaderLen(p, r int) int {
	if p < 32 && r < 4 {
		return 1
	}
	if r < 127 {
		return 1 + uvarintLen(p)
	}
	return 1 + uvarintLen(r-127) + uvarintLen(p)
}

// putPackHeader writes the header of a non-restart entry and returns its size.
func putPackHeader(b []byte, p, r int) int {
	if p < 32 && r < 4 {
		b[0] = byte(0x80 | r<<5 | p)
		return 1
	}
	w := 1
	if r < 127 {
		b[0] = byte(r)
	} else {
		b[0] = 127
		w += binary.PutUvarint(b[1:], uint64(r-127))
	}
	return w + binary.PutUvarint(b[w:], uint64(p))
}

// readPackHeader decodes the header at b[0:] of a non-restart entry.
func readPackHeader(b []byte) (p, r, w int) {
	h := b[0]
	if h >= 0x80 {
		return int(h & 31), int(h>>5) & 3, 1
	}
	r, w = int(h), 1
	if h == 127 {
		x, k := binary.Uvarint(b[1:])
		r += int(x)
		w += k
	}
	x, k := binary.Uvarint(b[w:])
	return int(x), r, w + k
}

// pack replaces the chunk's entries with their packed form if it is at
// most 3/4 of their size; it reports whether it did.
func (ch *chunk) pack() bool {
	live := len(ch.b) - ch.head
	nr := ch.restarts()
	size := 0
	var prev []byte
	i := 0
	for off := ch.head; off < len(ch.b); i++ {
		s, start, n := ch.entryAt(off)
		v := ch.b[start : start+n]
		if i%packRestart == 0 {
			size += uvarintLen(n) + n
		} else {
			p := sharedPrefix(prev, v)
			size += packHeaderLen(p, n-p) + n - p
		}
		prev = v
		off += s
	}
	width := tabWidth(size + 2*nr)
	size += width * nr
	if size > live-live/4 {
		return false
	}
	out := make([]byte, size)
	tab := out[size-width*nr:]
	w := 0
	prev = nil
	i = 0
	for off := ch.head; off < len(ch.b); i++ {
		s, start, n := ch.entryAt(off)
		v := ch.b[start : start+n]
		if i%packRestart == 0 {
			if i > 0 {
				putOffset(tab, width, i/packRestart-1, w)
			}
			w += binary.PutUvarint(out[w:], uint64(n))
			w += copy(out[w:], v)
		} else {
			p := sharedPrefix(prev, v)
			w += putPackHeader(out[w:], p, n-p)
			w += copy(out[w:], v[p:])
		}
		prev = v
		off += s
	}
	ch.b, ch.head, ch.ck, ch.co, ch.packed = out, 0, 0, 0, live
	return true
}

func putOffset(tab []byte, width, j, off int) {
	if width == 2 {
		binary.LittleEndian.PutUint16(tab[2*j:], uint16(off))
	} else {
		binary.LittleEndian.PutUint32(tab[4*j:], uint32(off))
	}
}

// restartAt is the offset of restart j+1 (the first is at 0) of a packed chunk.
func (ch *chunk) restartAt(end, width, j int) int {
	if width == 2 {
		return int(binary.LittleEndian.Uint16(ch.b[end+2*j:]))
	}
	return int(binary.LittleEndian.Uint32(ch.b[end+4*j:]))
}

// unpack rebuilds the entries of a packed chunk, with no room around them.
func (ch *chunk) unpack() {
	end := len(ch.b) - tabWidth(len(ch.b))*ch.restarts()
	b := ch.unpackRange(0, end, make([]byte, 0, ch.packed))
	ch.b, ch.head, ch.ck, ch.co, ch.packed = b, 0, 0, 0, 0
}

// unpackRange appends to dst the entries packed in ch.b[from:to], which
// must start at a restart.
func (ch *chunk) unpackRange(from, to int, dst []byte) []byte {
	in := ch.b[:to]
	prevStart := 0
	for r, i := from, 0; r < len(in); i++ {
		var p, rest int
		if i%packRestart == 0 {
			x, k := binary.Uvarint(in[r:])
			rest, r = int(x), r+k
		} else {
			var k int
			p, rest, k = readPackHeader(in[r:])
			r += k
		}
		n := p + rest
		dst = binary.AppendUvarint(dst, uint64(n))
		lw := uvarintLen(n)
		start := len(dst)
		dst = append(dst, dst[prevStart:prevStart+p]...) // the prefix shared with the previous element
		dst = append(dst, in[r:r+rest]...)
		r += rest
		for j := 0; j < lw; j++ {
			dst = append(dst, dst[start-1-j])
		}
		prevStart = start
	}
	return dst
}

// sharedPrefix is the length of the common prefix of a and b.
func sharedPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[i:]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
