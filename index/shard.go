package index

import (
	"container/heap"
	"context"
	"hash/fnv"
	"math"
	"strconv"

	"github.com/ordo-db/ordo/backend"
)

// ShardedNumeric is a numeric index split into S sorted sets, for indexes
// too large for one node of a Redis Cluster. Shard i lives under the key
// "{name:i}", so the shards hash to different slots and spread across the
// masters; an id always lives in shard fnv1a64(id) mod S, so placement is
// stable and needs no directory.
//
// Trade-off, as against one Numeric:
//   - Writes stay single-key, hence single-slot and atomic per id: Add,
//     Remove and Score touch only the id's shard. To update an object and
//     its entry in one MULTI/EXEC or script on a cluster, store the object
//     under a key carrying the same hash tag (ShardTag(id)).
//   - Queries cost S reads instead of one: Range, IDs, Count and Len send
//     one command to every shard in a single pipelined round trip (go-redis
//     splits the pipeline per node and runs the nodes concurrently).
//   - The global order is exact: each shard returns its part in Redis
//     order (score, then member bytes; the reverse for Rev), LIMIT is pushed
//     down as "LIMIT 0 offset+count" on every shard (no shard can
//     contribute more than that to the page), and a k-way merge followed by
//     offset/count gives exactly what one sorted set would. Deep pages cost
//     S×(offset+count) transferred entries: paginate by score (Above the
//     last score seen) rather than by large offsets.
//   - Count sums the shards' ZCOUNTs: exact, O(S log n). A query sees each
//     shard at a slightly different instant (no cross-shard snapshot).
type ShardedNumeric struct {
	b    backend.Backend
	Name string
	keys []string
}

// NewShardedNumeric returns the index name split into shards sorted sets.
func NewShardedNumeric(b backend.Backend, name string, shards int) *ShardedNumeric {
	if shards < 1 {
		shards = 1
	}
	s := &ShardedNumeric{b: b, Name: name, keys: make([]string, shards)}
	for i := range s.keys {
		s.keys[i] = "{" + name + ":" + strconv.Itoa(i) + "}"
	}
	return s
}

// Shards returns the number of shards.
func (s *ShardedNumeric) Shards() int { return len(s.keys) }

// ShardOf returns the shard that holds id.
func (s *ShardedNumeric) ShardOf(id string) int {
	h := fnv.New64a()
	h.Write([]byte(id))
	return int(h.Sum64() % uint64(len(s.keys)))
}

// ShardKey returns the sorted set that holds id.
func (s *ShardedNumeric) ShardKey(id string) string { return s.keys[s.ShardOf(id)] }

// ShardTag returns the hash tag of id's shard ("{name:i}"): a key that
// contains it is in the same slot as id's index entry.
func (s *ShardedNumeric) ShardTag(id string) string { return s.ShardKey(id) }

// Shard returns shard i as a plain Numeric (for repair or inspection).
func (s *ShardedNumeric) Shard(i int) *Numeric { return NewNumeric(s.b, s.keys[i]) }

// AddCmd is the command that adds or updates id (for use in a Tx whose
// other keys carry ShardTag(id)).
func (s *ShardedNumeric) AddCmd(id string, v float64) (backend.Cmd, error) {
	return NewNumeric(s.b, s.ShardKey(id)).AddCmd(id, v)
}

// Add indexes id under v, replacing its previous value.
func (s *ShardedNumeric) Add(ctx context.Context, id string, v float64) error {
	cmd, err := s.AddCmd(id, v)
	if err != nil {
		return err
	}
	_, err = s.b.Do(ctx, cmd...)
	return err
}

// AddMany indexes several ids: one ZADD per shard touched, in one round trip.
func (s *ShardedNumeric) AddMany(ctx context.Context, hits ...Hit) error {
	per := map[int]backend.Cmd{}
	var order []int
	for _, h := range hits {
		if math.IsNaN(h.Score) {
			return ErrNaN
		}
		i := s.ShardOf(h.ID)
		c, ok := per[i]
		if !ok {
			c = backend.Cmd{"ZADD", s.keys[i]}
			order = append(order, i)
		}
		per[i] = append(c, formatScore(h.Score), h.ID)
	}
	cmds := make([]backend.Cmd, len(order))
	for j, i := range order {
		cmds[j] = per[i]
	}
	return s.pipe(ctx, cmds, nil)
}

// Remove drops ids and returns how many were there.
func (s *ShardedNumeric) Remove(ctx context.Context, ids ...string) (int64, error) {
	per := map[int]backend.Cmd{}
	var order []int
	for _, id := range ids {
		i := s.ShardOf(id)
		c, ok := per[i]
		if !ok {
			c = backend.Cmd{"ZREM", s.keys[i]}
			order = append(order, i)
		}
		per[i] = append(c, id)
	}
	cmds := make([]backend.Cmd, len(order))
	for j, i := range order {
		cmds[j] = per[i]
	}
	var n int64
	err := s.pipe(ctx, cmds, func(_ int, v any) error {
		k, err := asInt(v)
		n += k
		return err
	})
	return n, err
}

// Score returns the value indexed for id.
func (s *ShardedNumeric) Score(ctx context.Context, id string) (float64, bool, error) {
	return NewNumeric(s.b, s.ShardKey(id)).Score(ctx, id)
}

// Len is the number of ids in all shards.
func (s *ShardedNumeric) Len(ctx context.Context) (int64, error) {
	return s.sum(ctx, func(k string) backend.Cmd { return backend.Cmd{"ZCARD", k} })
}

// Count returns how many ids the query's bounds select (sum of ZCOUNTs).
func (s *ShardedNumeric) Count(ctx context.Context, opts ...QueryOption) (int64, error) {
	q := buildQuery(opts)
	lo, hi := bound(q.min, q.minEx), bound(q.max, q.maxEx)
	return s.sum(ctx, func(k string) backend.Cmd { return backend.Cmd{"ZCOUNT", k, lo, hi} })
}

func (s *ShardedNumeric) sum(ctx context.Context, mk func(string) backend.Cmd) (int64, error) {
	cmds := make([]backend.Cmd, len(s.keys))
	for i, k := range s.keys {
		cmds[i] = mk(k)
	}
	var n int64
	err := s.pipe(ctx, cmds, func(_ int, v any) error {
		k, err := asInt(v)
		n += k
		return err
	})
	return n, err
}

// pipe runs cmds in one round trip and hands each reply to f.
func (s *ShardedNumeric) pipe(ctx context.Context, cmds []backend.Cmd, f func(int, any) error) error {
	if len(cmds) == 0 {
		return nil
	}
	res, err := s.b.Pipeline(ctx, cmds)
	if err != nil {
		return err
	}
	for i, r := range res {
		if r.Err != nil {
			return r.Err
		}
		if f != nil {
			if err := f(i, r.Val); err != nil {
				return err
			}
		}
	}
	return nil
}

// Range returns the ids and values in the query's range, in the order one
// sorted set would give them, with the page applied.
func (s *ShardedNumeric) Range(ctx context.Context, opts ...QueryOption) ([]Hit, error) {
	q := buildQuery(opts)
	// Push the page down: every shard returns at most offset+count entries.
	// A negative count means "all from offset", as in Redis.
	if q.limit && q.offset < 0 {
		return []Hit{}, nil // Redis returns nothing for a negative offset
	}
	sq := q
	sq.limit = false
	if q.limit && q.count >= 0 && q.offset+q.count >= 0 {
		sq.limit, sq.offset, sq.count = true, 0, q.offset+q.count
	}
	cmds := make([]backend.Cmd, len(s.keys))
	for i, k := range s.keys {
		cmds[i] = NewNumeric(s.b, k).rangeCmd(sq, true)
	}
	parts := make([][]Hit, len(s.keys))
	err := s.pipe(ctx, cmds, func(i int, v any) error {
		ids, scores, err := asPairs(v)
		if err != nil {
			return err
		}
		hits := make([]Hit, len(ids))
		for j := range ids {
			hits[j] = Hit{ID: ids[j], Score: scores[j]}
		}
		parts[i] = hits
		return nil
	})
	if err != nil {
		return nil, err
	}
	merged := mergeHits(parts, q.rev)
	if q.limit {
		if q.offset >= int64(len(merged)) {
			return []Hit{}, nil
		}
		merged = merged[q.offset:]
		if q.count >= 0 && int64(len(merged)) > q.count {
			merged = merged[:q.count]
		}
	}
	return merged, nil
}

// IDs returns only the ids in the query's range, in order.
func (s *ShardedNumeric) IDs(ctx context.Context, opts ...QueryOption) ([]string, error) {
	hits, err := s.Range(ctx, opts...)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids, nil
}

// hitLess is Redis's sorted-set order: by score, then by member bytes.
func hitLess(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.ID < b.ID
}

// mergeHits k-way merges lists each already in order (reversed if rev).
func mergeHits(parts [][]Hit, rev bool) []Hit {
	total := 0
	h := &hitHeap{rev: rev}
	for i, p := range parts {
		total += len(p)
		if len(p) > 0 {
			h.items = append(h.items, cursor{part: i})
		}
	}
	h.parts = parts
	heap.Init(h)
	out := make([]Hit, 0, total)
	for h.Len() > 0 {
		c := &h.items[0]
		out = append(out, parts[c.part][c.pos])
		c.pos++
		if c.pos == len(parts[c.part]) {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	return out
}

type cursor struct{ part, pos int }

type hitHeap struct {
	parts [][]Hit
	items []cursor
	rev   bool
}

func (h *hitHeap) Len() int { return len(h.items) }
func (h *hitHeap) Less(i, j int) bool {
	a := h.parts[h.items[i].part][h.items[i].pos]
	b := h.parts[h.items[j].part][h.items[j].pos]
	if h.rev {
		return hitLess(b, a)
	}
	return hitLess(a, b)
}
func (h *hitHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *hitHeap) Push(x any)    { h.items = append(h.items, x.(cursor)) }
func (h *hitHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// ShardedOrderedMap is an OrderedMap split into S sorted sets "{name:i}",
// a key living in shard fnv1a64(key) mod S. The trade-off is the one of
// ShardedNumeric: Put, Get and Delete touch one shard (one slot, atomic);
// Range and Prefix ask every shard for at most limit entries in one
// pipelined round trip and merge them in key order, exactly as one
// sorted set would return them.
type ShardedOrderedMap struct {
	b    backend.Backend
	Name string
	maps []*OrderedMap
}

// NewShardedOrderedMap returns the map name split into shards sorted sets.
func NewShardedOrderedMap(b backend.Backend, name string, shards int) *ShardedOrderedMap {
	if shards < 1 {
		shards = 1
	}
	s := &ShardedOrderedMap{b: b, Name: name, maps: make([]*OrderedMap, shards)}
	for i := range s.maps {
		s.maps[i] = NewOrderedMap(b, "{"+name+":"+strconv.Itoa(i)+"}")
	}
	return s
}

// ShardOf returns the shard that holds key.
func (s *ShardedOrderedMap) ShardOf(key string) int {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64() % uint64(len(s.maps)))
}

// Shard returns the map of shard i.
func (s *ShardedOrderedMap) Shard(i int) *OrderedMap { return s.maps[i] }

// Put sets key to value atomically (one shard).
func (s *ShardedOrderedMap) Put(ctx context.Context, key, value string) error {
	return s.maps[s.ShardOf(key)].Put(ctx, key, value)
}

// Get returns the value of key.
func (s *ShardedOrderedMap) Get(ctx context.Context, key string) (string, bool, error) {
	return s.maps[s.ShardOf(key)].Get(ctx, key)
}

// Delete removes key and reports whether it was there.
func (s *ShardedOrderedMap) Delete(ctx context.Context, key string) (bool, error) {
	return s.maps[s.ShardOf(key)].Delete(ctx, key)
}

// Len is the number of keys in all shards.
func (s *ShardedOrderedMap) Len(ctx context.Context) (int64, error) {
	cmds := make([]backend.Cmd, len(s.maps))
	for i, m := range s.maps {
		cmds[i] = backend.Cmd{"ZCARD", m.Key}
	}
	res, err := s.b.Pipeline(ctx, cmds)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, r := range res {
		if r.Err != nil {
			return 0, r.Err
		}
		k, err := asInt(r.Val)
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

// Range is OrderedMap.Range over all shards.
func (s *ShardedOrderedMap) Range(ctx context.Context, r KeyRange, limit int64, rev bool) ([]KV, error) {
	lo, hi := r.lexBounds()
	return s.lexRange(ctx, lo, hi, limit, rev)
}

// Prefix is OrderedMap.Prefix over all shards.
func (s *ShardedOrderedMap) Prefix(ctx context.Context, p string, limit int64) ([]KV, error) {
	lo, hi := prefixBounds(p)
	return s.lexRange(ctx, lo, hi, limit, false)
}

func (s *ShardedOrderedMap) lexRange(ctx context.Context, lo, hi string, limit int64, rev bool) ([]KV, error) {
	cmds := make([]backend.Cmd, len(s.maps))
	for i, m := range s.maps {
		cmds[i] = lexRangeCmd(m.Key, lo, hi, limit, rev)
	}
	res, err := s.b.Pipeline(ctx, cmds)
	if err != nil {
		return nil, err
	}
	parts := make([][]KV, len(res))
	total := 0
	for i, r := range res {
		if r.Err != nil {
			return nil, r.Err
		}
		if parts[i], err = s.maps[i].decode(r.Val); err != nil {
			return nil, err
		}
		total += len(parts[i])
	}
	// Keys are distinct across shards: a plain k-way merge by key.
	out := make([]KV, 0, total)
	pos := make([]int, len(parts))
	for limit <= 0 || int64(len(out)) < limit {
		best := -1
		for i, p := range parts {
			if pos[i] == len(p) {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			a, b := p[pos[i]].Key, parts[best][pos[best]].Key
			if (!rev && a < b) || (rev && a > b) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		out = append(out, parts[best][pos[best]])
		pos[best]++
	}
	return out, nil
}
