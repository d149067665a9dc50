package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/ordo-db/ordo/internal/resp"
)

// LineError is a text line that cannot be sent (unbalanced quotes). The
// loader reports it, counts it as an error and goes on with the next line.
type LineError struct {
	Line int64 // 1-based input line (counting RESP header lines too)
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// InputError is input that cannot be read as commands (malformed RESP):
// the loader stops reading there.
type InputError struct {
	Line int64
	Msg  string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("ERR Protocol error in input at line %d: %s", e.Line, e.Msg)
}

// Encoder reads commands, RESP or text lines, and writes them as RESP.
type Encoder struct {
	br   *bufio.Reader
	line int64
	args [][]byte
	buf  []byte
	num  [20]byte
	cmd  []byte
}

// NewEncoder reads commands from r.
func NewEncoder(r io.Reader) *Encoder {
	return &Encoder{br: bufio.NewReaderSize(r, 64<<10)}
}

const maxBulk = 512 << 20 // Redis's proto-max-bulk-len default

// Next writes the next command to w as RESP and returns the number of
// commands written: 1, or 0 for an empty line or an empty RESP array
// (which the server ignores without a reply). It returns io.EOF at the
// end of the input, a *LineError for a text line it skipped, an
// *InputError for malformed RESP, and w's errors.
func (e *Encoder) Next(w *bufio.Writer) (int, error) {
	c, err := e.br.ReadByte()
	if err != nil {
		return 0, err
	}
	e.br.UnreadByte()
	if c == '*' {
		return e.multibulk(w)
	}
	return e.inline(w)
}

func (e *Encoder) readLine() ([]byte, error) {
	ln, err := e.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		e.buf = append(e.buf[:0], ln...)
		for err == bufio.ErrBufferFull {
			ln, err = e.br.ReadSlice('\n')
			e.buf = append(e.buf, ln...)
		}
		ln = e.buf
	}
	if err == io.EOF && len(ln) > 0 {
		err = nil
	}
	if err == nil {
		e.line++
	}
	return ln, err
}

func (e *Encoder) inline(w *bufio.Writer) (int, error) {
	ln, err := e.readLine()
	if err != nil {
		return 0, err
	}
	ln = bytes.TrimRight(ln, "\r\n")
	args, ok := resp.SplitArgs(ln, e.args[:0])
	e.args = args[:0]
	if !ok {
		return 0, &LineError{Line: e.line, Msg: "ERR Protocol error: unbalanced quotes in request"}
	}
	if len(args) == 0 {
		return 0, nil
	}
	w.WriteByte('*')
	w.Write(strconv.AppendInt(e.hdr(), int64(len(args)), 10))
	w.WriteString("\r\n")
	for _, a := range args {
		w.WriteByte('$')
		w.Write(strconv.AppendInt(e.hdr(), int64(len(a)), 10))
		w.WriteString("\r\n")
		w.Write(a)
		_, err = w.WriteString("\r\n")
	}
	return 1, err
}

func (e *Encoder) hdr() []byte { return e.num[:0] }

func (e *Encoder) header(prefix byte) (int64, []byte, error) {
	ln, err := e.readLine()
	if err == io.EOF {
		return 0, nil, &InputError{Line: e.line + 1, Msg: "unexpected end of input"}
	}
	if err != nil {
		return 0, nil, err
	}
	if len(ln) < 3 || ln[len(ln)-2] != '\r' || ln[0] != prefix {
		if prefix == '$' {
			return 0, nil, &InputError{Line: e.line, Msg: fmt.Sprintf("expected '$', got '%s'", printable(ln[:1]))}
		}
		return 0, nil, &InputError{Line: e.line, Msg: "invalid multibulk length"}
	}
	n, err := strconv.ParseInt(string(ln[1:len(ln)-2]), 10, 64)
	if err != nil {
		if prefix == '$' {
			return 0, nil, &InputError{Line: e.line, Msg: "invalid bulk length"}
		}
		return 0, nil, &InputError{Line: e.line, Msg: "invalid multibulk length"}
	}
	return n, ln, nil
}

func printable(b []byte) string {
	if len(b) == 0 || b[0] < ' ' || b[0] > '~' {
		return fmt.Sprintf("\\x%02x", b)
	}
	return string(b)
}

func (e *Encoder) multibulk(w *bufio.Writer) (int, error) {
	n, ln, err := e.header('*')
	if err != nil {
		return 0, err
	}
	if n > 1<<31-1 {
		return 0, &InputError{Line: e.line, Msg: "invalid multibulk length"}
	}
	if n <= 0 {
		return 0, nil // ignored by the server, no reply
	}
	// The command is gathered whole before it is written, so that
	// malformed input never leaves half a command on the connection
	// (except after a bulk larger than the read buffer, which is
	// streamed).
	e.cmd = append(e.cmd[:0], ln...)
	for i := int64(0); i < n; i++ {
		size, ln, err := e.header('$')
		if err != nil {
			return 0, err
		}
		if size < 0 || size > maxBulk {
			return 0, &InputError{Line: e.line, Msg: "invalid bulk length"}
		}
		e.cmd = append(e.cmd, ln...)
		if size <= int64(e.br.Size()) {
			data, err := e.br.Peek(int(size))
			if err != nil {
				if err == io.EOF {
					return 0, &InputError{Line: e.line, Msg: "unexpected end of input"}
				}
				return 0, err
			}
			e.line += int64(bytes.Count(data, []byte{'\n'}))
			e.cmd = append(e.cmd, data...)
			e.br.Discard(int(size))
		} else {
			if _, err := w.Write(e.cmd); err != nil {
				return 0, err
			}
			e.cmd = e.cmd[:0]
			if _, err := io.CopyN(w, e.br, size); err != nil {
				if err == io.EOF {
					return 0, &InputError{Line: e.line, Msg: "unexpected end of input"}
				}
				return 0, err
			}
		}
		var crlf [2]byte
		if _, err := io.ReadFull(e.br, crlf[:]); err != nil || crlf != [2]byte{'\r', '\n'} {
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				return 0, err
			}
			return 0, &InputError{Line: e.line + 1, Msg: "bulk string not followed by CRLF"}
		}
		e.line++
		e.cmd = append(e.cmd, crlf[:]...)
	}
	if _, err := w.Write(e.cmd); err != nil {
		return 0, err
	}
	if cap(e.cmd) > 1<<20 {
		e.cmd = nil
	}
	return 1, nil
}
