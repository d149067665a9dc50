package aof

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/ordo-db/ordo/internal/resp"
)

// fileMagic starts every base and incremental file.
const fileMagic = "ORDOAOF1"

// reserveDirective, in a base file, is a command the loader does not
// run: "ordo-reserve-keys <keys> <keys with a TTL>" says how many keys
// the database selected at that point will hold, so that the loader
// sizes its tables first (engine.DB.Reserve) instead of growing them
// key by key (a third of the load's time for a big keyspace). The
// rewrite writes one per non-empty database before its keys. An older
// Ordo replaying it logs an unknown command and goes on.
const reserveDirective = "ordo-reserve-keys"

// hdrLen is the size of a record header: payload length, CRC32C of the
// payload, CRC32C of the first eight header bytes.
const hdrLen = 12

// maxRecord bounds a record's payload; a header claiming more is corrupt.
const maxRecord = 1 << 30

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// record builds records: commands are appended to the open record, and
// end() closes it by filling in its header.
type record struct {
	buf   []byte
	start int // offset of the open record's header, -1 if none
}

func newRecordBuf() record { return record{start: -1} }

func (r *record) open() {
	if r.start < 0 {
		r.start = len(r.buf)
		r.buf = append(r.buf, make([]byte, hdrLen)...)
	}
}

// add appends one command (RESP array of bulk strings) to the open record.
func (r *record) add(args [][]byte) {
	r.open()
	b := r.buf
	b = resp.AppendCommandBytes(b, args)
	r.buf = b
}

func (r *record) addStrings(args ...string) {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	r.add(b)
}

// frame appends p, whole RESP commands (arrays of bulk strings, as
// resp.AppendCommandBytes writes them), as closed records of about
// recordBytes each, cut between commands.
func (r *record) frame(p []byte) {
	for len(p) > 0 {
		n := commandsPrefix(p, recordBytes)
		r.open()
		r.buf = append(r.buf, p[:n]...)
		r.end()
		p = p[n:]
	}
}

// commandsPrefix returns the length of the longest run of whole commands
// at the start of p that is at most limit bytes (at least one command),
// reading only their headers; all of p if it cannot parse them.
func commandsPrefix(p []byte, limit int) int {
	off := 0
	for off < len(p) {
		n, ok := commandLen(p[off:])
		if !ok {
			return len(p)
		}
		if off > 0 && off+n > limit {
			break
		}
		off += n
	}
	return off
}

// commandLen is the length of the RESP array of bulk strings at the
// start of p.
func commandLen(p []byte) (int, bool) {
	n, rest, ok := parseLen(p, '*')
	if !ok {
		return 0, false
	}
	off := len(p) - len(rest)
	for range n {
		l, rest, ok := parseLen(p[off:], '$')
		if !ok || l < 0 || len(rest) < l+2 {
			return 0, false
		}
		off = len(p) - len(rest) + l + 2
	}
	return off, true
}

// end closes the open record, if any.
func (r *record) end() {
	if r.start < 0 {
		return
	}
	h := r.buf[r.start : r.start+hdrLen]
	payload := r.buf[r.start+hdrLen:]
	binary.LittleEndian.PutUint32(h[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[4:8], crc32.Checksum(payload, castagnoli))
	binary.LittleEndian.PutUint32(h[8:12], crc32.Checksum(h[0:8], castagnoli))
	r.start = -1
}

// canJoin reports whether payload may join the closed record at the
// start of r (its header, then its payload, which ends r): joined, it
// stays within recordBytes.
func canJoin(r, payload []byte) bool {
	n := int(binary.LittleEndian.Uint32(r[0:4]))
	return n == len(r)-hdrLen && n+len(payload) <= recordBytes
}

// joinRecord extends the closed record at the start of r with payload,
// which the caller appends to r: the header's length and both checksums
// are updated (CRC32C extends without rereading the payload).
func joinRecord(r, payload []byte) {
	h := r[:hdrLen]
	crc := crc32.Update(binary.LittleEndian.Uint32(h[4:8]), castagnoli, payload)
	binary.LittleEndian.PutUint32(h[0:4], binary.LittleEndian.Uint32(h[0:4])+uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[4:8], crc)
	binary.LittleEndian.PutUint32(h[8:12], crc32.Checksum(h[0:8], castagnoli))
}

// openLen is the size of the open record (0 if none).
func (r *record) openLen() int {
	if r.start < 0 {
		return 0
	}
	return len(r.buf) - r.start
}

// take returns the closed records and empties the buffer; the open
// record, if any, is kept.
func (r *record) take(spare []byte) []byte {
	if r.start < 0 {
		out := r.buf
		r.buf = spare[:0]
		return out
	}
	out := append(spare[:0], r.buf[:r.start]...)
	n := copy(r.buf, r.buf[r.start:])
	r.buf = r.buf[:n]
	r.start = 0
	return out
}

// Corruption describes an invalid region of a file.
type Corruption struct {
	File   string
	Offset int64 // where the valid prefix ends
	Size   int64 // file size
	Torn   bool  // the damage looks like an interrupted append at the end
	Reason string
}

func (c *Corruption) Error() string {
	kind := "corrupt data"
	if c.Torn {
		kind = "torn tail"
	}
	return fmt.Sprintf("%s: %s at offset %d of %d (%s)", c.File, kind, c.Offset, c.Size, c.Reason)
}

// scanner reads the records of one file, classifying the first invalid
// one. It never panics on any bytes.
type scanner struct {
	r    *bufio.Reader
	name string
	off  int64
	size int64
	buf  []byte
}

func newScanner(r io.Reader, name string, size int64) *scanner {
	return &scanner{r: bufio.NewReaderSize(r, 1<<20), name: name, size: size}
}

// header checks the file magic. A file shorter than the magic whose bytes
// are a prefix of it (or zeros) is a torn tail at offset 0.
func (s *scanner) header() error {
	if s.size < int64(len(fileMagic)) {
		b := make([]byte, s.size)
		io.ReadFull(s.r, b)
		ok := true
		for i, c := range b {
			if c != fileMagic[i] && c != 0 {
				ok = false
			}
		}
		return &Corruption{File: s.name, Offset: 0, Size: s.size, Torn: ok, Reason: "file shorter than its header"}
	}
	b := make([]byte, len(fileMagic))
	if _, err := io.ReadFull(s.r, b); err != nil {
		return err
	}
	if string(b) != fileMagic {
		if s.size == int64(len(fileMagic)) && allZero(b) {
			return &Corruption{File: s.name, Offset: 0, Size: s.size, Torn: true, Reason: "zeroed header"}
		}
		return &Corruption{File: s.name, Offset: 0, Size: s.size, Reason: "not an Ordo AOF file (bad magic)"}
	}
	s.off = int64(len(fileMagic))
	return nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// next returns the next record's payload (valid until the next call),
// io.EOF at a clean end, or a *Corruption (or an I/O error).
func (s *scanner) next() ([]byte, error) {
	rem := s.size - s.off
	if rem == 0 {
		return nil, io.EOF
	}
	bad := func(torn bool, reason string) error {
		return &Corruption{File: s.name, Offset: s.off, Size: s.size, Torn: torn, Reason: reason}
	}
	if rem < hdrLen {
		return nil, bad(true, fmt.Sprintf("incomplete record header (%d bytes)", rem))
	}
	var h [hdrLen]byte
	if _, err := io.ReadFull(s.r, h[:]); err != nil {
		return nil, err
	}
	if crc32.Checksum(h[0:8], castagnoli) != binary.LittleEndian.Uint32(h[8:12]) {
		// An append cut short can leave zeros (or garbage in a last,
		// unfinished header) at the end of the file.
		if allZero(h[:]) {
			z, err := s.zerosToEOF(rem - hdrLen)
			if err != nil {
				return nil, err
			}
			if z {
				return nil, bad(true, "zero-filled tail")
			}
		}
		return nil, bad(false, "record header checksum mismatch")
	}
	n := int64(binary.LittleEndian.Uint32(h[0:4]))
	if n > maxRecord {
		return nil, bad(false, "record length out of range")
	}
	if n > rem-hdrLen {
		return nil, bad(true, fmt.Sprintf("record of %d bytes cut at %d", n, rem-hdrLen))
	}
	if int64(cap(s.buf)) < n {
		s.buf = make([]byte, n)
	}
	p := s.buf[:n]
	if _, err := io.ReadFull(s.r, p); err != nil {
		return nil, err
	}
	if crc32.Checksum(p, castagnoli) != binary.LittleEndian.Uint32(h[4:8]) {
		last := s.off+hdrLen+n == s.size
		return nil, bad(last, "record checksum mismatch")
	}
	s.off += hdrLen + n
	return p, nil
}

func (s *scanner) zerosToEOF(n int64) (bool, error) {
	buf := make([]byte, 64*1024)
	for n > 0 {
		k := min(n, int64(len(buf)))
		if _, err := io.ReadFull(s.r, buf[:k]); err != nil {
			return false, err
		}
		if !allZero(buf[:k]) {
			return false, nil
		}
		n -= k
	}
	return true, nil
}

var errBadPayload = errors.New("malformed command in record")

// parseCommands splits a payload into commands (arguments alias p).
func parseCommands(p []byte, fn func(args [][]byte) error) error {
	var args [][]byte
	for len(p) > 0 {
		n, rest, ok := parseLen(p, '*')
		if !ok || n < 1 || n > 1<<20 {
			return errBadPayload
		}
		p = rest
		args = args[:0]
		for i := 0; i < n; i++ {
			l, rest, ok := parseLen(p, '$')
			if !ok || l < 0 || l+2 > len(rest) || rest[l] != '\r' || rest[l+1] != '\n' {
				return errBadPayload
			}
			args = append(args, rest[:l:l])
			p = rest[l+2:]
		}
		if err := fn(args); err != nil {
			return err
		}
	}
	return nil
}

// parseLen parses "<c><digits>\r\n".
func parseLen(p []byte, c byte) (int, []byte, bool) {
	if len(p) < 4 || p[0] != c {
		return 0, nil, false
	}
	n := 0
	i := 1
	for ; i < len(p) && p[i] >= '0' && p[i] <= '9'; i++ {
		n = n*10 + int(p[i]-'0')
		if n > maxRecord {
			return 0, nil, false
		}
	}
	if i == 1 || i+1 >= len(p) || p[i] != '\r' || p[i+1] != '\n' {
		return 0, nil, false
	}
	return n, p[i+2:], true
}
