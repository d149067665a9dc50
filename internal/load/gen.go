package load

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/resp"
)

// A Template is one command with {field} placeholders, such as
// "HSET user:{id} name {name} age {age}" or "SET {0} {1}". It is split
// into arguments first (quoted as redis-cli understands: "a b" is one
// argument), then each argument is filled in, so a value with spaces,
// CRLF or any byte stays one argument. {name} is a CSV header field or a
// JSON member ({a.b} reaches into nested objects); {0}, {1} are columns
// by position (CSV, or JSON arrays). {{ and }} are literal braces.
type Template struct {
	src  string
	args [][]piece
}

type piece struct {
	lit   string
	field string
	isRef bool
}

// ParseTemplate parses a command template.
func ParseTemplate(s string) (*Template, error) {
	raw, ok := resp.SplitArgs([]byte(s), nil)
	if !ok {
		return nil, fmt.Errorf("template %q: unbalanced quotes", s)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("template %q: empty command", s)
	}
	t := &Template{src: s}
	for _, a := range raw {
		var ps []piece
		var lit []byte
		for i := 0; i < len(a); i++ {
			switch c := a[i]; {
			case c == '{' && i+1 < len(a) && a[i+1] == '{':
				lit = append(lit, '{')
				i++
			case c == '}' && i+1 < len(a) && a[i+1] == '}':
				lit = append(lit, '}')
				i++
			case c == '{':
				end := bytes.IndexByte(a[i+1:], '}')
				if end < 0 {
					return nil, fmt.Errorf("template %q: unclosed {", s)
				}
				name := string(a[i+1 : i+1+end])
				if name == "" {
					return nil, fmt.Errorf("template %q: empty {}", s)
				}
				if len(lit) > 0 {
					ps = append(ps, piece{lit: string(lit)})
					lit = lit[:0]
				}
				ps = append(ps, piece{field: name, isRef: true})
				i += end + 1
			case c == '}':
				return nil, fmt.Errorf("template %q: unmatched } (write }} for a brace)", s)
			default:
				lit = append(lit, c)
			}
		}
		if len(lit) > 0 || len(ps) == 0 {
			ps = append(ps, piece{lit: string(lit)})
		}
		t.args = append(t.args, ps)
	}
	return t, nil
}

// String returns the template's source.
func (t *Template) String() string { return t.src }

// Fields lists the fields the template refers to.
func (t *Template) Fields() []string {
	var out []string
	for _, a := range t.args {
		for _, p := range a {
			if p.isRef {
				out = append(out, p.field)
			}
		}
	}
	return out
}

// Record is one input record.
type Record interface {
	// Field returns the value of a named or numbered field.
	Field(name string) ([]byte, bool)
}

// MissingFieldError is a record without a field a template needs.
type MissingFieldError struct {
	Record int64 // 1-based record number
	Field  string
}

func (e *MissingFieldError) Error() string {
	return fmt.Sprintf("record %d: no field %q", e.Record, e.Field)
}

// Append appends the command for rec to dst as RESP.
func (t *Template) Append(dst []byte, rec Record) ([]byte, error) {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(t.args)), 10)
	dst = append(dst, "\r\n"...)
	var val []byte
	for _, a := range t.args {
		if len(a) == 1 && !a[0].isRef {
			dst = appendBulk(dst, a[0].lit)
			continue
		}
		val = val[:0]
		for _, p := range a {
			if !p.isRef {
				val = append(val, p.lit...)
				continue
			}
			v, ok := rec.Field(p.field)
			if !ok {
				return dst, &MissingFieldError{Field: p.field}
			}
			val = append(val, v...)
		}
		dst = appendBulk(dst, string(val))
	}
	return dst, nil
}

func appendBulk(dst []byte, s string) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(s)), 10)
	dst = append(dst, "\r\n"...)
	dst = append(dst, s...)
	return append(dst, "\r\n"...)
}

// ---- records ----

type csvRecord struct {
	header map[string]int
	fields []string
}

func (r *csvRecord) Field(name string) ([]byte, bool) {
	if i, ok := r.header[name]; ok {
		if i < len(r.fields) {
			return []byte(r.fields[i]), true
		}
		return nil, false
	}
	if i, err := strconv.Atoi(name); err == nil && i >= 0 && i < len(r.fields) {
		return []byte(r.fields[i]), true
	}
	return nil, false
}

type jsonRecord struct{ v any }

func (r jsonRecord) Field(name string) ([]byte, bool) {
	cur := r.v
	if m, ok := cur.(map[string]any); ok {
		if v, ok := m[name]; ok { // a member whose name contains dots
			return jsonText(v)
		}
	}
	for _, part := range strings.Split(name, ".") {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[part]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return jsonText(cur)
}

// jsonText gives a JSON value as an argument: strings as they are,
// numbers as written in the input, true/false, objects and arrays as
// compact JSON. null is a missing field.
func jsonText(v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return nil, false
	case string:
		return []byte(x), true
	case json.Number:
		return []byte(x), true
	case bool:
		return []byte(strconv.FormatBool(x)), true
	}
	b, err := json.Marshal(v)
	return b, err == nil
}

// ---- generator ----

// GenOptions configure Generate.
type GenOptions struct {
	Format    string // "csv" or "jsonl"; "" guesses from the first byte ('{' or '[' is JSON)
	Comma     rune   // CSV separator (default ',')
	NoHeader  bool   // CSV without a header row: fields are {0}, {1}, ...
	Templates []*Template
	Missing   string // a record without a needed field: "error" (default), "skip" the record, or "empty" value
}

// GenResult counts what Generate wrote.
type GenResult struct {
	Records  int64
	Commands int64
	Skipped  int64
}

// Generate reads records from in and writes the templates' commands for
// each record to out as RESP, in template order.
func Generate(in io.Reader, out io.Writer, o GenOptions) (GenResult, error) {
	var res GenResult
	if len(o.Templates) == 0 {
		return res, errors.New("no command template")
	}
	br := bufio.NewReaderSize(in, 64<<10)
	format := o.Format
	if format == "" {
		format = "csv"
		for {
			c, err := br.ReadByte()
			if err != nil {
				break
			}
			if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
				continue
			}
			br.UnreadByte()
			if c == '{' || c == '[' {
				format = "jsonl"
			}
			break
		}
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	var buf []byte
	emit := func(rec Record) error {
		res.Records++
		buf = buf[:0]
		for _, t := range o.Templates {
			var err error
			buf, err = t.Append(buf, fillMissing{rec, o.Missing == "empty"})
			if err != nil {
				var mf *MissingFieldError
				if errors.As(err, &mf) {
					mf.Record = res.Records
					if o.Missing == "skip" {
						res.Skipped++
						return nil
					}
				}
				return err
			}
		}
		res.Commands += int64(len(o.Templates))
		_, err := bw.Write(buf)
		return err
	}
	switch format {
	case "csv":
		r := &csvReader{br: br, comma: byte(','), line: 1}
		if o.Comma != 0 {
			if o.Comma >= 0x80 {
				return res, fmt.Errorf("CSV separator must be an ASCII character")
			}
			r.comma = byte(o.Comma)
		}
		rec := &csvRecord{}
		if !o.NoHeader {
			h, err := r.Read()
			if err == io.EOF {
				return res, bw.Flush()
			}
			if err != nil {
				return res, err
			}
			rec.header = make(map[string]int, len(h))
			for i, name := range h {
				rec.header[name] = i
			}
		}
		for {
			f, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return res, err
			}
			rec.fields = f
			if err := emit(rec); err != nil {
				return res, err
			}
		}
	case "jsonl", "json", "ndjson":
		dec := json.NewDecoder(br)
		dec.UseNumber()
		for {
			var v any
			err := dec.Decode(&v)
			if err == io.EOF {
				break
			}
			if err != nil {
				return res, fmt.Errorf("record %d: %w", res.Records+1, err)
			}
			if err := emit(jsonRecord{v}); err != nil {
				return res, err
			}
		}
	default:
		return res, fmt.Errorf("unknown format %q (csv or jsonl)", format)
	}
	return res, bw.Flush()
}

type fillMissing struct {
	Record
	empty bool
}

func (f fillMissing) Field(name string) ([]byte, bool) {
	v, ok := f.Record.Field(name)
	if !ok && f.empty {
		return nil, true
	}
	return v, ok
}

// csvReader reads CSV exactly as Python's csv module does with the
// default (excel) dialect on a file opened with newline=” and encoding
// 'utf-8-sig' (itself RFC 4180 plus its tolerance of loose quoting):
//   - a quoted field keeps every byte between its quotes: CR, LF, CRLF,
//     separators, invalid UTF-8; "" is one quote;
//   - outside quotes, LF, CR and CRLF each end a record;
//   - a quote inside an unquoted field is an ordinary byte, and bytes after
//     a closing quote are appended to the field (`"ab"c` is abc), as
//     Python's non-strict reader;
//   - a UTF-8 byte order mark at the very start is skipped (PowerShell's
//     Export-Csv writes one before its quoted header).
//
// Two differences, both to lose nothing silently: blank lines are no
// records (Python's reader yields [] for them, which DictReader skips,
// but DictReader would take a blank first line as an empty header), and
// a quoted field still open at the end of the input is an error with its
// line, where Python's non-strict reader returns the partial field.
type csvReader struct {
	br      *bufio.Reader
	comma   byte
	line    int64
	buf     []byte
	started bool
}

type csvState uint8

const (
	csvStartRecord csvState = iota
	csvStartField
	csvInField
	csvInQuoted
	csvQuoteInQuoted
)

// Read returns the next record; its strings do not share memory.
func (r *csvReader) Read() ([]string, error) {
	if !r.started {
		r.started = true
		if b, _ := r.br.Peek(3); len(b) == 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
			r.br.Discard(3)
		}
	}
	var fields []string
	start := r.line
	r.buf = r.buf[:0]
	save := func() {
		fields = append(fields, string(r.buf))
		r.buf = r.buf[:0]
	}
	state := csvStartRecord
	for {
		c, err := r.br.ReadByte()
		if err != nil {
			if err != io.EOF {
				return nil, err
			}
			switch state {
			case csvStartRecord:
				return nil, io.EOF
			case csvInQuoted:
				return nil, fmt.Errorf("line %d: unterminated quoted field", start)
			}
			save() // the last line has no line end
			return fields, nil
		}
		if c == '\n' || c == '\r' {
			if c == '\r' {
				if b, _ := r.br.Peek(1); len(b) == 1 && b[0] == '\n' {
					if state == csvInQuoted {
						r.buf = append(r.buf, c)
					}
					c, _ = r.br.ReadByte()
				}
			}
			r.line++
			switch state {
			case csvStartRecord:
				start = r.line // a blank line is no record
				continue
			case csvInQuoted:
				r.buf = append(r.buf, c)
				continue
			}
			save()
			return fields, nil
		}
		switch state {
		case csvStartRecord, csvStartField:
			switch c {
			case '"':
				state = csvInQuoted
			case r.comma:
				save()
				state = csvStartField
			default:
				r.buf = append(r.buf, c)
				state = csvInField
			}
		case csvInField:
			if c == r.comma {
				save()
				state = csvStartField
			} else {
				r.buf = append(r.buf, c)
			}
		case csvInQuoted:
			if c == '"' {
				state = csvQuoteInQuoted
			} else {
				r.buf = append(r.buf, c)
			}
		case csvQuoteInQuoted:
			switch c {
			case '"':
				r.buf = append(r.buf, c)
				state = csvInQuoted
			case r.comma:
				save()
				state = csvStartField
			default:
				r.buf = append(r.buf, c)
				state = csvInField
			}
		}
	}
}
