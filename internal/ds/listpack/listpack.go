// Package listpack is the element encoding of Redis's listpack format
// (listpack.c), byte for byte: what both the stream nodes (internal/ds/stream)
// and the RDB/DUMP writer (internal/rdb) append. An element is its
// encoding (a small or large integer, or a string with a 6-, 12- or
// 32-bit length) followed by its "backlen", the encoding's size written
// backwards so the list can be walked from its end. Reading and validating
// stay with each user: a stream node trusts what it built or validated on
// load, the RDB reader reports damage with its offset.
//
// The package has no state.
package listpack

import "encoding/binary"

const (
	// HeaderSize is the total-bytes (uint32) and element-count (uint16) header.
	HeaderSize = 6
	// EOF ends every listpack.
	EOF = 0xFF
)

// BacklenSize is the size of the backlen of an element whose encoding
// takes l bytes.
func BacklenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// AppendBacklen appends the backlen of an encoding of l bytes.
func AppendBacklen(b []byte, l int) []byte {
	switch BacklenSize(l) {
	case 1:
		return append(b, byte(l))
	case 2:
		return append(b, byte(l>>7), byte(l&127)|128)
	case 3:
		return append(b, byte(l>>14), byte((l>>7)&127)|128, byte(l&127)|128)
	case 4:
		return append(b, byte(l>>21), byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
	}
	return append(b, byte(l>>28), byte((l>>21)&127)|128, byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
}

// AppendInt appends the encoding of v (without backlen), in the smallest
// integer form.
func AppendInt(b []byte, v int64) []byte {
	switch {
	case v >= 0 && v <= 127:
		return append(b, byte(v))
	case v >= -4096 && v <= 4095:
		u := uint64(v) & (1<<13 - 1)
		return append(b, byte(u>>8)|0xC0, byte(u))
	case v >= -32768 && v <= 32767:
		return append(b, 0xF1, byte(v), byte(v>>8))
	case v >= -8388608 && v <= 8388607:
		return append(b, 0xF2, byte(v), byte(v>>8), byte(v>>16))
	case v >= -2147483648 && v <= 2147483647:
		return append(b, 0xF3, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	b = append(b, 0xF4)
	return binary.LittleEndian.AppendUint64(b, uint64(v))
}

// AppendString appends the encoding of s (without backlen), as an
// integer when s is one (ParseInt), as lpAppend does.
func AppendString(b []byte, s []byte) []byte {
	if v, ok := ParseInt(s); ok {
		return AppendInt(b, v)
	}
	switch l := len(s); {
	case l < 64:
		b = append(b, 0x80|byte(l))
	case l < 4096:
		b = append(b, 0xE0|byte(l>>8), byte(l))
	default:
		b = append(b, 0xF0)
		b = binary.LittleEndian.AppendUint32(b, uint32(l))
	}
	return append(b, s...)
}

// AppendEntry appends s as one element: its encoding and its backlen.
func AppendEntry(b []byte, s []byte) []byte {
	start := len(b)
	b = AppendString(b, s)
	return AppendBacklen(b, len(b)-start)
}

// EntrySize is the size of s's element, backlen included.
func EntrySize(s []byte) int {
	var l int
	if v, ok := ParseInt(s); ok {
		switch {
		case v >= 0 && v <= 127:
			l = 1
		case v >= -4096 && v <= 4095:
			l = 2
		case v >= -32768 && v <= 32767:
			l = 3
		case v >= -8388608 && v <= 8388607:
			l = 4
		case v >= -2147483648 && v <= 2147483647:
			l = 5
		default:
			l = 9
		}
	} else {
		switch n := len(s); {
		case n < 64:
			l = 1 + n
		case n < 4096:
			l = 2 + n
		default:
			l = 5 + n
		}
	}
	return l + BacklenSize(l)
}

// ParseInt is Redis's string2ll as lpStringToInt64 uses it: canonical
// decimal integers only (no sign but '-', no leading zero, no "-0"), in
// int64's range.
func ParseInt(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	if len(s) == 1 && s[0] == '0' {
		return 0, true
	}
	neg := s[0] == '-'
	p := s
	if neg {
		p = s[1:]
		if len(p) == 0 {
			return 0, false
		}
	}
	if p[0] < '1' || p[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range p {
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (1<<64-1)/10 {
			return 0, false
		}
		v *= 10
		if v > 1<<64-1-uint64(c-'0') {
			return 0, false
		}
		v += uint64(c - '0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}

// EncodingSize is the size of the encoding of the element at lp[off]
// (without its backlen), read from its first bytes; ok is false for an
// unknown encoding byte or a length header cut off by the end of lp.
// The element's body itself is not checked against len(lp).
func EncodingSize(lp []byte, off int) (size int, ok bool) {
	b := lp[off]
	switch {
	case b&0x80 == 0:
		return 1, true
	case b&0xC0 == 0x80:
		return 1 + int(b&0x3f), true
	case b&0xE0 == 0xC0:
		return 2, true
	case b&0xF0 == 0xE0:
		if off+1 >= len(lp) {
			return 0, false
		}
		return 2 + (int(b&0x0f)<<8 | int(lp[off+1])), true
	case b == 0xF1:
		return 3, true
	case b == 0xF2:
		return 4, true
	case b == 0xF3:
		return 5, true
	case b == 0xF4:
		return 9, true
	case b == 0xF0:
		if off+5 > len(lp) {
			return 0, false
		}
		return 5 + int(binary.LittleEndian.Uint32(lp[off+1:])), true
	}
	return 0, false
}
