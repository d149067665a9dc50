package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index/tuple"
)

// FieldType is the type of one field of a composite index. Values given
// for a field are converted to it (and rejected with an error when they
// cannot be) before anything is written.
type FieldType int

// Field types.
const (
	// Int is a signed integer of any size: Go integers, *big.Int, or a
	// base-10 string ("56", "-7", "123456789012345678901234567890").
	// Decoded as int64, or *big.Int beyond int64.
	Int FieldType = iota + 1
	// Decimal is an exact decimal: tuple.Decimal, a decimal string
	// ("28.44", "-0.001", "1e400"), a Go integer, or a finite float64
	// (taken as its shortest decimal form). "28.440" and "28.44" are the
	// same value. Decoded as tuple.Decimal.
	Decimal
	// Float is a float64 (±Inf allowed, NaN rejected, -0 is 0): Go floats,
	// Go integers, or a string strconv.ParseFloat accepts. Decoded as float64.
	Float
	// String is a string (or []byte), ordered bytewise. Decoded as string.
	String
	// Bytes is a []byte (or string), ordered bytewise. Decoded as []byte.
	Bytes
)

func (t FieldType) String() string {
	switch t {
	case Int:
		return "int"
	case Decimal:
		return "decimal"
	case Float:
		return "float"
	case String:
		return "string"
	case Bytes:
		return "bytes"
	}
	return "FieldType(" + strconv.Itoa(int(t)) + ")"
}

// Field is one field of a composite index: a name (used in errors, and by
// a Collection as the name of the object field) and a type.
type Field struct {
	Name string
	Type FieldType
}

// ErrFieldType is wrapped by every error about a value that does not fit
// its field (wrong Go type, malformed number, NaN, wrong count).
var ErrFieldType = errors.New("index: bad field value")

func fieldErr(f Field, format string, a ...any) error {
	return fmt.Errorf("%w: field %q (%s): %s", ErrFieldType, f.Name, f.Type, fmt.Sprintf(format, a...))
}

// convert turns v into the tuple element stored for field f.
func (f Field) convert(v any) (any, error) {
	switch f.Type {
	case Int:
		switch x := v.(type) {
		case int, int8, int16, int32, int64, uint8, uint16, uint32:
			return x, nil
		case uint:
			return new(big.Int).SetUint64(uint64(x)), nil
		case uint64:
			return new(big.Int).SetUint64(x), nil
		case *big.Int:
			if x == nil {
				return nil, fieldErr(f, "nil *big.Int")
			}
			return x, nil
		case string:
			if n, err := strconv.ParseInt(x, 10, 64); err == nil {
				return n, nil
			}
			n, ok := new(big.Int).SetString(x, 10)
			if !ok || x == "" || x[0] == '+' {
				return nil, fieldErr(f, "malformed integer %q", x)
			}
			return n, nil
		}
	case Decimal:
		switch x := v.(type) {
		case tuple.Decimal:
			return x, nil
		case *tuple.Decimal:
			if x == nil {
				return nil, fieldErr(f, "nil *tuple.Decimal")
			}
			return *x, nil
		case string:
			d, err := tuple.ParseDecimal(x)
			if err != nil {
				return nil, fieldErr(f, "malformed decimal %q", x)
			}
			return d, nil
		case int:
			return tuple.DecimalFromInt(int64(x)), nil
		case int32:
			return tuple.DecimalFromInt(int64(x)), nil
		case int64:
			return tuple.DecimalFromInt(x), nil
		case *big.Int:
			if x == nil {
				return nil, fieldErr(f, "nil *big.Int")
			}
			return tuple.ParseDecimal(x.String())
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fieldErr(f, "%v is not a decimal", x)
			}
			return tuple.ParseDecimal(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case Float:
		var fl float64
		switch x := v.(type) {
		case float64:
			fl = x
		case float32:
			fl = float64(x)
		case int:
			fl = float64(x)
		case int32:
			fl = float64(x)
		case int64:
			fl = float64(x)
		case string:
			p, err := strconv.ParseFloat(x, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return nil, fieldErr(f, "malformed float %q", x)
			}
			fl = p
		default:
			return nil, fieldErr(f, "cannot index a %T", v)
		}
		if math.IsNaN(fl) {
			return nil, fieldErr(f, "NaN cannot be indexed")
		}
		if fl == 0 {
			fl = 0 // -0 is 0: equality queries on 0 must find it
		}
		return fl, nil
	case String:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
	case Bytes:
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	default:
		return nil, fmt.Errorf("index: field %q has no type", f.Name)
	}
	return nil, fieldErr(f, "cannot index a %T", v)
}

// decode turns a decoded tuple element back into the field's Go type.
func (f Field) decode(e any) (any, bool) {
	switch f.Type {
	case Int:
		switch e.(type) {
		case int64, *big.Int:
			return e, true
		}
	case Decimal:
		d, ok := e.(tuple.Decimal)
		return d, ok
	case Float:
		x, ok := e.(float64)
		return x, ok
	case String:
		s, ok := e.(string)
		return s, ok
	case Bytes:
		b, ok := e.([]byte)
		return b, ok
	}
	return nil, false
}

// Composite is a composite index (the "room:price:product id" index of the
// redis.io secondary-indexing page): ids ordered by several typed fields,
// queried by equality on a prefix of the fields and a range on the next.
//
// Layout, for an index called name (every key carries the hash tag
// {name}, so on Redis Cluster they share one slot and every update is one
// atomic script):
//
//	{name}:cidx      sorted set, every score 0; members are
//	                 tuple.Pack(field values..., id), so they sort by the
//	                 fields in order, then by id. No padding by hand:
//	                 "0056:0028.44:90" becomes Pack(56, 28.44, "90", id).
//	{name}:cidx:ids  hash id → its current member (the page's "index
//	                 content hash"): re-indexing or deleting an id never
//	                 needs its old field values.
//
// Put and Delete are one Lua script each (HGET old; ZREM old; ZADD new;
// HSET), atomic on every backend. A query is one ZRANGE BYLEX, Count one
// ZLEXCOUNT (O(log n)).
type Composite struct {
	b      backend.Backend
	Name   string
	Fields []Field
	zkey   string // the sorted set
	hkey   string // id → current member
}

// NewComposite returns the composite index called name over fields, in
// order (at least one).
func NewComposite(b backend.Backend, name string, fields ...Field) *Composite {
	return newComposite(b, name, "{"+name+"}:cidx", "{"+name+"}:cidx:ids", fields)
}

func newComposite(b backend.Backend, name, zkey, hkey string, fields []Field) *Composite {
	if len(fields) == 0 {
		panic("index: a composite index needs at least one field")
	}
	for _, f := range fields {
		if f.Type < Int || f.Type > Bytes {
			panic(fmt.Sprintf("index: field %q has no valid type", f.Name))
		}
	}
	return &Composite{b: b, Name: name, Fields: append([]Field(nil), fields...), zkey: zkey, hkey: hkey}
}

// Keys returns the sorted set and the id → member hash of the index.
func (c *Composite) Keys() (zset, ids string) { return c.zkey, c.hkey }

// Member returns the sorted-set member that indexes id under values (one
// per field, converted to the field types).
func (c *Composite) Member(id string, values ...any) (string, error) {
	if len(values) != len(c.Fields) {
		return "", fmt.Errorf("%w: index %q has %d fields, got %d values", ErrFieldType, c.Name, len(c.Fields), len(values))
	}
	elems := make([]any, 0, len(values)+1)
	for i, v := range values {
		e, err := c.Fields[i].convert(v)
		if err != nil {
			return "", err
		}
		elems = append(elems, e)
	}
	elems = append(elems, id)
	m, err := tuple.Pack(elems...)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrFieldType, err)
	}
	return string(m), nil
}

// swapScript keeps an object hash and its index entries in step; it is
// the one write path of Composite and Collection.
//
// KEYS: [object hash if ARGV[2] ~= "idx"], then per index its sorted set,
// and for composite indexes its id → member hash.
// ARGV: id, op ("put", "del" or "idx": indexes only), n, then n
// field/value pairs of the new object (op "put"), then per index a kind
// and a value: "n" score (ZADD score id), "n-" (ZREM id), "c" member
// (swap the id's entry for member), "c-" (drop the id's entry).
// Returns 1 if the object (op put/del) or the first index entry (op idx)
// existed before, else 0. Every key's type is checked before the first
// write: a key of the wrong type is a WRONGTYPE error and nothing changes.
var swapScript = backend.NewScript(`
local id, op = ARGV[1], ARGV[2]
local nf = tonumber(ARGV[3])
-- Check every key's type before the first write, so that a key of the
-- wrong type fails the script without leaving it half done.
local function check(key, t)
  local have = redis.call('TYPE', key)['ok']
  if have ~= 'none' and have ~= t then
    return redis.error_reply('WRONGTYPE ' .. key .. ' holds a ' .. have .. ', not a ' .. t)
  end
end
local a, k = 4, 1
if op ~= 'idx' then
  local e = check(KEYS[1], 'hash')
  if e then return e end
  k, a = 2, 4 + 2*nf
end
while a <= #ARGV do
  local e = check(KEYS[k], 'zset')
  if e then return e end
  if ARGV[a] == 'n' or ARGV[a] == 'n-' then
    k = k + 1
  else
    e = check(KEYS[k+1], 'hash')
    if e then return e end
    k = k + 2
  end
  a = a + 2
end
local existed = 0
a, k = 4, 1
if op ~= 'idx' then
  k = 2
  existed = redis.call('EXISTS', KEYS[1])
  if existed == 1 then redis.call('DEL', KEYS[1]) end
  local i = 0
  while i < nf do
    local args = {}
    local j = 0
    while j < 200 and i < nf do
      args[#args+1] = ARGV[a + 2*i]
      args[#args+1] = ARGV[a + 2*i + 1]
      i, j = i + 1, j + 1
    end
    redis.call('HSET', KEYS[1], unpack(args))
  end
  a = a + 2*nf
end
local first = true
while a <= #ARGV do
  local kind, val = ARGV[a], ARGV[a+1]
  a = a + 2
  if kind == 'n' then
    redis.call('ZADD', KEYS[k], val, id)
    k = k + 1
  elseif kind == 'n-' then
    redis.call('ZREM', KEYS[k], id)
    k = k + 1
  else
    local old = redis.call('HGET', KEYS[k+1], id)
    if op == 'idx' and first and old then existed = 1 end
    if old then redis.call('ZREM', KEYS[k], old) end
    if kind == 'c' then
      redis.call('ZADD', KEYS[k], 0, val)
      redis.call('HSET', KEYS[k+1], id, val)
    elseif old then
      redis.call('HDEL', KEYS[k+1], id)
    end
    k = k + 2
  end
  first = false
end
return existed
`)

// Put indexes id under values (one per field, in order), replacing its
// previous entry if any, atomically. Values are converted to the field
// types first: a value that does not fit returns an error wrapping
// ErrFieldType and writes nothing.
func (c *Composite) Put(ctx context.Context, id string, values ...any) error {
	m, err := c.Member(id, values...)
	if err != nil {
		return err
	}
	_, err = c.b.Eval(ctx, swapScript, []string{c.zkey, c.hkey}, id, "idx", 0, "c", m)
	return err
}

// Delete removes id's entry (found through the id → member hash) and
// reports whether there was one.
func (c *Composite) Delete(ctx context.Context, id string) (bool, error) {
	v, err := c.b.Eval(ctx, swapScript, []string{c.zkey, c.hkey}, id, "idx", 0, "c-", "")
	if err != nil {
		return false, err
	}
	n, err := asInt(v)
	return n == 1, err
}

// Entry is one result of a composite query: an id and its field values
// (decoded to the field types: int64 or *big.Int, tuple.Decimal, float64,
// string, []byte).
type Entry struct {
	ID     string
	Values []any
}

// Get returns the field values id is indexed under.
func (c *Composite) Get(ctx context.Context, id string) ([]any, bool, error) {
	v, err := c.b.Do(ctx, "HGET", c.hkey, id)
	if err != nil || v == nil {
		return nil, false, err
	}
	s, _ := asString(v)
	e, err := c.decodeMember(s)
	if err != nil {
		return nil, false, err
	}
	return e.Values, true, nil
}

// Len is the number of ids in the index.
func (c *Composite) Len(ctx context.Context) (int64, error) {
	v, err := c.b.Do(ctx, "ZCARD", c.zkey)
	if err != nil {
		return 0, err
	}
	return asInt(v)
}

func (c *Composite) decodeMember(m string) (Entry, error) {
	bad := func() (Entry, error) {
		return Entry{}, fmt.Errorf("index: %s holds a member that is not an entry of this index (%q)", c.zkey, m)
	}
	t, err := tuple.Unpack([]byte(m))
	if err != nil || len(t) != len(c.Fields)+1 {
		return bad()
	}
	id, ok := t[len(t)-1].(string)
	if !ok {
		return bad()
	}
	vals := make([]any, len(c.Fields))
	for i, f := range c.Fields {
		if vals[i], ok = f.decode(t[i]); !ok {
			return bad()
		}
	}
	return Entry{ID: id, Values: vals}, nil
}

// CompositeQuery selects entries of a composite index: equality on the
// first fields, then an optional range on the next one, an order and a
// page. Build one with Where; its methods modify and return it.
type CompositeQuery struct {
	eq           []any
	lo, hi       any
	hasLo, hasHi bool
	loEx, hiEx   bool
	rev          bool
	limit        bool
	offset       int64
	count        int64
}

// Where starts a query with field 0 = eq[0], field 1 = eq[1], ... (no
// values: the whole index): index.Where(56).Between("10", "30") is the
// page's "room 56, price from 10 to 30"; index.Where(44) is "room 44".
func Where(eq ...any) *CompositeQuery { return &CompositeQuery{eq: eq} }

// Between bounds the next field: lo ≤ value ≤ hi.
func (q *CompositeQuery) Between(lo, hi any) *CompositeQuery { return q.Min(lo).Max(hi) }

// Min sets an inclusive lower bound on the next field.
func (q *CompositeQuery) Min(v any) *CompositeQuery {
	q.lo, q.hasLo, q.loEx = v, true, false
	return q
}

// Above sets an exclusive lower bound on the next field.
func (q *CompositeQuery) Above(v any) *CompositeQuery {
	q.lo, q.hasLo, q.loEx = v, true, true
	return q
}

// Max sets an inclusive upper bound on the next field.
func (q *CompositeQuery) Max(v any) *CompositeQuery {
	q.hi, q.hasHi, q.hiEx = v, true, false
	return q
}

// Below sets an exclusive upper bound on the next field.
func (q *CompositeQuery) Below(v any) *CompositeQuery {
	q.hi, q.hasHi, q.hiEx = v, true, true
	return q
}

// Rev returns entries from the last in index order to the first.
func (q *CompositeQuery) Rev() *CompositeQuery {
	q.rev = true
	return q
}

// Limit returns at most count entries after skipping offset (count < 0: all after offset).
func (q *CompositeQuery) Limit(offset, count int64) *CompositeQuery {
	q.limit, q.offset, q.count = true, offset, count
	return q
}

// lexRange computes the ZRANGE BYLEX bounds of q. The entries whose
// fields start with the tuple P are exactly [P, P+"\xff"), since no
// encoded element starts with 0xFF.
func (c *Composite) lexRange(q *CompositeQuery) (lo, hi string, err error) {
	if q == nil {
		q = Where()
	}
	n := len(q.eq)
	if n > len(c.Fields) || (n == len(c.Fields) && (q.hasLo || q.hasHi)) {
		return "", "", fmt.Errorf("%w: index %q has %d fields, the query constrains %d", ErrFieldType, c.Name, len(c.Fields), n+1)
	}
	elems := make([]any, n, n+1)
	for i, v := range q.eq {
		if elems[i], err = c.Fields[i].convert(v); err != nil {
			return "", "", err
		}
	}
	p, err := tuple.Pack(elems...)
	if err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrFieldType, err)
	}
	lo, hi = "["+string(p), "("+string(p)+"\xff"
	if n == 0 {
		lo, hi = "-", "+"
	}
	with := func(v any) (string, error) {
		e, err := c.Fields[n].convert(v)
		if err != nil {
			return "", err
		}
		b, err := tuple.Append(append([]byte(nil), p...), e)
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrFieldType, err)
		}
		return string(b), nil
	}
	if q.hasLo {
		b, err := with(q.lo)
		if err != nil {
			return "", "", err
		}
		if q.loEx {
			lo = "(" + b + "\xff"
		} else {
			lo = "[" + b
		}
	}
	if q.hasHi {
		b, err := with(q.hi)
		if err != nil {
			return "", "", err
		}
		if q.hiEx {
			hi = "(" + b
		} else {
			hi = "(" + b + "\xff"
		}
	}
	return lo, hi, nil
}

// RangeCmd is the ZRANGE BYLEX command of q (for use in a pipeline or a
// Tx); decode its reply with DecodeRange.
func (c *Composite) RangeCmd(q *CompositeQuery) (backend.Cmd, error) {
	lo, hi, err := c.lexRange(q)
	if err != nil {
		return nil, err
	}
	cmd := backend.Cmd{"ZRANGE", c.zkey, lo, hi, "BYLEX"}
	if q != nil && q.rev {
		cmd = backend.Cmd{"ZRANGE", c.zkey, hi, lo, "BYLEX", "REV"}
	}
	if q != nil && q.limit {
		cmd = append(cmd, "LIMIT", q.offset, q.count)
	}
	return cmd, nil
}

// DecodeRange decodes the reply of a RangeCmd.
func (c *Composite) DecodeRange(reply any) ([]Entry, error) {
	ms, err := asStrings(reply)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(ms))
	for i, m := range ms {
		if out[i], err = c.decodeMember(m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Find returns the entries q selects, in index order (or reversed).
func (c *Composite) Find(ctx context.Context, q *CompositeQuery) ([]Entry, error) {
	cmd, err := c.RangeCmd(q)
	if err != nil {
		return nil, err
	}
	v, err := c.b.Do(ctx, cmd...)
	if err != nil {
		return nil, err
	}
	return c.DecodeRange(v)
}

// IDs returns the ids q selects, in index order (or reversed).
func (c *Composite) IDs(ctx context.Context, q *CompositeQuery) ([]string, error) {
	es, err := c.Find(ctx, q)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids, nil
}

// Count returns how many entries q's equalities and bounds select
// (ZLEXCOUNT, O(log n); order and page do not apply).
func (c *Composite) Count(ctx context.Context, q *CompositeQuery) (int64, error) {
	lo, hi, err := c.lexRange(q)
	if err != nil {
		return 0, err
	}
	v, err := c.b.Do(ctx, "ZLEXCOUNT", c.zkey, lo, hi)
	if err != nil {
		return 0, err
	}
	return asInt(v)
}

// String describes the index: "rooms(room int, price decimal, product string)".
func (c *Composite) String() string {
	parts := make([]string, len(c.Fields))
	for i, f := range c.Fields {
		parts[i] = f.Name + " " + f.Type.String()
	}
	return c.Name + "(" + strings.Join(parts, ", ") + ")"
}
