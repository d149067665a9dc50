package index

import (
	"context"
	"errors"
	"math"
	"strconv"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/internal/resp"
)

var (
	posInf = math.Inf(1)
	negInf = math.Inf(-1)
)

// ErrNaN is returned when NaN is given as a number to index.
var ErrNaN = errors.New("index: NaN cannot be indexed")

// Numeric indexes ids by a number, kept as the score of a sorted set
// (the "people by age" pattern): ZADD to add or update, ZRANGE BYSCORE to
// query, ZCOUNT to count in O(log n).
type Numeric struct {
	b   backend.Backend
	Key string
}

// NewNumeric returns the numeric index stored in the sorted set key.
func NewNumeric(b backend.Backend, key string) *Numeric { return &Numeric{b: b, Key: key} }

// Hit is one result of a numeric query.
type Hit struct {
	ID    string
	Score float64
}

// AddCmd is the command that adds or updates id (for use in a Tx).
func (n *Numeric) AddCmd(id string, v float64) (backend.Cmd, error) {
	if math.IsNaN(v) {
		return nil, ErrNaN
	}
	return backend.Cmd{"ZADD", n.Key, formatScore(v), id}, nil
}

// Add indexes id under v, replacing its previous value.
func (n *Numeric) Add(ctx context.Context, id string, v float64) error {
	cmd, err := n.AddCmd(id, v)
	if err != nil {
		return err
	}
	_, err = n.b.Do(ctx, cmd...)
	return err
}

// AddMany indexes several ids in one command.
func (n *Numeric) AddMany(ctx context.Context, hits ...Hit) error {
	if len(hits) == 0 {
		return nil
	}
	cmd := backend.Cmd{"ZADD", n.Key}
	for _, h := range hits {
		if math.IsNaN(h.Score) {
			return ErrNaN
		}
		cmd = append(cmd, formatScore(h.Score), h.ID)
	}
	_, err := n.b.Do(ctx, cmd...)
	return err
}

// Remove drops ids from the index and returns how many were there.
func (n *Numeric) Remove(ctx context.Context, ids ...string) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	cmd := backend.Cmd{"ZREM", n.Key}
	for _, id := range ids {
		cmd = append(cmd, id)
	}
	v, err := n.b.Do(ctx, cmd...)
	if err != nil {
		return 0, err
	}
	return asInt(v)
}

// Score returns the value indexed for id.
func (n *Numeric) Score(ctx context.Context, id string) (float64, bool, error) {
	v, err := n.b.Do(ctx, "ZSCORE", n.Key, id)
	if err != nil || v == nil {
		return 0, false, err
	}
	f, err := asFloat(v)
	return f, err == nil, err
}

// Len is the number of ids in the index.
func (n *Numeric) Len(ctx context.Context) (int64, error) {
	v, err := n.b.Do(ctx, "ZCARD", n.Key)
	if err != nil {
		return 0, err
	}
	return asInt(v)
}

// Query describes a range query: bounds, order and a page.
type Query struct {
	min, max      float64
	minEx, maxEx  bool
	rev           bool
	offset, count int64
	limit         bool
}

// QueryOption sets part of a Query.
type QueryOption func(*Query)

// Between selects min ≤ v ≤ max.
func Between(min, max float64) QueryOption {
	return func(q *Query) { q.min, q.max, q.minEx, q.maxEx = min, max, false, false }
}

// Min sets an inclusive lower bound.
func Min(v float64) QueryOption { return func(q *Query) { q.min, q.minEx = v, false } }

// Max sets an inclusive upper bound.
func Max(v float64) QueryOption { return func(q *Query) { q.max, q.maxEx = v, false } }

// Above sets an exclusive lower bound (v < value).
func Above(v float64) QueryOption { return func(q *Query) { q.min, q.minEx = v, true } }

// Below sets an exclusive upper bound (value < v).
func Below(v float64) QueryOption { return func(q *Query) { q.max, q.maxEx = v, true } }

// Rev returns results from the highest value down.
func Rev() QueryOption { return func(q *Query) { q.rev = true } }

// Limit returns at most count results after skipping offset.
func Limit(offset, count int64) QueryOption {
	return func(q *Query) { q.offset, q.count, q.limit = offset, count, true }
}

func buildQuery(opts []QueryOption) Query {
	q := Query{min: negInf, max: posInf}
	for _, o := range opts {
		o(&q)
	}
	return q
}

func formatScore(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return string(resp.AppendDouble(nil, v))
}

func bound(v float64, ex bool) string {
	s := formatScore(v)
	if ex {
		return "(" + s
	}
	return s
}

func (n *Numeric) rangeCmd(q Query, withScores bool) backend.Cmd {
	lo, hi := bound(q.min, q.minEx), bound(q.max, q.maxEx)
	cmd := backend.Cmd{"ZRANGE", n.Key, lo, hi, "BYSCORE"}
	if q.rev {
		cmd = backend.Cmd{"ZRANGE", n.Key, hi, lo, "BYSCORE", "REV"}
	}
	if q.limit {
		cmd = append(cmd, "LIMIT", strconv.FormatInt(q.offset, 10), strconv.FormatInt(q.count, 10))
	}
	if withScores {
		cmd = append(cmd, "WITHSCORES")
	}
	return cmd
}

// Range returns the ids and values in the query's range, in order.
func (n *Numeric) Range(ctx context.Context, opts ...QueryOption) ([]Hit, error) {
	v, err := n.b.Do(ctx, n.rangeCmd(buildQuery(opts), true)...)
	if err != nil {
		return nil, err
	}
	ids, scores, err := asPairs(v)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, len(ids))
	for i := range ids {
		hits[i] = Hit{ID: ids[i], Score: scores[i]}
	}
	return hits, nil
}

// IDs returns only the ids in the query's range, in order.
func (n *Numeric) IDs(ctx context.Context, opts ...QueryOption) ([]string, error) {
	v, err := n.b.Do(ctx, n.rangeCmd(buildQuery(opts), false)...)
	if err != nil {
		return nil, err
	}
	return asStrings(v)
}

// Count returns how many ids the query's bounds select (ZCOUNT, O(log n);
// order and page do not apply).
func (n *Numeric) Count(ctx context.Context, opts ...QueryOption) (int64, error) {
	q := buildQuery(opts)
	v, err := n.b.Do(ctx, "ZCOUNT", n.Key, bound(q.min, q.minEx), bound(q.max, q.maxEx))
	if err != nil {
		return 0, err
	}
	return asInt(v)
}
