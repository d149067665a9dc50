package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"strconv"
)

// source is what the decoder reads: a bytes.Reader or a bufio.Reader.
type source interface {
	io.Reader
	io.ByteReader
}

// decoder reads RDB data, counting the bytes consumed (for error
// positions) and, for files, their CRC64.
type decoder struct {
	r       source
	pos     int64
	crc     uint64
	sum     bool
	slab    []byte    // small collection elements are cut from it (see elem)
	inEl    bool      // reading a collection element
	scratch [256]byte // fixed's bytes
}

// slabSize is the chunk small collection elements are cut from, and
// smallString the largest element cut from one: a big collection's
// members then cost one allocation per chunk instead of one each (the
// engine copies them into its own structures, so a chunk lives no longer
// than the decoded value). Each is capped (a full slice expression), so
// appending to one never writes over the next. Other strings (values,
// listpack blobs a stream keeps as its nodes) get their own array.
const (
	slabSize    = 32 << 10
	smallString = 256
)

// maxChunk bounds the allocation made for a length read from the input
// before the bytes are actually there: a corrupt length cannot make the
// decoder allocate more than the input holds plus this.
const maxChunk = 1 << 20

func (d *decoder) errAt(pos int64, cause error, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Err: cause}
}

func (d *decoder) fail(format string, args ...any) *Error {
	return d.errAt(d.pos, nil, format, args...)
}

func (d *decoder) eof(err error) *Error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return d.errAt(d.pos, io.ErrUnexpectedEOF, "unexpected end of data")
	}
	return d.errAt(d.pos, err, "read error: %v", err)
}

func (d *decoder) byte() (byte, error) {
	b, err := d.r.ReadByte()
	if err != nil {
		return 0, d.eof(err)
	}
	if d.sum {
		d.crc = jonesTable[byte(d.crc)^b] ^ d.crc>>8 // CRC64 of one byte
	}
	d.pos++
	return b, nil
}

// bytes reads n bytes, in chunks so that a corrupt n does not allocate.
func (d *decoder) bytes(n uint64) ([]byte, error) {
	if n > math.MaxInt32 { // (strings over 2 GB are not supported)
		return nil, d.fail("length %d too large", n)
	}
	if br, ok := d.r.(*bytes.Reader); ok && uint64(br.Len()) < n {
		return nil, d.errAt(d.pos+int64(br.Len()), io.ErrUnexpectedEOF, "unexpected end of data (%d bytes needed)", n)
	}
	if n <= maxChunk {
		var buf []byte
		if d.inEl && n <= smallString {
			if uint64(cap(d.slab)-len(d.slab)) < n {
				d.slab = make([]byte, 0, slabSize)
			}
			k := len(d.slab)
			d.slab = d.slab[:k+int(n)]
			buf = d.slab[k : k+int(n) : k+int(n)]
		} else {
			buf = make([]byte, n)
		}
		if err := d.fill(buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	buf := make([]byte, 0, maxChunk)
	for uint64(len(buf)) < n {
		k := min(n-uint64(len(buf)), maxChunk)
		start := len(buf)
		buf = append(buf, make([]byte, k)...)
		if err := d.fill(buf[start:]); err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// fill reads len(buf) bytes into buf, adding them to the checksum.
func (d *decoder) fill(buf []byte) error {
	m, err := io.ReadFull(d.r, buf)
	if d.sum {
		d.crc = CRC64(d.crc, buf[:m])
	}
	d.pos += int64(m)
	if err != nil {
		return d.eof(err)
	}
	return nil
}

// fixed reads n bytes of a fixed-size field.
//
// The bytes are valid until the next read: callers parse them at once
// (a header, a binary double, a textual one of up to 255 bytes), so they
// are read into the decoder's scratch array, without an allocation each.
func (d *decoder) fixed(n int) ([]byte, error) {
	if n > len(d.scratch) {
		return d.bytes(uint64(n))
	}
	buf := d.scratch[:n]
	if err := d.fill(buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// length reads a length; encoded is set (and the length is the
// encoding type) for the special string encodings.
func (d *decoder) length() (n uint64, encoded bool, err error) {
	b, err := d.byte()
	if err != nil {
		return 0, false, err
	}
	switch b >> 6 {
	case 0:
		return uint64(b & 0x3f), false, nil
	case 1:
		b2, err := d.byte()
		if err != nil {
			return 0, false, err
		}
		return uint64(b&0x3f)<<8 | uint64(b2), false, nil
	case 2:
		switch b {
		case 0x80:
			p, err := d.fixed(4)
			if err != nil {
				return 0, false, err
			}
			return uint64(binary.BigEndian.Uint32(p)), false, nil
		case 0x81:
			p, err := d.fixed(8)
			if err != nil {
				return 0, false, err
			}
			return binary.BigEndian.Uint64(p), false, nil
		}
		return 0, false, d.errAt(d.pos-1, nil, "unknown length encoding 0x%02x", b)
	}
	return uint64(b & 0x3f), true, nil
}

// plainLen reads a length that must not be a string encoding.
func (d *decoder) plainLen() (uint64, error) {
	at := d.pos
	n, enc, err := d.length()
	if err != nil {
		return 0, err
	}
	if enc {
		return 0, d.errAt(at, nil, "string encoding where a length was expected")
	}
	return n, nil
}

// string reads a string in any of its encodings.
func (d *decoder) string() ([]byte, error) {
	at := d.pos
	n, enc, err := d.length()
	if err != nil {
		return nil, err
	}
	if !enc {
		return d.bytes(n)
	}
	switch n {
	case 0:
		b, err := d.byte()
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int8(b)), 10), nil
	case 1:
		p, err := d.fixed(2)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(p))), 10), nil
	case 2:
		p, err := d.fixed(4)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(p))), 10), nil
	case 3:
		clen, err := d.plainLen()
		if err != nil {
			return nil, err
		}
		ulen, err := d.plainLen()
		if err != nil {
			return nil, err
		}
		if ulen == 0 || ulen > math.MaxInt32 {
			return nil, d.errAt(at, nil, "invalid LZF lengths (%d compressed, %d expanded)", clen, ulen)
		}
		// A tiny payload must not expand to gigabytes: LZF expands at
		// most about 132 times (a 3-byte reference copies 264 bytes).
		if ulen > clen*133+64 {
			return nil, d.errAt(at, nil, "invalid LZF lengths (%d compressed, %d expanded)", clen, ulen)
		}
		c, err := d.bytes(clen)
		if err != nil {
			return nil, err
		}
		out, ok := lzfDecompress(c, int(ulen))
		if !ok {
			return nil, d.errAt(at, nil, "invalid LZF compressed string")
		}
		return out, nil
	}
	return nil, d.errAt(at, nil, "unknown string encoding %d", n)
}

// binaryDouble reads RDB_TYPE_ZSET_2's little-endian double.
func (d *decoder) binaryDouble() (float64, error) {
	p, err := d.fixed(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(p)), nil
}

// stringDouble reads the old textual double (RDB_TYPE_ZSET).
func (d *decoder) stringDouble() (float64, error) {
	at := d.pos
	n, err := d.byte()
	if err != nil {
		return 0, err
	}
	switch n {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	p, err := d.fixed(int(n))
	if err != nil {
		return 0, err
	}
	f, perr := strconv.ParseFloat(string(p), 64)
	if perr != nil && !errors.Is(perr, strconv.ErrRange) {
		return 0, d.errAt(at, nil, "invalid double %q", p)
	}
	return f, nil
}

// blob reads a string holding a listpack, ziplist, intset or zipmap and
// returns it with its position (for errors inside it).
func (d *decoder) blob() ([]byte, int64, error) {
	b, err := d.string()
	return b, d.pos - int64(len(b)), err
}

func (d *decoder) blobFail(at int64, what string, err error) error {
	var be *blobError
	if errors.As(err, &be) {
		return d.errAt(at+int64(be.off), nil, "%s: %s", what, be.msg)
	}
	return err
}

// uniq checks that the elements added are distinct.
// uniq finds a repeated element among those added (a set member, a hash
// field, a sorted-set member: Redis refuses such a payload). It is an
// open-addressing table of indexes into the elements it was given, so
// checking costs no allocation per element (a map[string] copied each
// key), which is a third of decoding a big sorted set.
type uniq struct {
	seed  maphash.Seed
	elems [][]byte
	slots []int32 // index+1 into elems, 0 free; len a power of two
}

func (u *uniq) add(b []byte) bool {
	if len(u.elems)*2 >= len(u.slots) {
		u.grow()
	}
	mask := uint64(len(u.slots) - 1)
	for i := maphash.Bytes(u.seed, b) & mask; ; i = (i + 1) & mask {
		j := u.slots[i]
		if j == 0 {
			u.elems = append(u.elems, b)
			u.slots[i] = int32(len(u.elems))
			return true
		}
		if bytes.Equal(u.elems[j-1], b) {
			return false
		}
	}
}

func (u *uniq) grow() {
	if u.slots == nil {
		u.seed = maphash.MakeSeed()
	}
	u.slots = make([]int32, max(16, 2*len(u.slots)))
	mask := uint64(len(u.slots) - 1)
	for k, e := range u.elems {
		i := maphash.Bytes(u.seed, e) & mask
		for u.slots[i] != 0 {
			i = (i + 1) & mask
		}
		u.slots[i] = int32(k + 1)
	}
}

// value reads the object of type t (the type byte already read).
func (d *decoder) value(t byte) (*Value, error) {
	at := d.pos - 1
	v := &Value{}
	var err error
	switch t {
	case TypeString:
		v.Kind = KindString
		v.Str, err = d.string()
		return v, err
	case TypeList:
		v.Kind = KindList
		err = d.elems(v, 1, nil)
	case TypeSet:
		v.Kind = KindSet
		err = d.elems(v, 1, &uniq{})
	case TypeHash:
		v.Kind = KindHash
		err = d.elems(v, 2, &uniq{})
	case TypeZSet, TypeZSet2:
		v.Kind = KindZSet
		err = d.zset(v, t == TypeZSet2)
	case TypeSetIntset:
		v.Kind, v.Compact = KindSet, true
		var b []byte
		var bat int64
		if b, bat, err = d.blob(); err != nil {
			return nil, err
		}
		ints, ierr := readIntset(b)
		if ierr != nil {
			return nil, d.blobFail(bat, "intset", ierr)
		}
		for _, x := range ints {
			v.Elems = append(v.Elems, strconv.AppendInt(nil, x, 10))
		}
	case TypeHashListpack, TypeHashZiplist, TypeHashZipmap:
		v.Kind, v.Compact = KindHash, true
		err = d.packed(v, t, 2)
	case TypeZSetListpack, TypeZSetZiplist:
		v.Kind, v.Compact = KindZSet, true
		err = d.packed(v, t, 2)
	case TypeListZiplist:
		v.Kind = KindList
		err = d.packed(v, t, 1)
	case TypeListQuicklist, TypeListQuicklist2:
		v.Kind = KindList
		err = d.quicklist(v, t == TypeListQuicklist2)
	case TypeStreamListpacks, TypeStreamListpack2:
		v.Kind = KindStream
		if err := d.stream(v, t == TypeStreamListpack2); err != nil {
			return nil, err
		}
		return v, nil // an empty stream is a value (it may hold groups)
	case TypeModulePreGA, TypeModule2:
		id, err := d.plainLen()
		if err != nil {
			return nil, err
		}
		return nil, d.errAt(at, ErrUnsupported, "module values are not supported (module type %s)", ModuleTypeName(id))
	default:
		return nil, d.errAt(at, nil, "unknown object type %d", t)
	}
	if err != nil {
		return nil, err
	}
	if v.Len() == 0 {
		return nil, d.errAt(at, ErrEmptyKey, "empty %s", v.Kind)
	}
	return v, nil
}

// elems reads a length and then per elements per entry (the plain list,
// set and hash encodings).
func (d *decoder) elems(v *Value, per int, u *uniq) error {
	n, err := d.plainLen()
	if err != nil {
		return err
	}
	if n > math.MaxInt32 {
		return d.fail("collection length %d too large", n)
	}
	v.Elems = make([][]byte, 0, int(min(n*uint64(per), 1024)))
	for i := uint64(0); i < n; i++ {
		for j := 0; j < per; j++ {
			at := d.pos
			e, err := d.elem()
			if err != nil {
				return err
			}
			if j == 0 && u != nil && !u.add(e) {
				return d.errAt(at, nil, "duplicate %s element", v.Kind)
			}
			v.Elems = append(v.Elems, e)
		}
	}
	return nil
}

// elem reads a string that is a collection element (see slabSize).
func (d *decoder) elem() ([]byte, error) {
	d.inEl = true
	b, err := d.string()
	d.inEl = false
	return b, err
}

func (d *decoder) zset(v *Value, binaryScores bool) error {
	n, err := d.plainLen()
	if err != nil {
		return err
	}
	if n > math.MaxInt32 {
		return d.fail("collection length %d too large", n)
	}
	u := &uniq{}
	v.Elems = make([][]byte, 0, int(min(n, 1024)))
	v.Scores = make([]float64, 0, int(min(n, 1024)))
	for i := uint64(0); i < n; i++ {
		at := d.pos
		m, err := d.elem()
		if err != nil {
			return err
		}
		if !u.add(m) {
			return d.errAt(at, nil, "duplicate zset member")
		}
		var s float64
		sat := d.pos
		if binaryScores {
			s, err = d.binaryDouble()
		} else {
			s, err = d.stringDouble()
		}
		if err != nil {
			return err
		}
		if math.IsNaN(s) {
			return d.errAt(sat, nil, "zset score is NaN")
		}
		v.Elems = append(v.Elems, m)
		v.Scores = append(v.Scores, s)
	}
	return nil
}

// packed reads a hash, sorted set or list stored in one listpack,
// ziplist or zipmap.
func (d *decoder) packed(v *Value, t byte, per int) error {
	b, bat, err := d.blob()
	if err != nil {
		return err
	}
	var elems [][]byte
	collect := func(e []byte) error {
		elems = append(elems, bytes.Clone(e))
		return nil
	}
	var n int
	var what string
	switch t {
	case TypeHashListpack, TypeZSetListpack:
		what = "listpack"
		n, err = readListpack(b, collect)
	case TypeHashZipmap:
		what = "zipmap"
		n, err = readZipmap(b, collect)
		n *= 2
	default:
		what = "ziplist"
		n, err = readZiplist(b, collect)
	}
	if err != nil {
		return d.blobFail(bat, what, err)
	}
	if n%per != 0 {
		return d.errAt(bat, nil, "%s of a %s with an odd number of elements", what, v.Kind)
	}
	u := &uniq{}
	for i := 0; i < len(elems); i += per {
		if per == 2 && !u.add(elems[i]) {
			return d.errAt(bat, nil, "%s with a duplicate %s element", what, v.Kind)
		}
	}
	if v.Kind != KindZSet {
		v.Elems = elems
		return nil
	}
	for i := 0; i < len(elems); i += 2 {
		s, err := strconv.ParseFloat(string(elems[i+1]), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(s) {
			return d.errAt(bat, nil, "%s with an invalid score %q", what, elems[i+1])
		}
		v.Elems = append(v.Elems, elems[i])
		v.Scores = append(v.Scores, s)
	}
	return nil
}

const (
	qlPlain  = 1
	qlPacked = 2
)

func (d *decoder) quicklist(v *Value, v2 bool) error {
	n, err := d.plainLen()
	if err != nil {
		return err
	}
	collect := func(e []byte) error {
		v.Elems = append(v.Elems, bytes.Clone(e))
		return nil
	}
	for i := uint64(0); i < n; i++ {
		container := uint64(qlPacked)
		if v2 {
			at := d.pos
			if container, err = d.plainLen(); err != nil {
				return err
			}
			if container != qlPlain && container != qlPacked {
				return d.errAt(at, nil, "invalid quicklist container %d", container)
			}
		}
		b, bat, err := d.blob()
		if err != nil {
			return err
		}
		if container == qlPlain {
			v.Elems = append(v.Elems, b)
			continue
		}
		what := "ziplist"
		if v2 {
			what = "listpack"
			_, err = readListpack(b, collect)
		} else {
			_, err = readZiplist(b, collect)
		}
		if err != nil {
			return d.blobFail(bat, what, err)
		}
	}
	return nil
}

// DecodeValue decodes a serialized value: a type byte and the object,
// as at the start of a DUMP payload. Bytes after the value are ignored.
func DecodeValue(b []byte) (*Value, error) {
	d := &decoder{r: bytes.NewReader(b)}
	t, err := d.byte()
	if err != nil {
		return nil, err
	}
	return d.value(t)
}

// VerifyPayload checks a DUMP payload's footer as Redis's
// verifyDumpPayload does: an RDB version not newer than Version and the
// CRC64 of everything before the checksum. (A zero checksum is not
// accepted: Redis accepts one only with skip-checksum validation.)
//
// The value is then decoded from the whole payload, footer included, as
// Redis does: a truncated value may read into the footer and still be
// accepted, exactly as redis-server accepts it.
func VerifyPayload(p []byte) bool {
	if len(p) < 10 {
		return false
	}
	footer := p[len(p)-10:]
	if int(binary.LittleEndian.Uint16(footer)) > Version {
		return false
	}
	return CRC64(0, p[:len(p)-8]) == binary.LittleEndian.Uint64(footer[2:])
}

// ModuleTypeName decodes a module type id (9 characters of a 64-symbol
// alphabet and a 10-bit encoding version) as Redis prints it.
func ModuleTypeName(id uint64) string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var name [9]byte
	x := id >> 10
	for i := 8; i >= 0; i-- {
		name[i] = chars[x&63]
		x >>= 6
	}
	return fmt.Sprintf("%s (encoding version %d)", name[:], id&1023)
}
