package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ordo-db/ordo/backend"
)

// Space is an N-dimensional point index (the page's "Multi dimensional
// indexes"): each point is a vector of Dims unsigned coordinates of Bits
// bits each, interleaved bit by bit into one Z-order (Morton) code: the
// most significant bit of dimension 0, then of dimension 1, ..., then the
// next bit of each. Encode writes the code big-endian in
// ceil(Dims×Bits/8) bytes, so byte order equals Z order.
//
// Layout (name "people"), chosen by the code's width:
//
//   - Dims×Bits ≤ 53, as GEOADD does (a 52-bit geohash is 2 dimensions
//     of 26 bits): {people}:z is a sorted set, member = id, score = the
//     code, exact in a double. One ZADD stores or moves a point, ZREM
//     removes it, ZSCORE reads it: one key, nothing else to keep in step,
//     and PutMany is one ZADD of up to 1,000 points per command.
//   - wider codes: {people}:z is a sorted set, score 0, member = code
//     bytes ++ id (binary-safe: the code before it has a fixed width),
//     read by ZRANGE BYLEX; {people}:ids is a hash id → code (to move or
//     remove a point without knowing where it was). Put and Remove are
//     one Lua script each, so the two keys never disagree.
//
// (Before the score layout existed every Space used the second one: a
// space of at most 53 bits written then must be loaded again. Such a
// space is recognised by its ids hash: the first call on it returns
// ErrSpaceLayout rather than answers read through the wrong layout.)
//
// A query (Box, Within, Nearest) decomposes its region into at most
// MaxRanges ranges of codes (see decompose: best-first splits of aligned
// Z-order boxes, then the smallest gaps filled), reads them all in one
// pipelined round trip (ZRANGE BYSCORE WITHSCORES, or BYLEX) and filters
// the points exactly. A random 2-D box read through 16 ranges is covered
// 1.24 times its area at the median (32 ranges: 1.13), so a query reads
// well under 2 members per point it returns (TestSpaceRanges,
// TestSpacePlane), and the decomposition of a box into up to 32 ranges
// takes 25 µs at the median and under 40 µs at p99 on a busy 2-core
// machine (the bench's space rows; BenchmarkSpaceRanges). Within and
// Nearest decompose the ball itself, not its bounding box.
//
// Coordinates: unsigned integers directly; signed integers through
// SignedCoord (an offset of 2^(Bits-1), which keeps the order); floats
// through a Scale, which maps [Min, Max] linearly onto [0, 2^Bits-1]:
// a float is stored to within half a step, step = (Max-Min)/(2^Bits-1)
// (with Bits = 32 over [-180, 180], about 4.2e-8 degrees; with 26,
// about 5.4e-6).
type Space struct {
	b          backend.Backend
	Name       string
	Dims, Bits int
	// MaxRanges bounds the ranges a query is decomposed into (default
	// 8×2^Dims between 32 and 256: 32 in 2 dimensions, 64 in 3): more
	// ranges read less outside the region, at the cost of more (cheap,
	// pipelined) commands. A query uses fewer when it expects few
	// points (rangesFor).
	MaxRanges int
	zkey      string
	hkey      string
	width     int
	byScore   bool
	// count is the number of points last seen (Nearest's first guess of
	// the density; every Nearest refreshes it in its own round trip).
	count atomic.Int64
	pool  sync.Pool // of *decomp
	// layoutOK is set once a score-layout space has checked that its
	// name holds no lex-layout data (checkLayout).
	layoutOK atomic.Bool
}

// scoreBits is the widest code a double holds exactly.
const scoreBits = 53

// NewSpace returns the index called name of points with dims coordinates
// of bits bits (1 ≤ bits ≤ 64).
func NewSpace(b backend.Backend, name string, dims, bits int) (*Space, error) {
	if dims < 1 || bits < 1 || bits > 64 || dims > 1<<20 {
		return nil, fmt.Errorf("index: a space needs dims ≥ 1 and 1 ≤ bits ≤ 64 (got %d, %d)", dims, bits)
	}
	return &Space{b: b, Name: name, Dims: dims, Bits: bits, MaxRanges: min(256, max(32, 8<<min(dims, 8))),
		zkey: "{" + name + "}:z", hkey: "{" + name + "}:ids", width: (dims*bits + 7) / 8,
		byScore: dims*bits <= scoreBits}, nil
}

// ErrSpaceLayout is returned by every call on a space of at most 53 bits
// whose keys were written in the lex layout (before the score layout
// existed): its points must be loaded again.
var ErrSpaceLayout = errors.New("index: space written in the lex layout of an earlier version")

// checkLayout makes a score-layout space refuse data of the lex layout:
// read as scores, its members (score 0) would answer queries wrongly
// instead of failing. One EXISTS per Space value, then an atomic load.
func (s *Space) checkLayout(ctx context.Context) error {
	if !s.byScore || s.layoutOK.Load() {
		return nil
	}
	v, err := s.b.Do(ctx, "EXISTS", s.hkey)
	if err != nil {
		return err
	}
	if n, err := asInt(v); err != nil || n != 0 {
		return fmt.Errorf("%w: %s exists; delete %s and %s and Put the points again", ErrSpaceLayout, s.hkey, s.zkey, s.hkey)
	}
	s.layoutOK.Store(true)
	return nil
}

// ByScore reports whether the space keeps its codes as scores (Dims×Bits
// ≤ 53) rather than as member prefixes read by ZRANGE BYLEX.
func (s *Space) ByScore() bool { return s.byScore }

// ErrCoord is wrapped by errors about a point of the wrong dimension or a
// coordinate out of range.
var ErrCoord = errors.New("index: bad coordinate")

func (s *Space) maxCoord() uint64 {
	if s.Bits == 64 {
		return math.MaxUint64
	}
	return 1<<s.Bits - 1
}

func (s *Space) check(p []uint64) error {
	if len(p) != s.Dims {
		return fmt.Errorf("%w: %d coordinates for %d dimensions", ErrCoord, len(p), s.Dims)
	}
	for d, v := range p {
		if v > s.maxCoord() {
			return fmt.Errorf("%w: coordinate %d is %d, more than %d bits", ErrCoord, d, v, s.Bits)
		}
	}
	return nil
}

// spread2 spreads the low 32 bits of x to the even bits of the result.
func spread2(x uint64) uint64 {
	x &= 0xffffffff
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// squash2 is the inverse of spread2.
func squash2(x uint64) uint64 {
	x &= 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0f0f0f0f0f0f0f0f
	x = (x | x>>4) & 0x00ff00ff00ff00ff
	x = (x | x>>8) & 0x0000ffff0000ffff
	x = (x | x>>16) & 0x00000000ffffffff
	return x
}

// code64 is the code of p as an integer (Dims×Bits ≤ 64).
func (s *Space) code64(p []uint64) uint64 {
	if s.Dims == 2 {
		return spread2(p[0])<<1 | spread2(p[1])
	}
	var c uint64
	for l := s.Bits - 1; l >= 0; l-- {
		for d := 0; d < s.Dims; d++ {
			c = c<<1 | p[d]>>uint(l)&1
		}
	}
	return c
}

// point64 is the inverse of code64, into p.
func (s *Space) point64(c uint64, p []uint64) {
	if s.Dims == 2 {
		p[0], p[1] = squash2(c>>1), squash2(c)
		return
	}
	clear(p)
	j := s.Dims*s.Bits - 1
	for l := s.Bits - 1; l >= 0; l-- {
		for d := 0; d < s.Dims; d++ {
			p[d] |= (c >> uint(j) & 1) << uint(l)
			j--
		}
	}
}

// encode returns the code of p (checked) as Encode does.
func (s *Space) encode(p []uint64) []byte {
	code := make([]byte, s.width)
	if total := s.Dims * s.Bits; total <= 64 {
		c := s.code64(p) << uint(64-total)
		for i := range code {
			code[i] = byte(c >> uint(56-8*i))
		}
		return code
	}
	j := 0
	for l := s.Bits - 1; l >= 0; l-- {
		for d := 0; d < s.Dims; d++ {
			if p[d]>>uint(l)&1 == 1 {
				code[j>>3] |= 0x80 >> uint(j&7)
			}
			j++
		}
	}
	return code
}

// Encode returns the Z-order code of p.
func (s *Space) Encode(p []uint64) ([]byte, error) {
	if err := s.check(p); err != nil {
		return nil, err
	}
	return s.encode(p), nil
}

// Decode returns the point of a Z-order code.
func (s *Space) Decode(code []byte) []uint64 {
	p := make([]uint64, s.Dims)
	if total := s.Dims * s.Bits; total <= 64 {
		var c uint64
		for i := range s.width {
			c |= uint64(code[i]) << uint(56-8*i)
		}
		s.point64(c>>uint(64-total), p)
		return p
	}
	j := 0
	for l := s.Bits - 1; l >= 0; l-- {
		for d := 0; d < s.Dims; d++ {
			if code[j>>3]&(0x80>>uint(j&7)) != 0 {
				p[d] |= 1 << uint(l)
			}
			j++
		}
	}
	return p
}

// KEYS: z, ids. ARGV: op ("put"/"del"), id, code.
var spaceScript = backend.NewScript(`
local old = redis.call('HGET', KEYS[2], ARGV[2])
if old then redis.call('ZREM', KEYS[1], old .. ARGV[2]) end
if ARGV[1] == 'put' then
  redis.call('ZADD', KEYS[1], 0, ARGV[3] .. ARGV[2])
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
else
  redis.call('HDEL', KEYS[2], ARGV[2])
end
return old and 1 or 0
`)

// Put stores (or moves) id at point p, atomically.
func (s *Space) Put(ctx context.Context, id string, p []uint64) error {
	if err := s.checkLayout(ctx); err != nil {
		return err
	}
	if err := s.check(p); err != nil {
		return err
	}
	if s.byScore {
		_, err := s.b.Do(ctx, "ZADD", s.zkey, strconv.FormatUint(s.code64(p), 10), id)
		return err
	}
	_, err := s.b.Eval(ctx, spaceScript, []string{s.zkey, s.hkey}, "put", id, s.encode(p))
	return err
}

// KEYS: z, ids. ARGV: id1, code1, id2, code2, ... (each as Put). Four
// commands per batch, not three per point: the old codes in one HMGET,
// the moved points' old members in one ZREM, then one ZADD and one HSET.
// An id given twice keeps its last point.
var spacePutManyScript = backend.NewScript(`
local ids, last = {}, {}
for i = 1, #ARGV, 2 do
  local id = ARGV[i]
  if last[id] == nil then ids[#ids+1] = id end
  last[id] = ARGV[i+1]
end
local old = redis.call('HMGET', KEYS[2], unpack(ids))
local zrem, zadd, hset = {}, {}, {}
for i, id in ipairs(ids) do
  local code = last[id]
  if old[i] ~= code then
    if old[i] then zrem[#zrem+1] = old[i] .. id end
    zadd[#zadd+1] = 0
    zadd[#zadd+1] = code .. id
    hset[#hset+1] = id
    hset[#hset+1] = code
  end
end
if #zrem > 0 then redis.call('ZREM', KEYS[1], unpack(zrem)) end
if #zadd > 0 then
  redis.call('ZADD', KEYS[1], unpack(zadd))
  redis.call('HSET', KEYS[2], unpack(hset))
end
return #ids
`)

// SpacePoint is one point for PutMany.
type SpacePoint struct {
	ID    string
	Point []uint64
}

const (
	// putManyBatch bounds the points of one command (ZADD) or script
	// call, so that a big load never holds the server long in one step.
	putManyBatch = 1000
	// putManyPipe is how many such commands go in one round trip.
	putManyPipe = 64
)

// PutMany stores (or moves) several points, 1,000 per command (each
// atomic, as Put), 64 commands per round trip: with the score layout one
// ZADD per batch, as GEOADD of 1,000 points (an id given twice keeps its
// last point, as in ZADD); otherwise one script call per batch. The
// points are checked before anything is written; if a command fails,
// PutMany returns its error after that round trip, and what was sent
// before stays written.
func (s *Space) PutMany(ctx context.Context, pts ...SpacePoint) error {
	for _, p := range pts {
		if err := s.check(p.Point); err != nil {
			return fmt.Errorf("point %q: %w", p.ID, err)
		}
	}
	if err := s.checkLayout(ctx); err != nil {
		return err
	}
	flush := func(cmds []backend.Cmd) error {
		res, err := s.b.Pipeline(ctx, cmds)
		if err != nil {
			return err
		}
		for i, r := range res {
			// A server that does not know the script yet refused the
			// batch whole: EVAL it (which loads it).
			if !s.byScore && backend.HasCode(r.Err, "NOSCRIPT") {
				_, r.Err = s.b.Eval(ctx, spacePutManyScript, []string{s.zkey, s.hkey}, cmds[i][5:]...)
			}
			if r.Err != nil && err == nil {
				err = r.Err
			}
		}
		return err
	}
	// The commands of the next round trip are built (codes formatted)
	// while the server works on the previous one; only this goroutine
	// uses the backend.
	groups := make(chan []backend.Cmd, 1)
	done := make(chan struct{})
	defer close(done)
	go func() {
		defer close(groups)
		var cmds []backend.Cmd
		for i := 0; i < len(pts); i += putManyBatch {
			batch := pts[i:min(i+putManyBatch, len(pts))]
			var cmd backend.Cmd
			if s.byScore {
				cmd = make(backend.Cmd, 0, 2+2*len(batch))
				cmd = append(cmd, "ZADD", s.zkey)
				for _, p := range batch {
					cmd = append(cmd, strconv.FormatUint(s.code64(p.Point), 10), p.ID)
				}
			} else {
				cmd = make(backend.Cmd, 0, 5+2*len(batch))
				cmd = append(cmd, "EVALSHA", spacePutManyScript.SHA, 2, s.zkey, s.hkey)
				for _, p := range batch {
					cmd = append(cmd, p.ID, s.encode(p.Point))
				}
			}
			cmds = append(cmds, cmd)
			if len(cmds) == putManyPipe || i+putManyBatch >= len(pts) {
				select {
				case groups <- cmds:
				case <-done:
					return
				}
				cmds = nil
			}
		}
	}()
	for cmds := range groups {
		if err := flush(cmds); err != nil {
			return err
		}
	}
	return nil
}

// Remove drops id and reports whether it was there.
func (s *Space) Remove(ctx context.Context, id string) (bool, error) {
	if err := s.checkLayout(ctx); err != nil {
		return false, err
	}
	var v any
	var err error
	if s.byScore {
		v, err = s.b.Do(ctx, "ZREM", s.zkey, id)
	} else {
		v, err = s.b.Eval(ctx, spaceScript, []string{s.zkey, s.hkey}, "del", id, "")
	}
	if err != nil {
		return false, err
	}
	n, err := asInt(v)
	return n == 1, err
}

// Get returns the point of id.
func (s *Space) Get(ctx context.Context, id string) ([]uint64, bool, error) {
	if err := s.checkLayout(ctx); err != nil {
		return nil, false, err
	}
	if s.byScore {
		v, err := s.b.Do(ctx, "ZSCORE", s.zkey, id)
		if err != nil || v == nil {
			return nil, false, err
		}
		c, err := scoreCode(v)
		if err != nil {
			return nil, false, err
		}
		p := make([]uint64, s.Dims)
		s.point64(c, p)
		return p, true, nil
	}
	v, err := s.b.Do(ctx, "HGET", s.hkey, id)
	if err != nil || v == nil {
		return nil, false, err
	}
	code, _ := asString(v)
	if len(code) != s.width {
		return nil, false, fmt.Errorf("index: %s holds a code of %d bytes, want %d", s.hkey, len(code), s.width)
	}
	return s.Decode([]byte(code)), true, nil
}

// scoreCode reads a code stored as a score (an integer below 2^53).
func scoreCode(v any) (uint64, error) {
	switch x := v.(type) {
	case string:
		if c, err := strconv.ParseUint(x, 10, 64); err == nil {
			return c, nil
		}
		f, err := strconv.ParseFloat(x, 64)
		if err != nil || f < 0 || f >= 1<<scoreBits || f != math.Trunc(f) {
			return 0, fmt.Errorf("index: a space score %q is not a code", x)
		}
		return uint64(f), nil
	case float64:
		if x < 0 || x >= 1<<scoreBits || x != math.Trunc(x) {
			return 0, fmt.Errorf("index: a space score %v is not a code", x)
		}
		return uint64(x), nil
	case int64:
		if x < 0 {
			return 0, fmt.Errorf("index: a space score %d is not a code", x)
		}
		return uint64(x), nil
	}
	return 0, fmt.Errorf("index: expected a score, got %T", v)
}

func (s *Space) lenCmd() backend.Cmd {
	if s.byScore {
		return backend.Cmd{"ZCARD", s.zkey}
	}
	return backend.Cmd{"HLEN", s.hkey}
}

// Len is the number of points.
func (s *Space) Len(ctx context.Context) (int64, error) {
	if err := s.checkLayout(ctx); err != nil {
		return 0, err
	}
	v, err := s.b.Do(ctx, s.lenCmd()...)
	if err != nil {
		return 0, err
	}
	n, err := asInt(v)
	if err == nil {
		s.count.Store(n)
	}
	return n, err
}

// PointHit is one point found.
type PointHit struct {
	ID    string
	Point []uint64
	Dist  float64 // Euclidean distance from the center (Within, Nearest)
}

// SpaceStats describe how a query ran.
type SpaceStats struct {
	Ranges  int // ranges of codes read
	Scanned int // members read (found + read outside the region)
	Rounds  int // round trips to the backend
}

// Ranges decomposes the box lo..hi (inclusive) into at most MaxRanges
// inclusive ranges of Z-order codes (as Encode writes them), in order.
func (s *Space) Ranges(lo, hi []uint64) ([][2][]byte, error) {
	if err := s.checkBox(lo, hi); err != nil {
		return nil, err
	}
	if boxEmpty(lo, hi) {
		return nil, nil
	}
	z, runs := s.decompose(boxRegion{lo, hi}, max(s.MaxRanges, 1))
	out := make([][2][]byte, len(runs))
	for i, r := range runs {
		out[i] = [2][]byte{s.encode(z.corner(z.tiles[r.first])), s.encode(z.upper(z.tiles[r.last]))}
	}
	s.release(z)
	return out, nil
}

func (s *Space) checkBox(lo, hi []uint64) error {
	if err := s.check(lo); err != nil {
		return err
	}
	return s.check(hi)
}

func boxEmpty(lo, hi []uint64) bool {
	for d := range lo {
		if lo[d] > hi[d] {
			return true
		}
	}
	return false
}

// rangeCmds returns the commands reading the runs.
func (s *Space) rangeCmds(z *decomp, runs []zRun) []backend.Cmd {
	cmds := make([]backend.Cmd, len(runs), len(runs)+1)
	for i, r := range runs {
		lo, hi := z.corner(z.tiles[r.first]), z.upper(z.tiles[r.last])
		if s.byScore {
			cmds[i] = backend.Cmd{"ZRANGE", s.zkey, strconv.FormatUint(s.code64(lo), 10),
				strconv.FormatUint(s.code64(hi), 10), "BYSCORE", "WITHSCORES"}
			continue
		}
		upper := "+"
		if next, ok := s.incCode(s.encode(hi)); ok {
			upper = "(" + string(next)
		}
		cmds[i] = backend.Cmd{"ZRANGE", s.zkey, "[" + string(s.encode(lo)), upper, "BYLEX"}
	}
	return cmds
}

// unit is the last code bit's value in the code's last byte: codes of
// Dims×Bits bits not a multiple of 8 end in padding bits, always zero.
func (s *Space) unit() int { return 1 << uint(s.width*8-s.Dims*s.Bits) }

// incCode returns the code after code, or false when code is the last.
func (s *Space) incCode(code []byte) ([]byte, bool) {
	out := append([]byte(nil), code...)
	carry := s.unit()
	for i := len(out) - 1; i >= 0 && carry > 0; i-- {
		v := int(out[i]) + carry
		out[i], carry = byte(v), v>>8
	}
	if carry > 0 {
		return nil, false
	}
	return out, true
}

// rangesFor is how many ranges a query of r is worth: a range costs a
// command (a microsecond or two on the server), a member read outside r
// costs its reply (about a third of that), and the members read outside
// shrink about as 1/ranges in 2 dimensions: so about the square root of
// the points r is expected to hold if they were spread evenly, between
// MaxRanges/2 and MaxRanges (MaxRanges while the count is unknown).
func (s *Space) rangesFor(r region) int {
	maxR := max(s.MaxRanges, 1)
	n := s.count.Load()
	if n <= 0 {
		return maxR
	}
	expected := float64(n) * r.volume(math.Ldexp(1, s.Bits))
	return min(maxR, max((maxR+1)/2, int(math.Sqrt(expected))))
}

// query reads the region r in one round trip; with count (or while the
// number of points is unknown) it also reads that number in the same
// pipeline, keeps it for rangesFor and Nearest, and returns it (else -1).
func (s *Space) query(ctx context.Context, r region, count bool) ([]PointHit, SpaceStats, int64, error) {
	if err := s.checkLayout(ctx); err != nil {
		return nil, SpaceStats{}, -1, err
	}
	var st SpaceStats
	count = count || s.count.Load() <= 0
	z, runs := s.decompose(r, s.rangesFor(r))
	cmds := s.rangeCmds(z, runs)
	s.release(z)
	if count {
		cmds = append(cmds, s.lenCmd())
	}
	st.Ranges, st.Rounds = len(runs), 1
	res, err := s.b.Pipeline(ctx, cmds)
	if err != nil {
		return nil, st, -1, err
	}
	n := int64(-1)
	if count {
		last := res[len(res)-1]
		if last.Err != nil {
			return nil, st, -1, last.Err
		}
		if n, err = asInt(last.Val); err != nil {
			return nil, st, -1, err
		}
		s.count.Store(n)
		res = res[:len(res)-1]
	}
	// One allocation for the hits and (codes as scores) one for their
	// points, sized by what was read.
	read := 0
	for _, rr := range res {
		if rr.Err != nil {
			return nil, st, n, rr.Err
		}
		arr, _ := rr.Val.([]any)
		if len(arr) > 0 && s.byScore {
			if _, nested := arr[0].([]any); !nested {
				read += len(arr) / 2 // RESP2: member, score, ...
				continue
			}
		}
		read += len(arr)
	}
	out := make([]PointHit, 0, read)
	var slab []uint64
	if s.byScore {
		slab = make([]uint64, 0, s.Dims*read)
	}
	for _, rr := range res {
		if out, slab, err = s.collect(rr.Val, r, out, slab, &st); err != nil {
			return nil, st, n, err
		}
	}
	return out, st, n, nil
}

// collect appends the points of one range's reply that are in r (with
// codes as scores, their coordinates taken from slab's spare capacity).
func (s *Space) collect(v any, r region, out []PointHit, slab []uint64, st *SpaceStats) ([]PointHit, []uint64, error) {
	arr, ok := v.([]any)
	if !ok {
		if v == nil {
			return out, slab, nil
		}
		return nil, nil, fmt.Errorf("index: expected an array reply, got %T", v)
	}
	if !s.byScore {
		st.Scanned += len(arr)
		for _, x := range arr {
			m, ok := asString(x)
			if !ok || len(m) < s.width {
				return nil, nil, fmt.Errorf("index: %s holds a member shorter than a code", s.zkey)
			}
			p := s.Decode([]byte(m[:s.width]))
			if r.contains(p) {
				out = append(out, PointHit{ID: m[s.width:], Point: p})
			}
		}
		return out, slab, nil
	}
	// RESP2: [m1 s1 m2 s2 ...]; RESP3: [[m1 s1] [m2 s2] ...].
	step := 2
	if len(arr) > 0 {
		if _, nested := arr[0].([]any); nested {
			step = 1
		}
	}
	if step == 2 && len(arr)%2 != 0 {
		return nil, nil, fmt.Errorf("index: odd member/score reply")
	}
	for i := 0; i < len(arr); i += step {
		mv, sv := arr[i], any(nil)
		if step == 1 {
			pair, _ := arr[i].([]any)
			if len(pair) != 2 {
				return nil, nil, fmt.Errorf("index: malformed pair in reply")
			}
			mv, sv = pair[0], pair[1]
		} else {
			sv = arr[i+1]
		}
		st.Scanned++
		c, err := scoreCode(sv)
		if err != nil {
			return nil, nil, err
		}
		at := len(slab)
		if at+s.Dims > cap(slab) {
			slab = make([]uint64, 0, 64*s.Dims) // not sized by the caller
			at = 0
		}
		slab = slab[:at+s.Dims]
		p := slab[at : at+s.Dims : at+s.Dims]
		s.point64(c, p)
		if r.contains(p) {
			id, _ := asString(mv)
			out = append(out, PointHit{ID: id, Point: p})
		} else {
			slab = slab[:at]
		}
	}
	return out, slab, nil
}

// Box returns the points with lo[d] ≤ p[d] ≤ hi[d] in every dimension, in
// Z order.
func (s *Space) Box(ctx context.Context, lo, hi []uint64) ([]PointHit, error) {
	hits, _, err := s.BoxStats(ctx, lo, hi)
	return hits, err
}

// BoxStats is Box that also reports how much it read.
func (s *Space) BoxStats(ctx context.Context, lo, hi []uint64) ([]PointHit, SpaceStats, error) {
	if err := s.checkBox(lo, hi); err != nil || boxEmpty(lo, hi) {
		return nil, SpaceStats{}, err
	}
	hits, st, _, err := s.query(ctx, boxRegion{lo, hi}, false)
	return hits, st, err
}

func dist(a, b []uint64) float64 {
	sum := 0.0
	for d := range a {
		x := float64(a[d]) - float64(b[d])
		sum += x * x
	}
	return math.Sqrt(sum)
}

// Within returns the points at Euclidean distance ≤ r from center, nearest
// first (ties by id).
func (s *Space) Within(ctx context.Context, center []uint64, r float64) ([]PointHit, error) {
	hits, _, err := s.WithinStats(ctx, center, r)
	return hits, err
}

// WithinStats is Within that also reports how much it read.
func (s *Space) WithinStats(ctx context.Context, center []uint64, r float64) ([]PointHit, SpaceStats, error) {
	if err := s.check(center); err != nil {
		return nil, SpaceStats{}, err
	}
	if r < 0 || math.IsNaN(r) {
		return nil, SpaceStats{}, nil
	}
	hits, st, _, err := s.query(ctx, ballRegion{c: center, r: r, inner: -1}, false)
	if err != nil {
		return nil, st, err
	}
	for i := range hits {
		hits[i].Dist = dist(hits[i].Point, center)
	}
	return sortHits(hits, -1), st, nil
}

// sortHits orders hs nearest first, ties by id, and returns the first
// k (all with k < 0). It sorts 16-byte keys and moves each hit once: a
// sort of the 48-byte hits themselves copies two of them per comparison,
// and was most of Nearest's own time.
func sortHits(hs []PointHit, k int) []PointHit {
	if k < 0 || k > len(hs) {
		k = len(hs)
	}
	type key struct {
		d float64
		i int
	}
	keys := make([]key, len(hs))
	for i := range hs {
		keys[i] = key{hs[i].Dist, i}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.d != b.d {
			return cmp.Compare(a.d, b.d)
		}
		return strings.Compare(hs[a.i].ID, hs[b.i].ID)
	})
	out := make([]PointHit, k)
	for j := range out {
		out[j] = hs[keys[j].i]
	}
	return out
}

// radiusFor returns the radius around c of a ball expected to hold want
// of n points spread evenly, counting only its part inside the space.
func (s *Space) radiusFor(c []uint64, n int64, want float64) float64 {
	side := float64(s.maxCoord()) + 1
	dims := float64(s.Dims)
	lg, _ := math.Lgamma(dims/2 + 1)
	logUnit := dims/2*math.Log(math.Pi) - lg // log of the unit ball's volume
	expected := func(h float64) float64 {
		clip := 1.0
		for _, v := range c {
			x := float64(v)
			clip *= (math.Min(x+h, side) - math.Max(x-h, 0)) / (2 * h)
		}
		return float64(n) * math.Exp(logUnit+dims*(math.Log(h)-math.Log(side))) * clip
	}
	lo, hi := 0.5, side*math.Sqrt(dims)
	if expected(hi) <= want {
		return hi
	}
	for range 60 { // bisection on a log scale
		mid := math.Sqrt(lo * hi)
		if expected(mid) < want {
			lo = mid
		} else {
			hi = mid
		}
		if hi/lo < 1.01 {
			break
		}
	}
	return hi
}

// Nearest returns the k points nearest to center (Euclidean distance over
// the coordinates), nearest first, ties by id. It reads the ball around
// center expected to hold a few more than k points if they were spread
// evenly (the count it last saw, refreshed by ZCARD or HLEN in the same
// round trip), and if it holds fewer, the shell around it, wider, until
// it has k (then no point outside can be nearer) or the whole space.
func (s *Space) Nearest(ctx context.Context, center []uint64, k int) ([]PointHit, SpaceStats, error) {
	var st SpaceStats
	if err := s.check(center); err != nil || k <= 0 {
		return nil, st, err
	}
	n := s.count.Load()
	if n <= 0 {
		var err error
		n, err = s.Len(ctx)
		st.Rounds++
		if err != nil || n == 0 {
			return nil, st, err
		}
	}
	want := float64(k) + 3*math.Sqrt(float64(k)) + 2
	h := s.radiusFor(center, n, want)
	whole := float64(s.maxCoord()) * math.Sqrt(float64(s.Dims)) * (1 + ballSlack)
	inner := -1.0
	var got []PointHit
	for range 200 {
		hits, qst, cnt, err := s.query(ctx, ballRegion{c: center, r: h, inner: inner}, true)
		st.Ranges += qst.Ranges
		st.Scanned += qst.Scanned
		st.Rounds += qst.Rounds
		if err != nil {
			return nil, st, err
		}
		n = cnt
		if got == nil {
			got = hits
		} else {
			got = append(got, hits...)
		}
		if len(got) >= k || h >= whole || int64(len(got)) >= n {
			for i := range got {
				got[i].Dist = dist(got[i].Point, center)
			}
			return sortHits(got, k), st, nil
		}
		inner = h
		if len(got) == 0 {
			h *= 2
		} else {
			h *= math.Max(1.2, math.Pow(want/float64(len(got)), 1/float64(s.Dims)))
		}
		h = math.Min(h, whole)
	}
	return nil, st, fmt.Errorf("index: nearest-neighbour search did not converge")
}

// SignedCoord maps a signed integer of bits bits (-2^(bits-1) ≤ v <
// 2^(bits-1)) onto an unsigned coordinate, keeping the order.
func SignedCoord(v int64, bits int) uint64 {
	u := uint64(v) + 1<<uint(bits-1)
	if bits < 64 {
		u &= 1<<uint(bits) - 1
	}
	return u
}

// FromSignedCoord is the inverse of SignedCoord.
func FromSignedCoord(u uint64, bits int) int64 { return int64(u - 1<<uint(bits-1)) }

// Scale maps floats in [Min, Max] onto the coordinates [0, 2^Bits-1]
// linearly, rounding to the nearest step.
type Scale struct {
	Min, Max float64
	Bits     int
}

func (s Scale) steps() float64 {
	if s.Bits >= 64 {
		return math.Ldexp(1, 64) - 1
	}
	return float64(uint64(1)<<uint(s.Bits) - 1)
}

// Step is the distance between two consecutive coordinates: a value is
// stored to within Step/2 (floats beyond 2^53 steps lose more).
func (s Scale) Step() float64 { return (s.Max - s.Min) / s.steps() }

// Coord maps x (clamped to [Min, Max]) to its nearest coordinate.
func (s Scale) Coord(x float64) uint64 {
	if !(x > s.Min) { // also NaN
		return 0
	}
	if x >= s.Max {
		return s.maxU()
	}
	f := math.Round((x - s.Min) / (s.Max - s.Min) * s.steps())
	if f >= s.steps() {
		return s.maxU()
	}
	return uint64(f)
}

func (s Scale) maxU() uint64 {
	if s.Bits >= 64 {
		return math.MaxUint64
	}
	return 1<<uint(s.Bits) - 1
}

// Value maps a coordinate back to a float.
func (s Scale) Value(u uint64) float64 { return s.Min + float64(u)*s.Step() }

// Bounds returns the coordinates to query so that every point stored
// from a value in [lo, hi] is inside (each bound rounded outwards).
func (s Scale) Bounds(lo, hi float64) (uint64, uint64) {
	l := s.Coord(lo)
	if l > 0 && s.Value(l) > lo {
		l--
	}
	h := s.Coord(hi)
	if h < s.maxU() && s.Value(h) < hi {
		h++
	}
	return l, h
}
