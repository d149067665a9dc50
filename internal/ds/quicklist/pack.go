package quicklist

import "encoding/binary"

// Packing interior chunks (Redis's list-compress-depth, with front
// coding instead of LZF).
//
// A long list is mostly read and written at its ends, so a chunk at
// least packDepth chunks away from both ends is kept packed: each entry
// as uvarint(bytes shared with the previous element's prefix),
// uvarint(length of the rest), the rest. Elements that share prefixes
// with their neighbours (ids, keys, timestamps, log lines: "element:N"
// takes 3 bytes instead of 16) shrink to a fraction; a chunk that would
// not shrink by a quarter stays as it is. A packed chunk is unpacked when
// it is read or changed (chunkAt); the two interior chunks unpacked last
// stay so (List.loose), and a third one unpacked packs the older one
// again, so walking a range unpacks each chunk once.
//
// CPU: a push or pop packs or unpacks nothing except when it starts or
// drops a chunk, and then at most one chunk packDepth away, whose
// distance from the end must change by two chunks (256 elements) before
// the next such step: pushing and popping around a chunk boundary never
// packs and unpacks the same chunk over and over. Reading element i of a
// packed chunk costs unpacking it once (about a microsecond for a 2 KiB
// chunk) and, when a third interior chunk was unpacked, packing one.

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
// and serves as a read-only unpacked copy of the block of packRestart
// entries read last, so a List costs no more bytes for it:
// l.sm.packed is then (ci+1)<<4 | block (0: none). Reading one element
// unpacks at most packRestart entries; reading on in either direction
// reads the copy until the next block. Views into the copy are valid
// until the next call on the list, as BytesAt's are.
func (l *List) readPacked(ci, k int) []byte {
	ch := l.dir[ci]
	blk := k / packRestart
	if key := (ci+1)<<4 | blk; l.sm.packed != key {
		l.sm.b = ch.unpackBlock(blk, l.sm.b[:0])
		l.sm.head, l.sm.ck, l.sm.co = 0, 0, 0
		l.sm.n = min(packRestart, ch.n-blk*packRestart)
		l.sm.packed = key
	}
	return l.sm.get(k % packRestart)
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
		l.sm.packed = 0 // the read copy may have been of this index's chunk
		l.big += ch.memory() - before
		for i, x := range l.loose {
			if x-1 == ci {
				l.loose[i] = 0
			}
		}
	}
}

// The packed form: the entries, each uvarint(bytes shared with the
// previous element's prefix), uvarint(length of the rest), the rest,
// where every packRestart-th entry shares nothing (a restart); then the
// offsets of the restarts after the first, 4 bytes each, little-endian.
const packRestart = 16

// restarts is the number of restart offsets stored after the entries.
func (ch *chunk) restarts() int { return (ch.n - 1) / packRestart }

// pack replaces the chunk's entries with their packed form if it is at
// most 3/4 of their size; it reports whether it did.
func (ch *chunk) pack() bool {
	live := len(ch.b) - ch.head
	size := 4 * ch.restarts()
	var prev []byte
	i := 0
	for off := ch.head; off < len(ch.b); i++ {
		s, start, n := ch.entryAt(off)
		v := ch.b[start : start+n]
		p := 0
		if i%packRestart != 0 {
			p = sharedPrefix(prev, v)
		}
		size += uvarintLen(p) + uvarintLen(n-p) + n - p
		prev = v
		off += s
	}
	if size > live-live/4 {
		return false
	}
	out := make([]byte, size)
	tab := out[size-4*ch.restarts():]
	w := 0
	prev = nil
	i = 0
	for off := ch.head; off < len(ch.b); i++ {
		s, start, n := ch.entryAt(off)
		v := ch.b[start : start+n]
		p := 0
		if i%packRestart != 0 {
			p = sharedPrefix(prev, v)
		} else if i > 0 {
			binary.LittleEndian.PutUint32(tab[4*(i/packRestart-1):], uint32(w))
		}
		w += binary.PutUvarint(out[w:], uint64(p))
		w += binary.PutUvarint(out[w:], uint64(n-p))
		w += copy(out[w:], v[p:])
		prev = v
		off += s
	}
	ch.b, ch.head, ch.ck, ch.co, ch.packed = out, 0, 0, 0, live
	return true
}

// unpack rebuilds the entries of a packed chunk, with no room around them.
func (ch *chunk) unpack() {
	b := ch.unpackRange(0, len(ch.b)-4*ch.restarts(), make([]byte, 0, ch.packed))
	ch.b, ch.head, ch.ck, ch.co, ch.packed = b, 0, 0, 0, 0
}

// unpackBlock appends the entries of restart block blk of the packed
// chunk to dst.
func (ch *chunk) unpackBlock(blk int, dst []byte) []byte {
	nr := ch.restarts()
	end := len(ch.b) - 4*nr
	from, to := 0, end
	if blk > 0 {
		from = int(binary.LittleEndian.Uint32(ch.b[end+4*(blk-1):]))
	}
	if blk < nr {
		to = int(binary.LittleEndian.Uint32(ch.b[end+4*blk:]))
	}
	return ch.unpackRange(from, to, dst)
}

// unpackRange appends to dst the entries packed in ch.b[from:to], which
// must start at a restart.
func (ch *chunk) unpackRange(from, to int, dst []byte) []byte {
	in := ch.b[:to]
	prevStart := 0
	for r := from; r < len(in); {
		p, k := binary.Uvarint(in[r:])
		r += k
		rest, k := binary.Uvarint(in[r:])
		r += k
		n := int(p) + int(rest)
		dst = binary.AppendUvarint(dst, uint64(n))
		lw := uvarintLen(n)
		start := len(dst)
		dst = append(dst, dst[prevStart:prevStart+int(p)]...) // the prefix shared with the previous element
		dst = append(dst, in[r:r+int(rest)]...)
		r += int(rest)
		for i := 0; i < lw; i++ {
			dst = append(dst, dst[start-1-i])
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
