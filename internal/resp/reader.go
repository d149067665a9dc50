// Package resp reads Redis requests and writes Redis replies, in RESP2 and RESP3.
//
// It knows nothing of commands. The Reader accepts exactly what redis-server
// 7.0 accepts (multibulk requests, inline requests, bare CRLFs that are
// ignored) and fails with Redis's own protocol error strings at the same
// points, so that a caller can reply "-ERR Protocol error: ..." and close the
// connection as Redis does. Declared lengths are checked against limits
// before anything is allocated for them, and buffers grow only with bytes
// that actually arrived: a client cannot make the server allocate by lying.
//
// The Writer appends replies to a byte slice; it never writes to a socket
// itself, so the caller decides when to flush (once per pipelined batch).
package resp

import (
	"errors"
	"io"
	"math"
	"strconv"
)

// Limits Redis applies while parsing requests.
const (
	InlineMaxSize      = 64 * 1024         // PROTO_INLINE_MAX_SIZE
	DefaultMaxBulkLen  = 512 * 1024 * 1024 // proto-max-bulk-len default
	MaxMultibulkLen    = math.MaxInt32     // INT_MAX, as processMultibulkBuffer checks
	unauthMultibulkLen = 10
	unauthBulkLen      = 16384
	readChunk          = 16 * 1024
	shrinkOver         = 1 << 20 // buffers larger than this shrink when drained
)

// ProtocolError is a malformed request. Its text is what Redis puts after
// "ERR " in the reply; the connection must be closed after replying.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "Protocol error: " + e.Msg }

func protoErr(msg string) error { return &ProtocolError{Msg: msg} }

// ErrIncomplete is returned by TryCommand when the buffer holds no complete request.
var ErrIncomplete = errors.New("resp: incomplete request")

// Reader parses requests from a stream. Arguments returned by ReadCommand
// and TryCommand point into the Reader's buffer and stay valid only until
// the next call that may read from the stream (ReadCommand). TryCommand
// never reads, so a caller may parse and execute a whole pipelined batch
// with TryCommand while holding the arguments of one command at a time.
type Reader struct {
	rd         io.Reader
	buf        []byte
	start, end int
	args       [][]byte

	// A multibulk request in progress: its declared count (0 when none),
	// the offset from start of its next argument's header, and the
	// arguments parsed so far as offsets from start. Offsets survive the
	// buffer moving, so each byte is parsed once however it trickles in.
	mbCount int64
	mbNext  int
	spans   []span

	// The last search for a line end that failed: from scanFrom, for
	// scanChar, nothing up to scanEnd. The next search resumes there, so
	// a line arriving a byte at a time is not rescanned from its start.
	scanFrom, scanEnd int
	scanChar          byte

	// MaxBulkLen is proto-max-bulk-len; 0 means the default.
	MaxBulkLen int64
	// Authenticated, when false, applies Redis's tighter limits for
	// unauthenticated clients (multibulk ≤ 10, bulk ≤ 16384).
	Authenticated bool
}

// NewReader returns a Reader of requests from rd.
func NewReader(rd io.Reader) *Reader {
	return &Reader{rd: rd, buf: make([]byte, readChunk), Authenticated: true}
}

// Buffered reports how many unparsed bytes are in the buffer.
func (r *Reader) Buffered() int { return r.end - r.start }

// ReadCommand returns the next request, reading from the stream as needed.
// Empty requests (a bare CRLF, "*0") are skipped.
func (r *Reader) ReadCommand() ([][]byte, error) {
	for {
		args, err := r.TryCommand()
		if err != ErrIncomplete {
			return args, err
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
}

// Fill reads more bytes into the buffer. It may move buffered bytes, so
// arguments returned earlier become invalid.
func (r *Reader) Fill() error { return r.fill() }

// fill reads more bytes, compacting or growing the buffer first.
func (r *Reader) fill() error {
	n, err := r.rd.Read(r.space())
	r.end += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// FillOnce makes room in the buffer and calls read once with the free
// space, for a caller that reads the stream itself (ordo-server reads a
// socket's descriptor without the netpoller's extra read; see
// internal/server). It reports whether read returned fewer bytes than it
// was offered: the source had nothing more at that moment, so a caller
// that is told when more arrives can wait instead of reading again. A
// read that returns no bytes gives its error, or io.ErrNoProgress. Like
// Fill, it may move buffered bytes.
func (r *Reader) FillOnce(read func(p []byte) (int, error)) (drained bool, err error) {
	p := r.space()
	n, err := read(p)
	if n <= 0 {
		if err == nil {
			err = io.ErrNoProgress
		}
		return false, err
	}
	r.end += min(n, len(p))
	return n < len(p), nil
}

// space compacts, shrinks or grows the buffer as needed and returns its
// free tail, which is never empty.
func (r *Reader) space() []byte {
	if r.start > 0 {
		n := copy(r.buf, r.buf[r.start:r.end])
		r.scanFrom -= r.start
		r.scanEnd -= r.start
		r.start, r.end = 0, n
	}
	// After a big request, give the memory back between requests (Redis
	// shrinks idle query buffers too), so that a connection that once
	// sent 100 MB does not keep 100 MB.
	if r.mbCount == 0 && len(r.buf) > shrinkOver && r.end <= readChunk {
		nb := make([]byte, readChunk*2)
		r.end = copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	if r.mbCount == 0 && cap(r.spans) > 4096 {
		r.spans, r.args = nil, nil
	}
	if r.end == len(r.buf) {
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	return r.buf[r.end:]
}

// TryCommand parses one request from what is already buffered, without
// reading. It returns ErrIncomplete when more bytes are needed, and a
// *ProtocolError when the request is malformed.
func (r *Reader) TryCommand() ([][]byte, error) {
	for r.start < r.end {
		var args [][]byte
		var err error
		if r.buf[r.start] == '*' {
			args, err = r.parseMultibulk()
		} else {
			args, err = r.parseInline()
		}
		if err != nil {
			return nil, err
		}
		if len(args) > 0 {
			return args, nil
		}
	}
	return nil, ErrIncomplete
}

// lineEnd finds the first '\r' at or after from, or -1. Like the strchr
// Redis uses, it stops at a NUL byte: a line with a NUL before its '\r' is
// never complete (Redis waits for more input until a size limit trips).
func (r *Reader) lineEnd(from int) int {
	return r.search(from, '\r')
}

func (r *Reader) search(from int, c byte) int {
	i := from
	if from == r.scanFrom && c == r.scanChar && r.scanEnd > from {
		i = r.scanEnd
	}
	for ; i < r.end; i++ {
		switch r.buf[i] {
		case c:
			return i
		case 0:
			r.scanFrom, r.scanChar, r.scanEnd = from, c, i
			return -1
		}
	}
	r.scanFrom, r.scanChar, r.scanEnd = from, c, r.end
	return -1
}

type span struct{ off, n int }

func (r *Reader) parseInline() ([][]byte, error) {
	nl := r.search(r.start, '\n')
	if nl < 0 {
		if r.end-r.start > InlineMaxSize {
			return nil, protoErr("too big inline request")
		}
		return nil, ErrIncomplete
	}
	line := r.buf[r.start:nl]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	r.start = nl + 1
	args, ok := SplitArgs(line, r.args[:0])
	if !ok {
		return nil, protoErr("unbalanced quotes in request")
	}
	r.args = args
	return args, nil
}

func (r *Reader) parseMultibulk() ([][]byte, error) {
	if r.mbCount == 0 {
		pos := r.start
		cr := r.lineEnd(pos)
		if cr < 0 {
			if r.end-pos > InlineMaxSize {
				return nil, protoErr("too big mbulk count string")
			}
			return nil, ErrIncomplete
		}
		if cr+1 >= r.end { // the '\n' has not arrived yet
			return nil, ErrIncomplete
		}
		n, ok := parseInt(r.buf[pos+1 : cr])
		if !ok || n > MaxMultibulkLen {
			return nil, protoErr("invalid multibulk length")
		}
		if !r.Authenticated && n > unauthMultibulkLen {
			return nil, protoErr("unauthenticated multibulk length")
		}
		if n <= 0 {
			r.start = cr + 2
			return nil, nil
		}
		r.mbCount, r.mbNext, r.spans = n, cr+2-r.start, r.spans[:0]
	}
	maxBulk := r.MaxBulkLen
	if maxBulk <= 0 {
		maxBulk = DefaultMaxBulkLen
	}
	for int64(len(r.spans)) < r.mbCount {
		pos := r.start + r.mbNext
		// As in Redis, the whole length line must have arrived before
		// its first byte is checked.
		cr := r.lineEnd(pos)
		if cr < 0 {
			if r.end-pos > InlineMaxSize {
				r.mbCount = 0
				return nil, protoErr("too big bulk count string")
			}
			return nil, ErrIncomplete
		}
		if cr+1 >= r.end {
			return nil, ErrIncomplete
		}
		if r.buf[pos] != '$' {
			r.mbCount = 0
			return nil, protoErr("expected '$', got '" + string(r.buf[pos]) + "'")
		}
		l, ok := parseInt(r.buf[pos+1 : cr])
		if !ok || l < 0 || l > maxBulk {
			r.mbCount = 0
			return nil, protoErr("invalid bulk length")
		}
		if !r.Authenticated && l > unauthBulkLen {
			r.mbCount = 0
			return nil, protoErr("unauthenticated bulk length")
		}
		body := cr + 2
		if int64(r.end-body) < l+2 {
			return nil, ErrIncomplete
		}
		r.spans = append(r.spans, span{body - r.start, int(l)})
		r.mbNext = body + int(l) + 2 - r.start
	}
	args := r.args[:0]
	for _, sp := range r.spans {
		a := r.start + sp.off
		args = append(args, r.buf[a:a+sp.n:a+sp.n])
	}
	r.args = args
	r.start += r.mbNext
	r.mbCount = 0
	return args, nil
}

// parseInt parses a decimal integer as Redis's string2ll does (no '+', no
// leading zeros except "0", no spaces).
func parseInt(b []byte) (int64, bool) {
	// The lengths of a request's lines: a few digits, no sign. Up to 18
	// digits cannot overflow; a leading zero is left to the full check.
	if n := len(b); n > 0 && n <= 18 && b[0] != '0' {
		var v int64
		i := 0
		for ; i < n; i++ {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			v = v*10 + int64(d)
		}
		if i == n {
			return v, true
		}
	}
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, false
	}
	if b[0] == '+' || (b[0] == '0' && len(b) > 1) || (b[0] == '-' && (len(b) == 1 || b[1] == '0')) {
		return 0, false
	}
	return v, true
}

// SplitArgs splits an inline request line the way Redis's sdssplitargs
// does: spaces separate arguments, "double quotes" understand \n \r \t \b
// \a \\ \" and \xHH, 'single quotes' understand only \'. A closing quote
// must be followed by a space or the end. It appends to dst.
func SplitArgs(line []byte, dst [][]byte) ([][]byte, bool) {
	p := 0
	for {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p >= len(line) {
			return dst, true
		}
		var cur []byte
		inq, insq, done := false, false, false
		for !done {
			if inq {
				if p >= len(line) {
					return dst, false
				}
				c := line[p]
				if c == '\\' && p+3 < len(line) && line[p+1] == 'x' && isHex(line[p+2]) && isHex(line[p+3]) {
					cur = append(cur, hexVal(line[p+2])<<4|hexVal(line[p+3]))
					p += 3
				} else if c == '\\' && p+1 < len(line) {
					p++
					switch line[p] {
					case 'n':
						cur = append(cur, '\n')
					case 'r':
						cur = append(cur, '\r')
					case 't':
						cur = append(cur, '\t')
					case 'b':
						cur = append(cur, '\b')
					case 'a':
						cur = append(cur, '\a')
					default:
						cur = append(cur, line[p])
					}
				} else if c == '"' {
					if p+1 < len(line) && !isSpace(line[p+1]) {
						return dst, false
					}
					done = true
				} else {
					cur = append(cur, c)
				}
			} else if insq {
				if p >= len(line) {
					return dst, false
				}
				c := line[p]
				if c == '\\' && p+1 < len(line) && line[p+1] == '\'' {
					p++
					cur = append(cur, '\'')
				} else if c == '\'' {
					if p+1 < len(line) && !isSpace(line[p+1]) {
						return dst, false
					}
					done = true
				} else {
					cur = append(cur, c)
				}
			} else {
				if p >= len(line) {
					break
				}
				switch c := line[p]; c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					cur = append(cur, c)
				}
			}
			if p < len(line) {
				p++
			}
		}
		if cur == nil {
			cur = []byte{}
		}
		dst = append(dst, cur)
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
