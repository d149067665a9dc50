package index

import (
	"context"
	"fmt"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index/tuple"
)

// OrderedMap is an ordered key-value map kept in one sorted set, every
// member with score 0 (the lexicographic-index pattern): the member is
// the tuple (key, value), order-preservingly encoded (index/tuple), so
// members sort by key. Keys and values are binary-safe: a ':' or '\x00'
// inside never collides with anything, because each encoded element is
// self-delimiting. The entries of key k are exactly the members in
// [Pack(k), Pack(k)+"\xff"): an element never starts with 0xFF, so no
// other key's entries fall in that range (not even those of k+"\x00..."). Get, Put and Delete are one round trip each; Range and
// Prefix return entries in key order with ZRANGE BYLEX.
type OrderedMap struct {
	b   backend.Backend
	Key string
}

// NewOrderedMap returns the map stored in the sorted set key.
func NewOrderedMap(b backend.Backend, key string) *OrderedMap { return &OrderedMap{b: b, Key: key} }

// KV is one entry.
type KV struct {
	Key   string
	Value string
}

func encKey(k string) string { return string(tuple.MustPack(k)) }

// prefixEnd returns the smallest byte string greater than every string
// that starts with p (p with its last non-0xFF byte incremented).
func prefixEnd(p string) string {
	b := []byte(p)
	for len(b) > 0 && b[len(b)-1] == 0xff {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return "\xff\xff\xff\xff" // no upper bound expressible: effectively "+"
	}
	b[len(b)-1]++
	return string(b)
}

// PutCmds are the commands that set key to value (for use in a Tx).
func (m *OrderedMap) PutCmds(key, value string) []backend.Cmd {
	ek := encKey(key)
	return []backend.Cmd{
		{"ZREMRANGEBYLEX", m.Key, "[" + ek, "(" + ek + "\xff"},
		{"ZADD", m.Key, 0, string(tuple.MustPack(key, []byte(value)))},
	}
}

// Put sets key to value atomically.
func (m *OrderedMap) Put(ctx context.Context, key, value string) error {
	res, err := m.b.Tx(ctx, m.PutCmds(key, value))
	if err != nil {
		return err
	}
	return firstErr(res)
}

// DeleteCmd is the command that removes key (for use in a Tx).
func (m *OrderedMap) DeleteCmd(key string) backend.Cmd {
	ek := encKey(key)
	return backend.Cmd{"ZREMRANGEBYLEX", m.Key, "[" + ek, "(" + ek + "\xff"}
}

// Delete removes key and reports whether it was there.
func (m *OrderedMap) Delete(ctx context.Context, key string) (bool, error) {
	v, err := m.b.Do(ctx, m.DeleteCmd(key)...)
	if err != nil {
		return false, err
	}
	n, err := asInt(v)
	return n > 0, err
}

// Get returns the value of key.
func (m *OrderedMap) Get(ctx context.Context, key string) (string, bool, error) {
	ek := encKey(key)
	v, err := m.b.Do(ctx, "ZRANGE", m.Key, "["+ek, "("+ek+"\xff", "BYLEX", "LIMIT", 0, 1)
	if err != nil {
		return "", false, err
	}
	kvs, err := m.decode(v)
	if err != nil || len(kvs) == 0 {
		return "", false, err
	}
	return kvs[0].Value, true, nil
}

// Len is the number of keys.
func (m *OrderedMap) Len(ctx context.Context) (int64, error) {
	v, err := m.b.Do(ctx, "ZCARD", m.Key)
	if err != nil {
		return 0, err
	}
	return asInt(v)
}

// KeyRange bounds a range of keys; a nil bound is open.
type KeyRange struct {
	From, To                 *string
	FromExclusive, ToInclude bool // by default From is inclusive, To exclusive
}

// Range returns the entries with From ≤ key < To (by default), in key
// order, at most limit of them (limit ≤ 0: all); rev returns them from
// the highest key down.
func (m *OrderedMap) Range(ctx context.Context, r KeyRange, limit int64, rev bool) ([]KV, error) {
	lo, hi := r.lexBounds()
	return m.lexRange(ctx, lo, hi, limit, rev)
}

// lexBounds turns a key range into ZRANGE BYLEX bounds over encoded keys.
func (r KeyRange) lexBounds() (lo, hi string) {
	lo, hi = "-", "+"
	if r.From != nil {
		ek := encKey(*r.From)
		if r.FromExclusive {
			lo = "[" + ek + "\xff"
		} else {
			lo = "[" + ek
		}
	}
	if r.To != nil {
		ek := encKey(*r.To)
		if r.ToInclude {
			hi = "(" + ek + "\xff"
		} else {
			hi = "(" + ek
		}
	}
	return lo, hi
}

// Prefix returns the entries whose key starts with the string p, in order.
func (m *OrderedMap) Prefix(ctx context.Context, p string, limit int64) ([]KV, error) {
	lo, hi := prefixBounds(p)
	return m.lexRange(ctx, lo, hi, limit, false)
}

// prefixBounds are the BYLEX bounds of the keys starting with p: every
// such key's encoding starts with p's encoding minus its terminator, and
// no other key's does.
func prefixBounds(p string) (lo, hi string) {
	full := encKey(p)
	open := full[:len(full)-1]
	return "[" + open, "(" + prefixEnd(open)
}

// lexRangeCmd is the ZRANGE BYLEX command reading key between lo and hi.
func lexRangeCmd(key, lo, hi string, limit int64, rev bool) backend.Cmd {
	cmd := backend.Cmd{"ZRANGE", key, lo, hi, "BYLEX"}
	if rev {
		cmd = backend.Cmd{"ZRANGE", key, hi, lo, "BYLEX", "REV"}
	}
	if limit > 0 {
		cmd = append(cmd, "LIMIT", 0, limit)
	}
	return cmd
}

func (m *OrderedMap) lexRange(ctx context.Context, lo, hi string, limit int64, rev bool) ([]KV, error) {
	v, err := m.b.Do(ctx, lexRangeCmd(m.Key, lo, hi, limit, rev)...)
	if err != nil {
		return nil, err
	}
	return m.decode(v)
}

func (m *OrderedMap) decode(v any) ([]KV, error) {
	ms, err := asStrings(v)
	if err != nil {
		return nil, err
	}
	out := make([]KV, 0, len(ms))
	for _, member := range ms {
		t, err := tuple.Unpack([]byte(member))
		if err != nil || len(t) != 2 {
			return nil, fmt.Errorf("index: %s holds a member that is not an ordered-map entry (%q)", m.Key, member)
		}
		k, ok1 := t[0].(string)
		val, ok2 := t[1].([]byte)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("index: %s holds a member that is not an ordered-map entry (%q)", m.Key, member)
		}
		out = append(out, KV{Key: k, Value: string(val)})
	}
	return out, nil
}
