package rdb

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/ordo-db/ordo/internal/ds/listpack"
)

// Listpacks (Redis 7's compact sequence), ziplists and zipmaps (the
// encodings of older RDB files) and intsets. The readers validate the
// whole structure (as Redis's deep sanitisation does) and return the
// elements; an error gives the offset inside the blob.

type blobError struct {
	off int
	msg string
}

func (e *blobError) Error() string { return fmt.Sprintf("%s (offset %d)", e.msg, e.off) }

func blobErr(off int, format string, args ...any) error {
	return &blobError{off, fmt.Sprintf(format, args...)}
}

// ---- listpack ----

const lpHeaderSize = listpack.HeaderSize

// buildListpack makes a listpack of elems.
func buildListpack(elems [][]byte) []byte {
	lp := make([]byte, lpHeaderSize, 64)
	for _, e := range elems {
		lp = listpack.AppendEntry(lp, e)
	}
	lp = append(lp, 0xFF)
	binary.LittleEndian.PutUint32(lp, uint32(len(lp)))
	n := len(elems)
	if n > 65535 {
		n = 65535
	}
	binary.LittleEndian.PutUint16(lp[4:], uint16(n))
	return lp
}

// readListpack validates lp and calls fn for each element (a string, or
// an integer as a string).
func readListpack(lp []byte, fn func(e []byte) error) (int, error) {
	if len(lp) < lpHeaderSize+1 {
		return 0, blobErr(0, "listpack too short (%d bytes)", len(lp))
	}
	if total := binary.LittleEndian.Uint32(lp); int64(total) != int64(len(lp)) {
		return 0, blobErr(0, "listpack header says %d bytes, has %d", total, len(lp))
	}
	want := int(binary.LittleEndian.Uint16(lp[4:]))
	if lp[len(lp)-1] != 0xFF {
		return 0, blobErr(len(lp)-1, "listpack does not end with 0xFF")
	}
	var num [20]byte
	count := 0
	p := lpHeaderSize
	end := len(lp) - 1
	for p < end {
		b := lp[p]
		var hdr, slen int
		var ival int64
		isInt := true
		need := func(n int) bool { return p+n <= end }
		switch {
		case b&0x80 == 0:
			hdr, ival = 1, int64(b&0x7f)
		case b&0xC0 == 0x80:
			isInt, hdr, slen = false, 1, int(b&0x3f)
		case b&0xE0 == 0xC0:
			if !need(2) {
				return 0, blobErr(p, "truncated listpack entry")
			}
			u := int64(b&0x1f)<<8 | int64(lp[p+1])
			if u >= 1<<12 {
				u -= 1 << 13
			}
			hdr, ival = 2, u
		case b&0xF0 == 0xE0:
			if !need(2) {
				return 0, blobErr(p, "truncated listpack entry")
			}
			isInt, hdr, slen = false, 2, int(b&0x0f)<<8|int(lp[p+1])
		case b == 0xF0:
			if !need(5) {
				return 0, blobErr(p, "truncated listpack entry")
			}
			n := binary.LittleEndian.Uint32(lp[p+1:])
			if int64(n) > int64(end-p) {
				return 0, blobErr(p, "listpack string length %d past the end", n)
			}
			isInt, hdr, slen = false, 5, int(n)
		case b == 0xF1:
			if !need(3) {
				return 0, blobErr(p, "truncated listpack entry")
			}
			hdr, ival = 3, int64(int16(binary.LittleEndian.Uint16(lp[p+1:])))
		case b == 0xF2:
			if !need(4) {
				return 0, blobErr(p, "truncated listpack entry")
			}
			u := uint32(lp[p+1]) | uint32(lp[p+2])<<8 | uint32(lp[p+3])<<16
			hdr, ival = 4, int64(int32(u<<8)>>8)
		case b == 0xF3:
			if !need(5) {
				return 0, blobErr(p, "truncated listpack entry")
			}
			hdr, ival = 5, int64(int32(binary.LittleEndian.Uint32(lp[p+1:])))
		case b == 0xF4:
			if !need(9) {
				return 0, blobErr(p, "truncated listpack entry")
			}
			hdr, ival = 9, int64(binary.LittleEndian.Uint64(lp[p+1:]))
		default:
			return 0, blobErr(p, "invalid listpack encoding byte 0x%02x", b)
		}
		l := hdr + slen
		bl := listpack.BacklenSize(l)
		if l+bl > end-p {
			return 0, blobErr(p, "listpack entry past the end")
		}
		var chk [5]byte
		if string(listpack.AppendBacklen(chk[:0], l)) != string(lp[p+l:p+l+bl]) {
			return 0, blobErr(p+l, "listpack entry back-length mismatch")
		}
		var e []byte
		if isInt {
			e = strconv.AppendInt(num[:0], ival, 10)
		} else {
			e = lp[p+hdr : p+l]
		}
		if err := fn(e); err != nil {
			return 0, err
		}
		count++
		p += l + bl
	}
	if want != 65535 && want != count {
		return 0, blobErr(4, "listpack header says %d elements, has %d", want, count)
	}
	return count, nil
}

// ---- ziplist (read only: RDB files before version 10) ----

func readZiplist(zl []byte, fn func(e []byte) error) (int, error) {
	const hdrSize = 10
	if len(zl) < hdrSize+1 {
		return 0, blobErr(0, "ziplist too short (%d bytes)", len(zl))
	}
	if total := binary.LittleEndian.Uint32(zl); int64(total) != int64(len(zl)) {
		return 0, blobErr(0, "ziplist header says %d bytes, has %d", total, len(zl))
	}
	tail := int64(binary.LittleEndian.Uint32(zl[4:]))
	want := int(binary.LittleEndian.Uint16(zl[8:]))
	end := len(zl) - 1
	if zl[end] != 0xFF {
		return 0, blobErr(end, "ziplist does not end with 0xFF")
	}
	var num [20]byte
	count, prev, last := 0, 0, int64(hdrSize)
	for p := hdrSize; p < end; {
		last = int64(p)
		start := p
		var prevlen int
		if zl[p] < 254 {
			prevlen = int(zl[p])
			p++
		} else if zl[p] == 254 {
			if p+5 > end {
				return 0, blobErr(p, "truncated ziplist entry")
			}
			prevlen = int(binary.LittleEndian.Uint32(zl[p+1:]))
			p += 5
		} else {
			return 0, blobErr(p, "invalid ziplist prevlen")
		}
		if prevlen != prev {
			return 0, blobErr(start, "ziplist prevlen %d, previous entry has %d bytes", prevlen, prev)
		}
		if p >= end {
			return 0, blobErr(p, "truncated ziplist entry")
		}
		b := zl[p]
		var e []byte
		intEnc := func(n int) ([]byte, bool) {
			if p+1+n > end {
				return nil, false
			}
			var v int64
			switch n {
			case 1:
				v = int64(int8(zl[p+1]))
			case 2:
				v = int64(int16(binary.LittleEndian.Uint16(zl[p+1:])))
			case 3:
				u := uint32(zl[p+1]) | uint32(zl[p+2])<<8 | uint32(zl[p+3])<<16
				v = int64(int32(u<<8) >> 8)
			case 4:
				v = int64(int32(binary.LittleEndian.Uint32(zl[p+1:])))
			case 8:
				v = int64(binary.LittleEndian.Uint64(zl[p+1:]))
			}
			p += 1 + n
			return strconv.AppendInt(num[:0], v, 10), true
		}
		ok := true
		switch {
		case b>>6 == 0 || b>>6 == 1 || b>>6 == 2:
			var n, h int
			switch b >> 6 {
			case 0:
				n, h = int(b&0x3f), 1
			case 1:
				if p+2 > end {
					return 0, blobErr(p, "truncated ziplist entry")
				}
				n, h = int(b&0x3f)<<8|int(zl[p+1]), 2
			default:
				if p+5 > end {
					return 0, blobErr(p, "truncated ziplist entry")
				}
				n64 := int64(binary.BigEndian.Uint32(zl[p+1:]))
				if n64 > int64(end-p) {
					return 0, blobErr(p, "ziplist string length past the end")
				}
				n, h = int(n64), 5
			}
			if p+h+n > end {
				return 0, blobErr(p, "ziplist string past the end")
			}
			e = zl[p+h : p+h+n]
			p += h + n
		case b == 0xC0:
			e, ok = intEnc(2)
		case b == 0xD0:
			e, ok = intEnc(4)
		case b == 0xE0:
			e, ok = intEnc(8)
		case b == 0xF0:
			e, ok = intEnc(3)
		case b == 0xFE:
			e, ok = intEnc(1)
		case b >= 0xF1 && b <= 0xFD:
			e = strconv.AppendInt(num[:0], int64(b&0x0f)-1, 10)
			p++
		default:
			return 0, blobErr(p, "invalid ziplist encoding byte 0x%02x", b)
		}
		if !ok {
			return 0, blobErr(p, "truncated ziplist entry")
		}
		if err := fn(e); err != nil {
			return 0, err
		}
		prev = p - start
		count++
	}
	if count > 0 && tail != last || count == 0 && tail != hdrSize {
		return 0, blobErr(4, "ziplist tail offset %d, last entry at %d", tail, last)
	}
	if want != 65535 && want != count {
		return 0, blobErr(8, "ziplist header says %d elements, has %d", want, count)
	}
	return count, nil
}

// ---- zipmap (read only: hashes of RDB files before version 4) ----

func readZipmap(zm []byte, fn func(e []byte) error) (int, error) {
	if len(zm) < 2 {
		return 0, blobErr(0, "zipmap too short")
	}
	p, count := 1, 0
	readLen := func() (int, bool) {
		if p >= len(zm) {
			return 0, false
		}
		b := zm[p]
		if b < 254 {
			p++
			return int(b), true
		}
		if b == 254 && p+5 <= len(zm) {
			n := binary.LittleEndian.Uint32(zm[p+1:])
			p += 5
			if int64(n) > int64(len(zm)) {
				return 0, false
			}
			return int(n), true
		}
		return 0, false
	}
	for {
		if p >= len(zm) {
			return 0, blobErr(p, "zipmap without end marker")
		}
		if zm[p] == 0xFF {
			if p != len(zm)-1 {
				return 0, blobErr(p, "data after the zipmap end marker")
			}
			break
		}
		kl, ok := readLen()
		if !ok || p+kl > len(zm) {
			return 0, blobErr(p, "invalid zipmap key")
		}
		k := zm[p : p+kl]
		p += kl
		vl, ok := readLen()
		if !ok || p >= len(zm) {
			return 0, blobErr(p, "invalid zipmap value")
		}
		free := int(zm[p])
		p++
		if p+vl+free > len(zm) {
			return 0, blobErr(p, "zipmap value past the end")
		}
		v := zm[p : p+vl]
		p += vl + free
		if err := fn(k); err != nil {
			return 0, err
		}
		if err := fn(v); err != nil {
			return 0, err
		}
		count++
	}
	if zm[0] < 254 && int(zm[0]) != count {
		return 0, blobErr(0, "zipmap header says %d pairs, has %d", zm[0], count)
	}
	return count, nil
}

// ---- intset ----

// readIntset validates an intset (sorted, unique, of a valid width) and
// returns its integers.
func readIntset(is []byte) ([]int64, error) {
	if len(is) < 8 {
		return nil, blobErr(0, "intset too short")
	}
	enc := binary.LittleEndian.Uint32(is)
	n := int64(binary.LittleEndian.Uint32(is[4:]))
	if enc != 2 && enc != 4 && enc != 8 {
		return nil, blobErr(0, "invalid intset encoding %d", enc)
	}
	if 8+n*int64(enc) != int64(len(is)) {
		return nil, blobErr(4, "intset of %d %d-byte integers has %d bytes", n, enc, len(is))
	}
	out := make([]int64, 0, n)
	for i := int64(0); i < n; i++ {
		p := 8 + i*int64(enc)
		var v int64
		switch enc {
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(is[p:])))
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(is[p:])))
		default:
			v = int64(binary.LittleEndian.Uint64(is[p:]))
		}
		if i > 0 && v <= out[i-1] {
			return nil, blobErr(int(p), "intset not sorted or with duplicates")
		}
		out = append(out, v)
	}
	return out, nil
}

// buildIntset makes the intset of sorted unique integers, in the
// narrowest encoding that holds them all.
func buildIntset(ints []int64) []byte {
	enc := 2
	for _, v := range ints {
		if v < -32768 || v > 32767 {
			enc = 4
		}
		if v < -2147483648 || v > 2147483647 {
			enc = 8
			break
		}
	}
	b := make([]byte, 8, 8+enc*len(ints))
	binary.LittleEndian.PutUint32(b, uint32(enc))
	binary.LittleEndian.PutUint32(b[4:], uint32(len(ints)))
	for _, v := range ints {
		switch enc {
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}
