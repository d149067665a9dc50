package index

import (
	"context"
	"errors"

	"github.com/ordo-db/ordo/backend"
)

// The page's "Non range indexes": indexes that answer no range query but
// are Redis types used as indexes all the same. Each is one key, given by
// the caller (put a hash tag in it, "{feeds}:rotation", to keep it in the
// slot of the data it indexes on Redis Cluster).

// MemberSet indexes ids in a Redis set: membership (the ids that have a
// boolean property) and random sampling with SRANDMEMBER.
type MemberSet struct {
	b   backend.Backend
	Key string
}

// NewMemberSet returns the set stored at key.
func NewMemberSet(b backend.Backend, key string) *MemberSet { return &MemberSet{b: b, Key: key} }

func (s *MemberSet) multi(ctx context.Context, cmd string, ids []string) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	c := backend.Cmd{cmd, s.Key}
	for _, id := range ids {
		c = append(c, id)
	}
	v, err := s.b.Do(ctx, c...)
	if err != nil {
		return 0, err
	}
	return asInt(v)
}

// AddCmd is the command that adds ids (for use in a Tx).
func (s *MemberSet) AddCmd(ids ...string) backend.Cmd {
	c := backend.Cmd{"SADD", s.Key}
	for _, id := range ids {
		c = append(c, id)
	}
	return c
}

// Add adds ids and returns how many were new.
func (s *MemberSet) Add(ctx context.Context, ids ...string) (int64, error) {
	return s.multi(ctx, "SADD", ids)
}

// Remove removes ids and returns how many were there.
func (s *MemberSet) Remove(ctx context.Context, ids ...string) (int64, error) {
	return s.multi(ctx, "SREM", ids)
}

// Has reports whether id is in the set.
func (s *MemberSet) Has(ctx context.Context, id string) (bool, error) {
	v, err := s.b.Do(ctx, "SISMEMBER", s.Key, id)
	if err != nil {
		return false, err
	}
	n, err := asInt(v)
	return n == 1, err
}

// HasMany reports, for each id, whether it is in the set (one SMISMEMBER).
func (s *MemberSet) HasMany(ctx context.Context, ids ...string) ([]bool, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	c := backend.Cmd{"SMISMEMBER", s.Key}
	for _, id := range ids {
		c = append(c, id)
	}
	v, err := s.b.Do(ctx, c...)
	if err != nil {
		return nil, err
	}
	arr, ok := v.([]any)
	if !ok || len(arr) != len(ids) {
		return nil, errors.New("index: malformed SMISMEMBER reply")
	}
	out := make([]bool, len(arr))
	for i, x := range arr {
		n, err := asInt(x)
		if err != nil {
			return nil, err
		}
		out[i] = n == 1
	}
	return out, nil
}

// Sample returns up to n distinct random ids (SRANDMEMBER key n); all of
// them when the set has no more than n.
func (s *MemberSet) Sample(ctx context.Context, n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	v, err := s.b.Do(ctx, "SRANDMEMBER", s.Key, n)
	if err != nil {
		return nil, err
	}
	return asStrings(v)
}

// SampleWithRepeats returns n random ids, an id possibly several times
// (SRANDMEMBER key -n); none when the set is empty.
func (s *MemberSet) SampleWithRepeats(ctx context.Context, n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	v, err := s.b.Do(ctx, "SRANDMEMBER", s.Key, -n)
	if err != nil {
		return nil, err
	}
	return asStrings(v)
}

// Members returns every id, in no particular order.
func (s *MemberSet) Members(ctx context.Context) ([]string, error) {
	v, err := s.b.Do(ctx, "SMEMBERS", s.Key)
	if err != nil {
		return nil, err
	}
	return asStrings(v)
}

// Len is the number of ids.
func (s *MemberSet) Len(ctx context.Context) (int64, error) {
	v, err := s.b.Do(ctx, "SCARD", s.Key)
	if err != nil {
		return 0, err
	}
	return asInt(v)
}

// CappedList keeps the last Cap items pushed, newest first (the page's
// capped list: LPUSH then LTRIM 0 Cap-1, in one MULTI/EXEC so the list
// never holds more than Cap items, whatever the concurrency).
type CappedList struct {
	b   backend.Backend
	Key string
	Cap int64
}

// NewCappedList returns the capped list stored at key, holding at most
// capacity items (at least 1).
func NewCappedList(b backend.Backend, key string, capacity int64) *CappedList {
	if capacity < 1 {
		capacity = 1
	}
	return &CappedList{b: b, Key: key, Cap: capacity}
}

// PushCmds are the commands that push items (for use in a Tx).
func (l *CappedList) PushCmds(items ...string) []backend.Cmd {
	c := backend.Cmd{"LPUSH", l.Key}
	for _, it := range items {
		c = append(c, it)
	}
	return []backend.Cmd{c, {"LTRIM", l.Key, 0, l.Cap - 1}}
}

// Push adds items (the last one given becomes the newest) and trims the
// list to Cap, atomically.
func (l *CappedList) Push(ctx context.Context, items ...string) error {
	if len(items) == 0 {
		return nil
	}
	res, err := l.b.Tx(ctx, l.PushCmds(items...))
	if err != nil {
		return err
	}
	return firstErr(res)
}

// Latest returns the n newest items, newest first (n ≤ 0: all).
func (l *CappedList) Latest(ctx context.Context, n int64) ([]string, error) {
	stop := n - 1
	if n <= 0 {
		stop = -1
	}
	v, err := l.b.Do(ctx, "LRANGE", l.Key, 0, stop)
	if err != nil {
		return nil, err
	}
	return asStrings(v)
}

// Len is the number of items (at most Cap).
func (l *CappedList) Len(ctx context.Context) (int64, error) {
	v, err := l.b.Do(ctx, "LLEN", l.Key)
	if err != nil {
		return 0, err
	}
	return asInt(v)
}

// RotationList holds items processed over and over in the same order (the
// page's RSS feeds refreshed periodically): Next takes the oldest item and
// puts it back at the other end, in one RPOPLPUSH with the same key as
// source and destination, so an item is never lost, even when several
// workers rotate the list at once.
type RotationList struct {
	b   backend.Backend
	Key string
}

// NewRotationList returns the rotation list stored at key.
func NewRotationList(b backend.Backend, key string) *RotationList {
	return &RotationList{b: b, Key: key}
}

// Add appends items to the rotation: after the items already there, in
// the order given (LPUSH: Next takes from the right end).
func (r *RotationList) Add(ctx context.Context, items ...string) (int64, error) {
	if len(items) == 0 {
		return r.Len(ctx)
	}
	c := backend.Cmd{"LPUSH", r.Key}
	for _, it := range items {
		c = append(c, it)
	}
	v, err := r.b.Do(ctx, c...)
	if err != nil {
		return 0, err
	}
	return asInt(v)
}

// Next returns the next item and moves it to the end of the rotation;
// ok is false when the list is empty.
func (r *RotationList) Next(ctx context.Context) (item string, ok bool, err error) {
	v, err := r.b.Do(ctx, "RPOPLPUSH", r.Key, r.Key)
	if err != nil || v == nil {
		return "", false, err
	}
	s, _ := asString(v)
	return s, true, nil
}

// Remove removes every occurrence of item and returns how many there were.
func (r *RotationList) Remove(ctx context.Context, item string) (int64, error) {
	v, err := r.b.Do(ctx, "LREM", r.Key, 0, item)
	if err != nil {
		return 0, err
	}
	return asInt(v)
}

// Items returns the items in the order Next will return them.
func (r *RotationList) Items(ctx context.Context) ([]string, error) {
	v, err := r.b.Do(ctx, "LRANGE", r.Key, 0, -1)
	if err != nil {
		return nil, err
	}
	items, err := asStrings(v)
	for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
		items[i], items[j] = items[j], items[i]
	}
	return items, err
}

// Len is the number of items.
func (r *RotationList) Len(ctx context.Context) (int64, error) {
	v, err := r.b.Do(ctx, "LLEN", r.Key)
	if err != nil {
		return 0, err
	}
	return asInt(v)
}
