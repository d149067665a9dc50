package index

import (
	"context"
	"fmt"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index/tuple"
)

// DecimalMap is a sorted map from arbitrary-precision decimals to lists
// of strings (Java's TreeMap<BigDecimal, List<String>> of the BigDecimal
// article), exact for any precision and magnitude: negative numbers,
// integers without a fraction, ranges that cross integer parts, integer
// parts beyond 2^53. "25500.10" and "25500.1" are the same key.
//
// Layout: one sorted set (key "{name}:dmap", every score 0) whose members
// are the tuples (decimal, seq, value) in index/tuple's order-preserving
// encoding, so members sort by decimal and then by insertion; seq comes
// from INCR on "{name}:seq", which keeps duplicates ("user2, user3,
// user2") and their order. Get and Range are one ZRANGE BYLEX each: a
// range returning k keys costs one round trip, not 1 + k as in the
// article's two-level layout. Add is INCR then ZADD: concurrent writers
// never overwrite each other, since every entry is a distinct member.
type DecimalMap struct {
	b            backend.Backend
	Name         string
	zkey, seqKey string
}

// NewDecimalMap returns the map called name (its keys share the hash tag {name}).
func NewDecimalMap(b backend.Backend, name string) *DecimalMap {
	return &DecimalMap{b: b, Name: name, zkey: "{" + name + "}:dmap", seqKey: "{" + name + "}:seq"}
}

// DecimalEntry is one key of the map with its values in insertion order.
type DecimalEntry struct {
	Key    tuple.Decimal
	Values []string
}

func parseDec(s string) (tuple.Decimal, error) { return tuple.ParseDecimal(s) }

// Add appends value to the list of key (a decimal string such as "25500.12346").
func (m *DecimalMap) Add(ctx context.Context, key, value string) error {
	d, err := parseDec(key)
	if err != nil {
		return err
	}
	return m.AddDecimal(ctx, d, value)
}

// AddDecimal is Add with a parsed key.
func (m *DecimalMap) AddDecimal(ctx context.Context, d tuple.Decimal, value string) error {
	v, err := m.b.Do(ctx, "INCR", m.seqKey)
	if err != nil {
		return err
	}
	seq, err := asInt(v)
	if err != nil {
		return err
	}
	member, err := tuple.Pack(d, seq, value)
	if err != nil {
		return err
	}
	_, err = m.b.Do(ctx, "ZADD", m.zkey, 0, string(member))
	return err
}

// Get returns the values of key in insertion order (nil if absent).
func (m *DecimalMap) Get(ctx context.Context, key string) ([]string, error) {
	d, err := parseDec(key)
	if err != nil {
		return nil, err
	}
	p := string(tuple.MustPack(d))
	entries, err := m.lex(ctx, "["+p, "("+p+"\xff", 0)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	return entries[0].Values, nil
}

// Delete removes key and all its values; it reports whether key existed.
func (m *DecimalMap) Delete(ctx context.Context, key string) (bool, error) {
	d, err := parseDec(key)
	if err != nil {
		return false, err
	}
	p := string(tuple.MustPack(d))
	v, err := m.b.Do(ctx, "ZREMRANGEBYLEX", m.zkey, "["+p, "("+p+"\xff")
	if err != nil {
		return false, err
	}
	n, err := asInt(v)
	return n > 0, err
}

// DecimalBound is one end of a range: a decimal string, inclusive unless
// Exclusive. The zero DecimalBound (Value "") is unbounded.
type DecimalBound struct {
	Value     string
	Exclusive bool
}

// Incl and Excl build bounds.
func Incl(v string) DecimalBound { return DecimalBound{Value: v} }

// Excl is an exclusive bound.
func Excl(v string) DecimalBound { return DecimalBound{Value: v, Exclusive: true} }

// Range returns the keys between from and to, in increasing order, each
// with its values; limit > 0 caps the number of values read.
func (m *DecimalMap) Range(ctx context.Context, from, to DecimalBound, limit int64) ([]DecimalEntry, error) {
	lo, hi := "-", "+"
	if from.Value != "" {
		d, err := parseDec(from.Value)
		if err != nil {
			return nil, err
		}
		p := string(tuple.MustPack(d))
		if from.Exclusive {
			lo = "[" + p + "\xff"
		} else {
			lo = "[" + p
		}
	}
	if to.Value != "" {
		d, err := parseDec(to.Value)
		if err != nil {
			return nil, err
		}
		p := string(tuple.MustPack(d))
		if to.Exclusive {
			hi = "(" + p
		} else {
			hi = "(" + p + "\xff"
		}
	}
	return m.lex(ctx, lo, hi, limit)
}

func (m *DecimalMap) lex(ctx context.Context, lo, hi string, limit int64) ([]DecimalEntry, error) {
	cmd := backend.Cmd{"ZRANGE", m.zkey, lo, hi, "BYLEX"}
	if limit > 0 {
		cmd = append(cmd, "LIMIT", 0, limit)
	}
	v, err := m.b.Do(ctx, cmd...)
	if err != nil {
		return nil, err
	}
	members, err := asStrings(v)
	if err != nil {
		return nil, err
	}
	var out []DecimalEntry
	for _, mem := range members {
		t, err := tuple.Unpack([]byte(mem))
		if err != nil || len(t) != 3 {
			return nil, fmt.Errorf("index: %s holds a member that is not a decimal-map entry", m.zkey)
		}
		d, ok := t[0].(tuple.Decimal)
		val, ok2 := t[2].(string)
		if !ok || !ok2 {
			return nil, fmt.Errorf("index: %s holds a member that is not a decimal-map entry", m.zkey)
		}
		if n := len(out); n > 0 && out[n-1].Key == d {
			out[n-1].Values = append(out[n-1].Values, val)
		} else {
			out = append(out, DecimalEntry{Key: d, Values: []string{val}})
		}
	}
	return out, nil
}
