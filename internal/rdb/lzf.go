package rdb

// LZF, the compression of Redis's RDB strings (liblzf 3.6 as configured
// in Redis 7: 16-bit hash table, VERY_FAST; the table zero-initialised,
// where Redis leaves it uninitialised: Redis's own output can then vary
// in rare cases, ours is deterministic). The
// compressor emits the same bytes as Redis's lzf_compress, so compressed
// strings in DUMP payloads match redis-server's byte for byte.
//
// Format: 000LLLLL followed by L+1 literal bytes; LLLooooo oooooooo, a
// back reference of L+2 bytes at distance o+1; 111ooooo LLLLLLLL
// oooooooo, a back reference of L+9 bytes.

const (
	lzfHLog   = 16
	lzfHSize  = 1 << lzfHLog
	lzfMaxLit = 1 << 5
	lzfMaxOff = 1 << 13
	lzfMaxRef = (1 << 8) + (1 << 3)
)

func lzfIdx(h uint32) uint32 {
	return ((h >> (3*8 - lzfHLog)) - h*5) & (lzfHSize - 1)
}

// lzfTable is the compressor's 2^16-slot hash table, stored sparsely: an
// open-addressing table sized for the input (a small string costs a small
// table, not 256 kB), reading as a zeroed table where nothing was stored.
type lzfTable struct {
	e    []uint64 // slot+1 << 32 | value; 0 is empty
	mask uint32
}

func newLZFTable(n int) lzfTable {
	size := 16
	for size < 2*n && size < 2*lzfHSize {
		size <<= 1
	}
	return lzfTable{e: make([]uint64, size), mask: uint32(size - 1)}
}

// swap stores v in slot and returns what the slot held (0 if nothing).
// At most min(n, 2^16) slots are used, so the table is at most half full.
func (t *lzfTable) swap(slot uint32, v int32) int32 {
	k := uint64(slot+1) << 32
	for i := slot & t.mask; ; i = (i + 1) & t.mask {
		e := t.e[i]
		if e == 0 || e&^0xffffffff == k {
			t.e[i] = k | uint64(uint32(v))
			return int32(uint32(e))
		}
	}
}

// lzfCompress compresses in into at most maxOut bytes. It returns nil
// when the result would not fit (as lzf_compress returns 0).
func lzfCompress(in []byte, maxOut int) []byte {
	inLen := len(in)
	if inLen == 0 || maxOut <= 0 {
		return nil
	}
	// htab holds positions+1 (0: empty, as Redis's zeroed table whose
	// entries point at the start of the input, which never matches).
	htab := newLZFTable(inLen)
	out := make([]byte, maxOut)
	op := 0
	ip := 0
	lit := 0
	op++ // start run
	var hval uint32
	if inLen >= 2 {
		hval = uint32(in[0])<<8 | uint32(in[1])
	}
	for ip < inLen-2 {
		hval = hval<<8 | uint32(in[ip+2])
		slot := lzfIdx(hval)
		ref := int(htab.swap(slot, int32(ip+1))) - 1
		off := ip - ref - 1
		if ref > 0 && off < lzfMaxOff &&
			in[ref+2] == in[ip+2] && in[ref] == in[ip] && in[ref+1] == in[ip+1] {
			l := 2
			maxlen := inLen - ip - l
			if maxlen > lzfMaxRef {
				maxlen = lzfMaxRef
			}
			undo := 0
			if lit == 0 {
				undo = 1
			}
			if op-undo+3+1 >= maxOut {
				return nil
			}
			out[op-lit-1] = byte(lit - 1) // stop run
			op -= undo                    // undo run if length is zero
			// As lzf_compress: 16 unchecked steps when maxlen > 16 (which
			// may run up to 2 bytes past maxlen), then checked ones.
			mismatch := false
			if maxlen > 16 {
				for k := 0; k < 16; k++ {
					l++
					if in[ref+l] != in[ip+l] {
						mismatch = true
						break
					}
				}
			}
			if !mismatch {
				for {
					l++
					if l >= maxlen || in[ref+l] != in[ip+l] {
						break
					}
				}
			}
			l -= 2 // now #octets - 1
			ip++
			if l < 7 {
				out[op] = byte(off>>8) + byte(l<<5)
				op++
			} else {
				out[op] = byte(off>>8) + 7<<5
				out[op+1] = byte(l - 7)
				op += 2
			}
			out[op] = byte(off)
			op++
			lit = 0
			op++ // start run
			ip += l + 1
			if ip >= inLen-2 {
				break
			}
			ip -= 2
			hval = uint32(in[ip])<<8 | uint32(in[ip+1])
			hval = hval<<8 | uint32(in[ip+2])
			htab.swap(lzfIdx(hval), int32(ip+1))
			ip++
			hval = hval<<8 | uint32(in[ip+2])
			htab.swap(lzfIdx(hval), int32(ip+1))
			ip++
		} else {
			if op >= maxOut {
				return nil
			}
			lit++
			out[op] = in[ip]
			op++
			ip++
			if lit == lzfMaxLit {
				out[op-lit-1] = byte(lit - 1)
				lit = 0
				op++
			}
		}
	}
	if op+3 > maxOut {
		return nil
	}
	for ip < inLen {
		if op >= maxOut {
			return nil
		}
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == lzfMaxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			if op >= maxOut {
				return nil
			}
			op++
		}
	}
	out[op-lit-1] = byte(lit - 1)
	if lit == 0 {
		op--
	}
	return out[:op]
}

// lzfDecompress expands in into exactly n bytes; ok is false if the data
// is corrupt or does not expand to n bytes.
func lzfDecompress(in []byte, n int) ([]byte, bool) {
	out := make([]byte, 0, n)
	ip := 0
	for ip < len(in) {
		ctrl := int(in[ip])
		ip++
		if ctrl < 1<<5 { // literal run of ctrl+1 bytes
			ctrl++
			if len(out)+ctrl > n || ip+ctrl > len(in) {
				return nil, false
			}
			out = append(out, in[ip:ip+ctrl]...)
			ip += ctrl
			continue
		}
		l := ctrl >> 5
		if l == 7 {
			if ip >= len(in) {
				return nil, false
			}
			l += int(in[ip])
			ip++
		}
		if ip >= len(in) {
			return nil, false
		}
		ref := len(out) - ((ctrl & 0x1f) << 8) - 1 - int(in[ip])
		ip++
		l += 2
		if ref < 0 || len(out)+l > n {
			return nil, false
		}
		for i := 0; i < l; i++ { // byte by byte: the copy may overlap
			out = append(out, out[ref+i])
		}
	}
	if len(out) != n {
		return nil, false
	}
	return out, true
}
