package rdb

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Writer writes an RDB file: the "REDIS0010" header, auxiliary fields,
// functions, databases of keys, and the EOF opcode with the CRC64 of
// everything before it.
type Writer struct {
	w        io.Writer
	buf      []byte
	crc      uint64
	err      error
	compress bool
}

// NewWriter starts an RDB file on w. compress is rdbcompression.
func NewWriter(w io.Writer, compress bool) *Writer {
	wr := &Writer{w: w, compress: compress, buf: make([]byte, 0, 64<<10)}
	wr.buf = append(wr.buf, fmt.Sprintf("REDIS%04d", Version)...)
	return wr
}

func (w *Writer) flushIfFull() {
	if len(w.buf) >= 64<<10 {
		w.flush()
	}
}

func (w *Writer) flush() {
	if w.err == nil && len(w.buf) > 0 {
		w.crc = CRC64(w.crc, w.buf)
		_, w.err = w.w.Write(w.buf)
	}
	w.buf = w.buf[:0]
}

// Aux writes an auxiliary field (redis-ver, ctime, ...).
func (w *Writer) Aux(key, value string) {
	w.buf = append(w.buf, OpAux)
	w.buf = appendString(w.buf, []byte(key), w.compress)
	w.buf = appendString(w.buf, []byte(value), w.compress)
	w.flushIfFull()
}

// Function writes the code of one function library (FUNCTION2).
func (w *Writer) Function(code []byte) {
	w.buf = append(w.buf, OpFunction2)
	w.buf = appendString(w.buf, code, w.compress)
	w.flushIfFull()
}

// SelectDB starts database db, announcing its number of keys and of
// keys with an expiry (RESIZEDB).
func (w *Writer) SelectDB(db int, keys, expires uint64) {
	w.buf = append(w.buf, OpSelectDB)
	w.buf = appendLen(w.buf, uint64(db))
	w.buf = append(w.buf, OpResizeDB)
	w.buf = appendLen(w.buf, keys)
	w.buf = appendLen(w.buf, expires)
}

// Entry writes one key with its value and expiry (unix ms, or -1).
func (w *Writer) Entry(key []byte, v *Value, expireAt int64) {
	if expireAt != -1 {
		w.buf = append(w.buf, OpExpireTimeMS)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(expireAt))
	}
	if key == nil {
		key = []byte{}
	}
	w.buf = appendEntry(w.buf, key, v, w.compress)
	w.flushIfFull()
}

// Close writes the EOF opcode and the checksum. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	w.buf = append(w.buf, OpEOF)
	w.flush()
	var sum [8]byte
	binary.LittleEndian.PutUint64(sum[:], w.crc)
	w.buf = append(w.buf, sum[:]...)
	if w.err == nil {
		_, w.err = w.w.Write(w.buf)
	}
	w.buf = w.buf[:0]
	return w.err
}

// Entry is a key read from a file.
type Entry struct {
	DB       int
	Key      []byte
	Value    *Value
	ExpireAt int64 // unix ms, or -1
	Idle     int64 // LRU idle seconds (OpIdle), or -1
	Freq     int   // LFU counter (OpFreq), or -1
}

// Handler receives what ReadFile reads. Nil functions ignore their
// items.
type Handler struct {
	Aux      func(key, value []byte) error
	Function func(code []byte) error
	Entry    func(e *Entry) error
	// Skipped is told of keys Redis also skips when loading (empty
	// collections); nil ignores them.
	Skipped func(e *Entry, err error) error
}

// Module serialization opcodes (MODULE_AUX payloads).
const (
	moduleOpEOF    = 0
	moduleOpSInt   = 1
	moduleOpUInt   = 2
	moduleOpFloat  = 3
	moduleOpDouble = 4
	moduleOpString = 5
)

// ReadFile reads a whole RDB file (versions 1 to 10), checking its
// checksum, and returns its version. Streams, module values and pre-GA
// functions make it fail with an error wrapping ErrUnsupported;
// MODULE_AUX data (module-global state) is skipped.
//
// ReadFile consumes exactly the file's bytes from an r that is an
// io.ByteReader (a *bufio.Reader, a *bytes.Reader), so a caller can go on
// reading what follows (a replication stream); any other r is wrapped in
// a bufio.Reader, which may read ahead.
func ReadFile(r io.Reader, h Handler) (int, error) {
	src, ok := r.(source)
	if !ok {
		src = bufio.NewReaderSize(r, 64<<10)
	}
	d := &decoder{r: src, sum: true}
	magic, err := d.fixed(9)
	if err != nil {
		return 0, err
	}
	if string(magic[:5]) != "REDIS" {
		return 0, d.errAt(0, nil, "not an RDB file (no REDIS signature)")
	}
	version, perr := strconv.Atoi(string(magic[5:]))
	if perr != nil || version < 1 || version > Version {
		return 0, d.errAt(5, nil, "can't handle RDB format version %q", magic[5:])
	}
	e := Entry{ExpireAt: -1, Idle: -1, Freq: -1}
	for {
		at := d.pos
		op, err := d.byte()
		if err != nil {
			return version, err
		}
		switch op {
		case OpExpireTime:
			p, err := d.fixed(4)
			if err != nil {
				return version, err
			}
			e.ExpireAt = int64(int32(binary.LittleEndian.Uint32(p))) * 1000
			continue
		case OpExpireTimeMS:
			p, err := d.fixed(8)
			if err != nil {
				return version, err
			}
			e.ExpireAt = int64(binary.LittleEndian.Uint64(p))
			continue
		case OpFreq:
			b, err := d.byte()
			if err != nil {
				return version, err
			}
			e.Freq = int(b)
			continue
		case OpIdle:
			n, err := d.plainLen()
			if err != nil {
				return version, err
			}
			if n > math.MaxInt64 {
				return version, d.errAt(at, nil, "invalid idle time")
			}
			e.Idle = int64(n)
			continue
		case OpEOF:
			if version >= 5 {
				want := d.crc
				d.sum = false
				p, err := d.fixed(8)
				if err != nil {
					return version, err
				}
				if got := binary.LittleEndian.Uint64(p); got != 0 && got != want {
					return version, d.errAt(at+1, nil, "wrong RDB checksum %016x, expected %016x", got, want)
				}
			}
			return version, nil
		case OpSelectDB:
			n, err := d.plainLen()
			if err != nil {
				return version, err
			}
			if n > math.MaxInt32 {
				return version, d.errAt(at, nil, "invalid database number %d", n)
			}
			e.DB = int(n)
			continue
		case OpResizeDB:
			if _, err := d.plainLen(); err != nil {
				return version, err
			}
			if _, err := d.plainLen(); err != nil {
				return version, err
			}
			continue
		case OpAux:
			k, err := d.string()
			if err != nil {
				return version, err
			}
			v, err := d.string()
			if err != nil {
				return version, err
			}
			if h.Aux != nil {
				if err := h.Aux(k, v); err != nil {
					return version, err
				}
			}
			continue
		case OpModuleAux:
			if err := d.skipModuleAux(); err != nil {
				return version, err
			}
			continue
		case OpFunction2:
			code, err := d.string()
			if err != nil {
				return version, err
			}
			if h.Function != nil {
				if err := h.Function(code); err != nil {
					return version, err
				}
			}
			continue
		case OpFunctionPre:
			return version, d.errAt(at, ErrUnsupported, "pre-release function format is not supported")
		}
		// A key: type, key, value.
		key, err := d.string()
		if err != nil {
			return version, err
		}
		v, err := d.value(op)
		e.Key, e.Value = key, v
		if err != nil {
			if errors.Is(err, ErrEmptyKey) {
				if h.Skipped != nil {
					if err := h.Skipped(&e, err); err != nil {
						return version, err
					}
				}
			} else {
				return version, err
			}
		} else if h.Entry != nil {
			if err := h.Entry(&e); err != nil {
				return version, err
			}
		}
		e = Entry{DB: e.DB, ExpireAt: -1, Idle: -1, Freq: -1}
	}
}

// skipModuleAux skips a MODULE_AUX record: module id, when-opcode, when,
// then module-serialized values up to their EOF opcode.
func (d *decoder) skipModuleAux() error {
	at := d.pos
	if _, err := d.plainLen(); err != nil { // module id
		return err
	}
	whenOp, err := d.plainLen()
	if err != nil {
		return err
	}
	if whenOp != moduleOpUInt {
		return d.errAt(at, nil, "invalid MODULE_AUX when-opcode %d", whenOp)
	}
	if _, err := d.plainLen(); err != nil {
		return err
	}
	for {
		opAt := d.pos
		op, err := d.plainLen()
		if err != nil {
			return err
		}
		switch op {
		case moduleOpEOF:
			return nil
		case moduleOpSInt, moduleOpUInt:
			_, err = d.plainLen()
		case moduleOpFloat:
			_, err = d.fixed(4)
		case moduleOpDouble:
			_, err = d.fixed(8)
		case moduleOpString:
			_, err = d.string()
		default:
			return d.errAt(opAt, nil, "invalid module data opcode %d", op)
		}
		if err != nil {
			return err
		}
	}
}

// Raw appends bytes already in the file's format (entries serialized by
// AppendEntry), counted in the checksum.
func (w *Writer) Raw(b []byte) {
	if len(b) > 64<<10 {
		w.flush()
		if w.err == nil {
			w.crc = CRC64(w.crc, b)
			_, w.err = w.w.Write(b)
		}
		return
	}
	w.buf = append(w.buf, b...)
	w.flushIfFull()
}

// AppendEntry appends one key's entry (its expiry, if any, then type, key
// and value) as Writer.Entry writes it.
func AppendEntry(dst, key []byte, v *Value, expireAt int64, compress bool) []byte {
	if expireAt != -1 {
		dst = append(dst, OpExpireTimeMS)
		dst = binary.LittleEndian.AppendUint64(dst, uint64(expireAt))
	}
	if key == nil {
		key = []byte{}
	}
	return appendEntry(dst, key, v, compress)
}

// AppendAux appends an auxiliary field record (OpAux, key, value), as
// Writer.Aux writes it, for Writer.Raw. Loaders skip aux fields they do
// not know (redis-server logs them at debug level), which is how Ordo
// carries what Redis has no type for (see engine's rdbaux.go).
func AppendAux(dst, key, value []byte, compress bool) []byte {
	dst = append(dst, OpAux)
	dst = appendString(dst, key, compress)
	return appendString(dst, value, compress)
}
