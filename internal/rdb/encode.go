package rdb

import (
	"encoding/binary"
	"github.com/ordo-db/ordo/internal/ds/listpack"
	"math"
	"slices"
	"strconv"
)

// appendLen appends a length in RDB's variable-size encoding.
func appendLen(b []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(b, byte(n))
	case n < 1<<14:
		return append(b, byte(n>>8)|0x40, byte(n))
	case n <= math.MaxUint32:
		b = append(b, 0x80)
		return binary.BigEndian.AppendUint32(b, uint32(n))
	}
	b = append(b, 0x81)
	return binary.BigEndian.AppendUint64(b, n)
}

// appendString appends s as Redis's rdbSaveRawString does: an integer
// encoding for short canonical integers that fit 32 bits, LZF (when
// compress is set) for strings over 20 bytes that it shrinks by at
// least 4 bytes, the raw bytes otherwise.
func appendString(b []byte, s []byte, compress bool) []byte {
	if len(s) <= 11 {
		if v, ok := listpack.ParseInt(s); ok {
			switch {
			case v >= math.MinInt8 && v <= math.MaxInt8:
				return append(b, 0xC0, byte(v))
			case v >= math.MinInt16 && v <= math.MaxInt16:
				return binary.LittleEndian.AppendUint16(append(b, 0xC1), uint16(v))
			case v >= math.MinInt32 && v <= math.MaxInt32:
				return binary.LittleEndian.AppendUint32(append(b, 0xC2), uint32(v))
			}
		}
	}
	if compress && len(s) > 20 {
		if c := lzfCompress(s, len(s)-4); c != nil {
			b = append(b, 0xC3)
			b = appendLen(b, uint64(len(c)))
			b = appendLen(b, uint64(len(s)))
			return append(b, c...)
		}
	}
	b = appendLen(b, uint64(len(s)))
	return append(b, s...)
}

// listNodeLimit is the byte size of a quicklist node with Redis's default
// list-max-listpack-size -2 (8 kB), and listNodeOverhead the per-entry
// estimate quicklist adds when deciding whether an element fits.
const (
	listNodeLimit    = 8192
	listNodeOverhead = 8
	listPlainLimit   = 1 << 30 // elements this large are plain nodes
)

// listNodes splits a list into quicklist nodes as RPUSHes into a Redis
// list with the default settings would: a node takes elements while its
// listpack plus the new element and 8 bytes stays within 8 kB.
func listNodes(elems [][]byte) (nodes [][][]byte, plain []bool) {
	var cur [][]byte
	size := 0
	for _, e := range elems {
		if len(e) >= listPlainLimit {
			if cur != nil {
				nodes, plain = append(nodes, cur), append(plain, false)
				cur = nil
			}
			nodes, plain = append(nodes, [][]byte{e}), append(plain, true)
			continue
		}
		if cur != nil && size+len(e)+listNodeOverhead > listNodeLimit {
			nodes, plain = append(nodes, cur), append(plain, false)
			cur = nil
		}
		if cur == nil {
			size = lpHeaderSize + 1
		}
		cur = append(cur, e)
		size += listpack.EntrySize(e)
	}
	if cur != nil {
		nodes, plain = append(nodes, cur), append(plain, false)
	}
	return nodes, plain
}

// AppendValue appends the serialization of v (its type byte and the
// object) as Redis 7.0's rdbSaveObjectType and rdbSaveObject write it.
// compress is rdbcompression. A compact set must hold only integers and
// a compact sorted set must be in ascending order.
func AppendValue(b []byte, v *Value, compress bool) []byte {
	return appendEntry(b, nil, v, compress)
}

// appendEntry appends the type byte, the key (unless nil) and the object:
// a key of a file, or (no key) a DUMP payload's value.
func appendEntry(b []byte, key []byte, v *Value, compress bool) []byte {
	typ := func(b []byte, t byte) []byte {
		b = append(b, t)
		if key != nil {
			b = appendString(b, key, compress)
		}
		return b
	}
	switch v.Kind {
	case KindString:
		b = typ(b, TypeString)
		return appendString(b, v.Str, compress)
	case KindList:
		b = typ(b, TypeListQuicklist2)
		nodes, plain := listNodes(v.Elems)
		b = appendLen(b, uint64(len(nodes)))
		for i, n := range nodes {
			if plain[i] {
				b = appendLen(b, qlPlain)
				b = appendString(b, n[0], compress)
				continue
			}
			b = appendLen(b, qlPacked)
			b = appendString(b, buildListpack(n), compress)
		}
		return b
	case KindSet:
		if v.Compact {
			ints := make([]int64, 0, len(v.Elems))
			ok := true
			for _, e := range v.Elems {
				x, isInt := listpack.ParseInt(e)
				if !isInt {
					ok = false
					break
				}
				ints = append(ints, x)
			}
			if ok {
				slices.Sort(ints)
				b = typ(b, TypeSetIntset)
				return appendString(b, buildIntset(ints), compress)
			}
		}
		b = typ(b, TypeSet)
		b = appendLen(b, uint64(len(v.Elems)))
		for _, e := range v.Elems {
			b = appendString(b, e, compress)
		}
		return b
	case KindHash:
		if v.Compact {
			b = typ(b, TypeHashListpack)
			return appendString(b, buildListpack(v.Elems), compress)
		}
		b = typ(b, TypeHash)
		b = appendLen(b, uint64(len(v.Elems)/2))
		for _, e := range v.Elems {
			b = appendString(b, e, compress)
		}
		return b
	case KindZSet:
		if v.Compact {
			b = typ(b, TypeZSetListpack)
			elems := make([][]byte, 0, 2*len(v.Elems))
			for i, m := range v.Elems {
				elems = append(elems, m, formatScore(v.Scores[i]))
			}
			return appendString(b, buildListpack(elems), compress)
		}
		// Redis writes the skiplist from the tail: highest score first.
		b = typ(b, TypeZSet2)
		b = appendLen(b, uint64(len(v.Elems)))
		for i := len(v.Elems) - 1; i >= 0; i-- {
			b = appendString(b, v.Elems[i], compress)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Scores[i]))
		}
		return b
	case KindStream:
		b = typ(b, TypeStreamListpack2)
		return appendStream(b, v.Stream, compress)
	}
	return b
}

// formatScore writes a score as Redis 7.0's d2string does for a listpack:
// an integer when the double is one (within ±2^52), else %.17g.
func formatScore(f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return []byte("inf")
	case math.IsInf(f, -1):
		return []byte("-inf")
	case f == 0:
		if math.Signbit(f) {
			return []byte("-0")
		}
		return []byte("0")
	case f > -4503599627370495 && f < 4503599627370496 && f == math.Trunc(f):
		return strconv.AppendInt(nil, int64(f), 10)
	}
	return strconv.AppendFloat(nil, f, 'g', 17, 64)
}

// Dump returns the DUMP payload of v: its serialization, the RDB version
// (2 bytes, little endian) and the CRC64 of both (8 bytes, little endian).
func Dump(v *Value, compress bool) []byte {
	b := AppendValue(nil, v, compress)
	b = binary.LittleEndian.AppendUint16(b, Version)
	return binary.LittleEndian.AppendUint64(b, CRC64(0, b))
}
