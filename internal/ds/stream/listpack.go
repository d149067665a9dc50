package stream

import (
	"encoding/binary"
	"github.com/ordo-db/ordo/internal/ds/listpack"
	"strconv"
)

// Listpack primitives: Redis's listpack format (listpack.c), byte for
// byte, so that a node can be written to an RDB file or DUMP payload as
// it is and a node read from one needs no conversion.

const (
	lpHeaderSize = listpack.HeaderSize
	lpEOF        = listpack.EOF
)

func lpNew(capacity int) []byte {
	lp := make([]byte, lpHeaderSize+1, max(capacity, lpHeaderSize+1))
	binary.LittleEndian.PutUint32(lp, lpHeaderSize+1)
	lp[lpHeaderSize] = lpEOF
	return lp
}

// lpInit writes an empty listpack into buf's space (buf has length 0 and
// room for the header and EOF).
func lpInit(buf []byte) []byte {
	lp := buf[:lpHeaderSize+1]
	binary.LittleEndian.PutUint32(lp, lpHeaderSize+1)
	binary.LittleEndian.PutUint16(lp[4:], 0)
	lp[lpHeaderSize] = lpEOF
	return lp
}

func lpSetHeader(lp []byte, countDelta int) {
	binary.LittleEndian.PutUint32(lp, uint32(len(lp)))
	n := int(binary.LittleEndian.Uint16(lp[4:]))
	if n != 65535 {
		n += countDelta
		if n >= 65535 {
			n = 65535
		}
		binary.LittleEndian.PutUint16(lp[4:], uint16(n))
	}
}

// lpAppendRaw appends an encoded element (enc+data) to lp.
func lpAppendEncoded(lp []byte, enc []byte) []byte {
	lp = lp[:len(lp)-1] // drop EOF
	lp = append(lp, enc...)
	lp = listpack.AppendBacklen(lp, len(enc))
	lp = append(lp, lpEOF)
	lpSetHeader(lp, 1)
	return lp
}

// appender builds encoded elements in a scratch buffer.
type appender struct{ scratch []byte }

func (a *appender) int(lp []byte, v int64) []byte {
	a.scratch = listpack.AppendInt(a.scratch[:0], v)
	return lpAppendEncoded(lp, a.scratch)
}

func (a *appender) str(lp []byte, s []byte) []byte {
	a.scratch = listpack.AppendString(a.scratch[:0], s)
	return lpAppendEncoded(lp, a.scratch)
}

// lpElem decodes the element at off: either an integer (isInt) or a
// string view into lp. It returns the offset of the next element.
// The listpack is trusted (built here or validated on load).
func lpElem(lp []byte, off int) (s []byte, n int64, isInt bool, next int) {
	b := lp[off]
	var size int
	switch {
	case b&0x80 == 0:
		n, isInt, size = int64(b&0x7f), true, 1
	case b&0xC0 == 0x80:
		l := int(b & 0x3f)
		s, size = lp[off+1:off+1+l], 1+l
	case b&0xE0 == 0xC0:
		u := int64(b&0x1f)<<8 | int64(lp[off+1])
		if u >= 1<<12 {
			u -= 1 << 13
		}
		n, isInt, size = u, true, 2
	case b&0xF0 == 0xE0:
		l := int(b&0x0f)<<8 | int(lp[off+1])
		s, size = lp[off+2:off+2+l], 2+l
	case b == 0xF1:
		n, isInt, size = int64(int16(binary.LittleEndian.Uint16(lp[off+1:]))), true, 3
	case b == 0xF2:
		u := uint32(lp[off+1]) | uint32(lp[off+2])<<8 | uint32(lp[off+3])<<16
		n, isInt, size = int64(int32(u<<8)>>8), true, 4
	case b == 0xF3:
		n, isInt, size = int64(int32(binary.LittleEndian.Uint32(lp[off+1:]))), true, 5
	case b == 0xF4:
		n, isInt, size = int64(binary.LittleEndian.Uint64(lp[off+1:])), true, 9
	case b == 0xF0:
		l := int(binary.LittleEndian.Uint32(lp[off+1:]))
		s, size = lp[off+5:off+5+l], 5+l
	default:
		panic("stream: corrupt listpack")
	}
	return s, n, isInt, off + size + listpack.BacklenSize(size)
}

// lpInt reads the integer element at off.
func lpInt(lp []byte, off int) (int64, int) {
	s, n, isInt, next := lpElem(lp, off)
	if !isInt {
		n, _ = strconv.ParseInt(string(s), 10, 64)
	}
	return n, next
}

// lpReplaceInt replaces the integer element at off with v.
func lpReplaceInt(lp []byte, off int, v int64) []byte {
	_, _, _, next := lpElem(lp, off)
	var buf [16]byte
	enc := listpack.AppendInt(buf[:0], v)
	enc = listpack.AppendBacklen(enc, len(enc))
	if len(enc) == next-off {
		copy(lp[off:], enc)
		return lp
	}
	out := make([]byte, 0, len(lp)+len(enc)-(next-off))
	out = append(out, lp[:off]...)
	out = append(out, enc...)
	out = append(out, lp[next:]...)
	lpSetHeader(out, 0)
	return out
}

// lpValidate checks that lp is a well-formed listpack of n elements at
// most and returns its element count.
func lpValidate(lp []byte) (int, bool) {
	if len(lp) < lpHeaderSize+1 || int(binary.LittleEndian.Uint32(lp)) != len(lp) || lp[len(lp)-1] != lpEOF {
		return 0, false
	}
	off, n := lpHeaderSize, 0
	for off < len(lp)-1 {
		size, ok := listpack.EncodingSize(lp, off)
		if !ok {
			return 0, false
		}
		if size < 0 || off+size+listpack.BacklenSize(size) > len(lp)-1 {
			return 0, false
		}
		off += size + listpack.BacklenSize(size)
		n++
	}
	cnt := int(binary.LittleEndian.Uint16(lp[4:]))
	if cnt != 65535 && cnt != n {
		return 0, false
	}
	return n, true
}

// lpPrev returns the offset of the element before the one at off (off
// may be the EOF byte's offset), reading the previous element's backlen
// backwards as lpDecodeBacklen does.
func lpPrev(lp []byte, off int) int {
	p := off - 1
	var v, shift int
	for {
		b := lp[p]
		v |= int(b&127) << shift
		if b&128 == 0 {
			break
		}
		shift += 7
		p--
	}
	return off - listpack.BacklenSize(v) - v
}
