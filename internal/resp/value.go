package resp

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Kind is the type of a reply.
type Kind byte

// Reply kinds, named after their RESP3 types.
const (
	KindSimple   Kind = '+'
	KindError    Kind = '-'
	KindInt      Kind = ':'
	KindBulk     Kind = '$'
	KindArray    Kind = '*'
	KindNull     Kind = '_'
	KindDouble   Kind = ','
	KindBool     Kind = '#'
	KindBigNum   Kind = '('
	KindVerbatim Kind = '='
	KindMap      Kind = '%'
	KindSet      Kind = '~'
	KindPush     Kind = '>'
	KindAttr     Kind = '|'
)

// Value is one parsed reply. Str holds simple, error, bulk, verbatim,
// double and big-number text; Int holds integers and booleans (0/1);
// Elems holds array, set and push elements, and map keys and values
// alternately. A RESP2 null bulk or null array has Kind KindNull.
type Value struct {
	Kind  Kind
	Str   string
	Int   int64
	Elems []Value
}

// IsNull reports whether v is a null of any form.
func (v Value) IsNull() bool { return v.Kind == KindNull }

// String renders v roughly as redis-cli does, for messages and tests.
func (v Value) String() string {
	var sb strings.Builder
	v.format(&sb, "")
	return sb.String()
}

func (v Value) format(sb *strings.Builder, indent string) {
	switch v.Kind {
	case KindNull:
		sb.WriteString("(nil)")
	case KindInt:
		fmt.Fprintf(sb, "(integer) %d", v.Int)
	case KindBool:
		if v.Int != 0 {
			sb.WriteString("(true)")
		} else {
			sb.WriteString("(false)")
		}
	case KindError:
		sb.WriteString("(error) " + v.Str)
	case KindSimple:
		sb.WriteString(v.Str)
	case KindDouble:
		sb.WriteString("(double) " + v.Str)
	case KindArray, KindSet, KindPush, KindMap:
		if len(v.Elems) == 0 {
			sb.WriteString("(empty array)")
			return
		}
		for i, e := range v.Elems {
			if i > 0 {
				sb.WriteString("\n" + indent)
			}
			fmt.Fprintf(sb, "%d) ", i+1)
			e.format(sb, indent+"   ")
		}
	default:
		sb.WriteString(strconv.Quote(v.Str))
	}
}

// ErrMalformedReply is returned for bytes that are not a valid reply.
var ErrMalformedReply = errors.New("resp: malformed reply")

// ParseReply parses one complete reply from b and returns it with the
// number of bytes consumed. It returns ErrIncomplete if b ends early.
func ParseReply(b []byte) (Value, int, error) {
	p := &replyParser{b: b}
	v, err := p.parse()
	return v, p.pos, err
}

type replyParser struct {
	b   []byte
	pos int
}

func (p *replyParser) line() (string, error) {
	for i := p.pos; i+1 < len(p.b); i++ {
		if p.b[i] == '\r' && p.b[i+1] == '\n' {
			s := string(p.b[p.pos:i])
			p.pos = i + 2
			return s, nil
		}
	}
	return "", ErrIncomplete
}

func (p *replyParser) parse() (Value, error) {
	if p.pos >= len(p.b) {
		return Value{}, ErrIncomplete
	}
	k := Kind(p.b[p.pos])
	p.pos++
	ln, err := p.line()
	if err != nil {
		return Value{}, err
	}
	switch k {
	case KindSimple, KindError, KindDouble, KindBigNum:
		return Value{Kind: k, Str: ln}, nil
	case KindNull:
		return Value{Kind: KindNull}, nil
	case KindBool:
		if ln == "t" {
			return Value{Kind: k, Int: 1}, nil
		}
		return Value{Kind: k}, nil
	case KindInt:
		n, err := strconv.ParseInt(ln, 10, 64)
		if err != nil {
			return Value{}, ErrMalformedReply
		}
		return Value{Kind: k, Int: n}, nil
	case KindBulk, KindVerbatim, '!':
		n, err := strconv.Atoi(ln)
		if err != nil {
			return Value{}, ErrMalformedReply
		}
		if n < 0 {
			return Value{Kind: KindNull}, nil
		}
		if len(p.b)-p.pos < n+2 {
			return Value{}, ErrIncomplete
		}
		s := string(p.b[p.pos : p.pos+n])
		p.pos += n + 2
		if k == '!' {
			return Value{Kind: KindError, Str: s}, nil
		}
		if k == KindVerbatim && len(s) >= 4 {
			s = s[4:]
		}
		return Value{Kind: k, Str: s}, nil
	case KindArray, KindSet, KindPush, KindMap, KindAttr:
		n, err := strconv.Atoi(ln)
		if err != nil {
			return Value{}, ErrMalformedReply
		}
		if n < 0 {
			return Value{Kind: KindNull}, nil
		}
		if k == KindMap || k == KindAttr {
			n *= 2
		}
		v := Value{Kind: k, Elems: make([]Value, 0, min(n, 1024))}
		for i := 0; i < n; i++ {
			e, err := p.parse()
			if err != nil {
				return Value{}, err
			}
			v.Elems = append(v.Elems, e)
		}
		if k == KindAttr { // attributes precede the real reply
			return p.parse()
		}
		return v, nil
	}
	return Value{}, ErrMalformedReply
}

// ReadReply reads one reply from a buffered stream (for clients and tests).
func ReadReply(r *bufio.Reader) (Value, error) {
	raw, err := ReadRawReply(r, nil)
	if err != nil {
		return Value{}, err
	}
	v, _, err := ParseReply(raw)
	return v, err
}

// ReadRawReply reads the bytes of one complete reply, appended to dst.
func ReadRawReply(r *bufio.Reader, dst []byte) ([]byte, error) {
	ln, err := r.ReadSlice('\n')
	if err != nil {
		return dst, err
	}
	if len(ln) < 3 || ln[len(ln)-2] != '\r' {
		return dst, ErrMalformedReply
	}
	dst = append(dst, ln...)
	k := Kind(ln[0])
	body := string(ln[1 : len(ln)-2])
	switch k {
	case KindBulk, KindVerbatim, '!':
		n, err := strconv.Atoi(body)
		if err != nil {
			return dst, ErrMalformedReply
		}
		if n < 0 {
			return dst, nil
		}
		start := len(dst)
		dst = append(dst, make([]byte, n+2)...)
		if _, err := ioReadFull(r, dst[start:]); err != nil {
			return dst, err
		}
	case KindArray, KindSet, KindPush, KindMap, KindAttr:
		n, err := strconv.Atoi(body)
		if err != nil {
			return dst, ErrMalformedReply
		}
		if k == KindMap || k == KindAttr {
			n *= 2
		}
		for i := 0; i < n; i++ {
			if dst, err = ReadRawReply(r, dst); err != nil {
				return dst, err
			}
		}
		if k == KindAttr {
			return ReadRawReply(r, dst)
		}
	}
	return dst, nil
}

func ioReadFull(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// AppendCommand appends args as a RESP multibulk request.
func AppendCommand(dst []byte, args ...string) []byte {
	return appendCommand(dst, args)
}

// AppendCommandBytes is AppendCommand for arguments already in bytes (a
// command as the engine, the log and the replication stream hold it).
func AppendCommandBytes(dst []byte, args [][]byte) []byte {
	return appendCommand(dst, args)
}

func appendCommand[S ~string | ~[]byte](dst []byte, args []S) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}
