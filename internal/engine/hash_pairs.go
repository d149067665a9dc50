package engine

import (
	"encoding/binary"
	"strings"
)

// Reading a whole hash out of the engine (the embedded database's GetDoc
// and Backend.ReadHashes, internal/search's result pages) in one copy per
// hash instead of one per field or value.

// PairsBytes returns how many bytes AppendPairs writes to its builder
// for h: the size of a listpack hash's encoding, 0 for a hashtable (its
// strings are not copied).
func (h *Hash) PairsBytes() int {
	if h.ht != nil {
		return 0
	}
	return len(h.lp)
}

// AppendPairs appends h's fields and values to dst as alternating pairs,
// in the hash's order (HGETALL's), and returns dst.
//
// A listpack hash is copied into b with one write of its encoding, and
// its strings are substrings of b.String() (so the copy is made once,
// for all of them; grow b by PairsBytes first to copy it only once). A
// hashtable hash's strings are the Dict's own, immutable, so nothing is
// copied. Either way the strings are the caller's to keep after the hash
// changes. The lock must be held during the call only.
func (h *Hash) AppendPairs(dst []string, b *strings.Builder) []string {
	if h.ht != nil {
		h.ht.Each(func(f, v string) bool {
			dst = append(dst, f, v)
			return true
		})
		return dst
	}
	if len(h.lp) == 0 {
		return dst
	}
	start := b.Len()
	b.Write(h.lp)
	// A Builder only appends: what it has written never changes, and
	// String does not copy.
	s := b.String()[start:]
	for i := 0; i < len(s); {
		// Lengths below 128 (nearly all) are one byte.
		n, w := uint64(s[i]), 1
		if n >= 0x80 {
			n, w = uvarintString(s[i:])
		}
		i += w
		dst = append(dst, s[i:i+int(n)])
		i += int(n)
	}
	return dst
}

// uvarintString is binary.Uvarint of a well-formed uvarint in a string.
func uvarintString(s string) (uint64, int) {
	var x uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<(7*i), i + 1
		}
		x |= uint64(c&0x7f) << (7 * i)
	}
	return x, len(s)
}
