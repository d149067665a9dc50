// Package tuple is Ordo's order-preserving encoding of tuples: the bytes
// of Pack(a) sort (as memcmp, which is how Redis compares sorted-set
// members in BYLEX ranges) exactly as the tuple a sorts, element by
// element. Every element is self-delimiting and binary-safe, so a value
// containing ':' or '\x00' never collides with a separator, and numbers
// never need padding by hand: "0056:0028.44:90" becomes Pack(56, dec("28.44"), "90").
//
// Guarantees, for elements of the same type at each position:
//
//   - bytes.Compare(Pack(a), Pack(b)) == Compare(a, b);
//   - Unpack(Pack(a)) == a (after normalization: ints become int64 or
//     *big.Int, decimals lose trailing zeros, strings stay strings);
//   - Pack(prefix...) is a byte prefix of Pack(prefix..., more...), and
//     PrefixRange(prefix...) covers exactly the tuples that start with it.
//
// Elements of different types order by type (nil < bytes < string <
// integers < decimal < float < false < true), as in FoundationDB's tuple
// layer, whose type codes this follows for bytes, strings, integers and
// doubles; decimals (a type FoundationDB lacks) use code 0x30-0x32.
//
// Encodings:
//
//	nil      0x00
//	bytes    0x01 then the bytes with 0x00 escaped as 0x00 0xFF, then 0x00
//	string   0x02 then UTF-8 bytes escaped the same way, then 0x00
//	integer  0x14 for zero; 0x15..0x1C positive, n big-endian bytes;
//	         0x0C..0x13 negative, n bytes of the one's complement;
//	         0x1D / 0x0B: longer than 8 bytes, a length byte (complemented
//	         for negatives), then the bytes: integers of any size
//	decimal  0x31 zero; 0x32 positive: exponent as an integer element,
//	         then base-100 digit pairs as bytes 2p+1 (1..199), then 0x00;
//	         0x30 negative: negated exponent, complemented pairs, 0xFF
//	float64  0x21 then the IEEE bits big-endian, sign bit flipped for
//	         positives and all bits flipped for negatives (-0 < +0)
//	bool     0x26 false, 0x27 true
//
// NaN is rejected: it has no place in an order.
package tuple

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
)

// Type codes.
const (
	codeNil     = 0x00
	codeBytes   = 0x01
	codeString  = 0x02
	codeNegBig  = 0x0b
	codeIntZero = 0x14
	codePosBig  = 0x1d
	codeFloat   = 0x21
	codeFalse   = 0x26
	codeTrue    = 0x27
	codeDecNeg  = 0x30
	codeDecZero = 0x31
	codeDecPos  = 0x32
)

// Tuple is a list of elements: nil, []byte, string, int, int8..int64,
// uint..uint64, *big.Int, float32/float64, Decimal, bool.
type Tuple []any

// ErrNaN is returned for a NaN float.
var ErrNaN = errors.New("tuple: NaN cannot be ordered")

// Pack encodes the elements.
func Pack(elems ...any) ([]byte, error) { return Append(nil, elems...) }

// MustPack is Pack that panics, for constants in code and tests.
func MustPack(elems ...any) []byte {
	b, err := Pack(elems...)
	if err != nil {
		panic(err)
	}
	return b
}

// Append appends the encoding of the elements to dst.
func Append(dst []byte, elems ...any) ([]byte, error) {
	for i, e := range elems {
		var err error
		if dst, err = appendElem(dst, e); err != nil {
			return nil, fmt.Errorf("tuple: element %d: %w", i, err)
		}
	}
	return dst, nil
}

func appendElem(dst []byte, e any) ([]byte, error) {
	switch v := e.(type) {
	case nil:
		return append(dst, codeNil), nil
	case []byte:
		return appendEscaped(append(dst, codeBytes), v), nil
	case string:
		return appendEscapedString(append(dst, codeString), v), nil
	case int:
		return appendInt(dst, int64(v)), nil
	case int8:
		return appendInt(dst, int64(v)), nil
	case int16:
		return appendInt(dst, int64(v)), nil
	case int32:
		return appendInt(dst, int64(v)), nil
	case int64:
		return appendInt(dst, v), nil
	case uint:
		return appendBig(dst, new(big.Int).SetUint64(uint64(v)))
	case uint8:
		return appendInt(dst, int64(v)), nil
	case uint16:
		return appendInt(dst, int64(v)), nil
	case uint32:
		return appendInt(dst, int64(v)), nil
	case uint64:
		return appendBig(dst, new(big.Int).SetUint64(v))
	case *big.Int:
		return appendBig(dst, v)
	case float32:
		return appendFloat(dst, float64(v))
	case float64:
		return appendFloat(dst, v)
	case Decimal:
		return appendDecimal(dst, v), nil
	case *Decimal:
		return appendDecimal(dst, *v), nil
	case bool:
		if v {
			return append(dst, codeTrue), nil
		}
		return append(dst, codeFalse), nil
	}
	return nil, fmt.Errorf("unsupported type %T", e)
}

func appendEscaped(dst, b []byte) []byte {
	for _, c := range b {
		dst = append(dst, c)
		if c == 0 {
			dst = append(dst, 0xff)
		}
	}
	return append(dst, 0)
}

func appendEscapedString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		dst = append(dst, s[i])
		if s[i] == 0 {
			dst = append(dst, 0xff)
		}
	}
	return append(dst, 0)
}

func appendInt(dst []byte, n int64) []byte {
	if n == 0 {
		return append(dst, codeIntZero)
	}
	if n > 0 {
		u := uint64(n)
		l := byteLen(u)
		dst = append(dst, byte(codeIntZero+l))
		return appendBE(dst, u, l)
	}
	if n == math.MinInt64 {
		dst = append(dst, byte(codeIntZero-8))
		return appendBE(dst, ^uint64(1<<63), 8)
	}
	u := uint64(-n)
	l := byteLen(u)
	dst = append(dst, byte(codeIntZero-l))
	return appendBE(dst, ^u, l) // one's complement in l bytes
}

func byteLen(u uint64) int {
	l := 0
	for u > 0 {
		l++
		u >>= 8
	}
	return l
}

func appendBE(dst []byte, u uint64, l int) []byte {
	for i := l - 1; i >= 0; i-- {
		dst = append(dst, byte(u>>(8*i)))
	}
	return dst
}

// ErrIntTooLarge is returned for integers of more than 255 bytes (about
// 614 decimal digits): the length byte of the encoding cannot say more.
var ErrIntTooLarge = errors.New("tuple: integer longer than 255 bytes")

func appendBig(dst []byte, n *big.Int) ([]byte, error) {
	if n.IsInt64() {
		return appendInt(dst, n.Int64()), nil
	}
	mag := new(big.Int).Abs(n).Bytes()
	if len(mag) > 255 {
		return nil, ErrIntTooLarge
	}
	if n.Sign() > 0 {
		if len(mag) <= 8 {
			dst = append(dst, byte(codeIntZero+len(mag)))
			return append(dst, mag...), nil
		}
		dst = append(dst, codePosBig, byte(len(mag)))
		return append(dst, mag...), nil
	}
	if len(mag) <= 8 {
		dst = append(dst, byte(codeIntZero-len(mag)))
	} else {
		dst = append(dst, codeNegBig, ^byte(len(mag)))
	}
	for _, c := range mag {
		dst = append(dst, ^c)
	}
	return dst, nil
}

func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) {
		return nil, ErrNaN
	}
	u := math.Float64bits(f)
	if u&(1<<63) != 0 {
		u = ^u
	} else {
		u |= 1 << 63
	}
	dst = append(dst, codeFloat)
	return binary.BigEndian.AppendUint64(dst, u), nil
}

func appendDecimal(dst []byte, d Decimal) []byte {
	if d.digits == "" {
		return append(dst, codeDecZero)
	}
	pairs := d.digits
	if len(pairs)%2 == 1 {
		pairs += "0"
	}
	if !d.neg {
		dst = append(dst, codeDecPos)
		dst = appendInt(dst, int64(d.exp))
		for i := 0; i < len(pairs); i += 2 {
			p := (pairs[i]-'0')*10 + pairs[i+1] - '0'
			dst = append(dst, 2*p+1)
		}
		return append(dst, 0x00)
	}
	dst = append(dst, codeDecNeg)
	dst = appendInt(dst, -int64(d.exp))
	for i := 0; i < len(pairs); i += 2 {
		p := (pairs[i]-'0')*10 + pairs[i+1] - '0'
		dst = append(dst, ^(2*p + 1))
	}
	return append(dst, 0xff)
}

// PrefixRange returns [begin, end) covering every packed tuple that starts
// with prefix (and the prefix itself).
func PrefixRange(prefix ...any) (begin, end []byte, err error) {
	begin, err = Pack(prefix...)
	if err != nil {
		return nil, nil, err
	}
	end = append(append([]byte(nil), begin...), 0xff)
	return begin, end, nil
}

// ErrMalformed is returned by Unpack for bytes that are not a packed tuple.
var ErrMalformed = errors.New("tuple: malformed encoding")

// Unpack decodes a packed tuple.
func Unpack(b []byte) (Tuple, error) {
	var t Tuple
	for len(b) > 0 {
		e, n, err := decodeElem(b)
		if err != nil {
			return nil, err
		}
		t = append(t, e)
		b = b[n:]
	}
	return t, nil
}

// UnpackFirst decodes the first element and returns the rest of the bytes.
func UnpackFirst(b []byte) (any, []byte, error) {
	e, n, err := decodeElem(b)
	if err != nil {
		return nil, nil, err
	}
	return e, b[n:], nil
}

func decodeEscaped(b []byte) ([]byte, int, error) {
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] != 0 {
			out = append(out, b[i])
			continue
		}
		if i+1 < len(b) && b[i+1] == 0xff {
			out = append(out, 0)
			i++
			continue
		}
		if out == nil {
			out = []byte{}
		}
		return out, i + 1, nil
	}
	return nil, 0, ErrMalformed
}

func decodeElem(b []byte) (any, int, error) {
	code := b[0]
	switch {
	case code == codeNil:
		return nil, 1, nil
	case code == codeBytes:
		v, n, err := decodeEscaped(b[1:])
		return v, n + 1, err
	case code == codeString:
		v, n, err := decodeEscaped(b[1:])
		return string(v), n + 1, err
	case code >= codeNegBig && code <= codePosBig:
		return decodeInt(b)
	case code == codeFloat:
		if len(b) < 9 {
			return nil, 0, ErrMalformed
		}
		u := binary.BigEndian.Uint64(b[1:9])
		if u&(1<<63) != 0 {
			u &^= 1 << 63
		} else {
			u = ^u
		}
		f := math.Float64frombits(u)
		if math.IsNaN(f) {
			return nil, 0, ErrMalformed // Pack never writes NaN
		}
		return f, 9, nil
	case code == codeFalse:
		return false, 1, nil
	case code == codeTrue:
		return true, 1, nil
	case code == codeDecZero:
		return Decimal{}, 1, nil
	case code == codeDecPos || code == codeDecNeg:
		return decodeDecimal(b)
	}
	return nil, 0, ErrMalformed
}

func decodeInt(b []byte) (any, int, error) {
	if len(b) == 0 || b[0] < codeNegBig || b[0] > codePosBig {
		return nil, 0, ErrMalformed
	}
	code := int(b[0])
	if code == codeIntZero {
		return int64(0), 1, nil
	}
	var l, start int
	neg := code < codeIntZero
	switch {
	case code == codePosBig || code == codeNegBig:
		if len(b) < 2 {
			return nil, 0, ErrMalformed
		}
		l = int(b[1])
		if neg {
			l = int(^b[1])
		}
		start = 2
	case neg:
		l, start = codeIntZero-code, 1
	default:
		l, start = code-codeIntZero, 1
	}
	if len(b) < start+l {
		return nil, 0, ErrMalformed
	}
	mag := append([]byte(nil), b[start:start+l]...)
	if neg {
		for i := range mag {
			mag[i] = ^mag[i]
		}
	}
	n := new(big.Int).SetBytes(mag)
	if neg {
		n.Neg(n)
	}
	if n.IsInt64() {
		return n.Int64(), start + l, nil
	}
	return n, start + l, nil
}

func decodeDecimal(b []byte) (any, int, error) {
	neg := b[0] == codeDecNeg
	e, n, err := decodeInt(b[1:])
	if err != nil {
		return nil, 0, err
	}
	exp, ok := e.(int64)
	if !ok {
		return nil, 0, ErrMalformed
	}
	if neg {
		exp = -exp
	}
	pos := 1 + n
	var digits []byte
	for ; pos < len(b); pos++ {
		c := b[pos]
		if neg {
			if c == 0xff {
				break
			}
			c = ^c
		} else if c == 0x00 {
			break
		}
		if c%2 == 0 || c > 199 {
			return nil, 0, ErrMalformed
		}
		p := (c - 1) / 2
		digits = append(digits, '0'+p/10, '0'+p%10)
	}
	if pos >= len(b) {
		return nil, 0, ErrMalformed
	}
	ds := string(bytes.TrimRight(digits, "0"))
	if ds == "" || ds[0] == '0' {
		return nil, 0, ErrMalformed
	}
	return Decimal{neg: neg, digits: ds, exp: int(exp)}, pos + 1, nil
}

// Compare orders two tuples as their encodings do (for tests and merges).
func Compare(a, b Tuple) (int, error) {
	pa, err := Pack(a...)
	if err != nil {
		return 0, err
	}
	pb, err := Pack(b...)
	if err != nil {
		return 0, err
	}
	return bytes.Compare(pa, pb), nil
}
