package engine

// Sorted sets: ZADD, ZINCRBY, ZREM, ZCARD, ZSCORE, ZMSCORE, ZRANK,
// ZREVRANK, ZCOUNT, ZLEXCOUNT, ZRANGE (BYSCORE, BYLEX, REV, LIMIT,
// WITHSCORES), ZRANGESTORE, ZREVRANGE, ZRANGEBYSCORE, ZREVRANGEBYSCORE,
// ZRANGEBYLEX, ZREVRANGEBYLEX, ZREMRANGEBYRANK/SCORE/LEX, ZPOPMIN,
// ZPOPMAX, BZPOPMIN, BZPOPMAX, ZMPOP, BZMPOP, ZRANDMEMBER, ZUNION, ZINTER,
// ZDIFF and their STORE forms, ZINTERCARD, ZSCAN — with Redis 7.0's
// replies and errors. The structure is internal/ds/zset; this file
// parses arguments, writes replies and keeps the keyspace rules (empty
// sets deleted, WATCH, blocked clients, propagation).

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/ds/glob"
	"github.com/ordo-db/ordo/internal/ds/mem"
	"github.com/ordo-db/ordo/internal/ds/zset"
	"github.com/ordo-db/ordo/internal/resp"
)

// ErrZSetTooLarge refuses a write that would make the members of one
// sorted set exceed zset.MaxMemberBytes. Ordo's own: Redis has no such
// limit.
const ErrZSetTooLarge = "ERR the members of one sorted set cannot exceed 4 GiB in total"

// Sorted-set error replies, exactly as Redis 7.0 writes them.
const (
	ErrZAddXXNX        = "ERR XX and NX options at the same time are not compatible"
	ErrZAddGTLTNX      = "ERR GT, LT, and/or NX options at the same time are not compatible"
	ErrZAddIncrPair    = "ERR INCR option supports a single increment-element pair"
	ErrZMinMaxFloat    = "ERR min or max is not a float"
	ErrZMinMaxLex      = "ERR min or max not valid string range item"
	ErrZLimitRank      = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	ErrZWithscoresLex  = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
	ErrZWeightFloat    = "ERR weight value is not a float"
	ErrZLimitNegative  = "ERR LIMIT can't be negative"
	ErrZNumkeys        = "ERR numkeys should be greater than 0"
	ErrZRandRange      = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	ErrZRandWithscores = "ERR value is out of range"
)

// ZSet is a sorted set value. Below zset-max-listpack-entries members of
// at most zset-max-listpack-value bytes it has no member index and
// reports the "listpack" encoding (linear lookups, as Redis's listpack);
// past the limits it builds the index and reports "skiplist".
type ZSet struct {
	sized
	s zset.Set // by value: a small set is this header and one buffer
}

// TypeName implements Typed.
func (z *ZSet) TypeName() string { return "zset" }

// Encoding implements Typed.
func (z *ZSet) Encoding() string {
	if z.s.Indexed() {
		return "skiplist"
	}
	return "listpack"
}

// Len implements Typed.
func (z *ZSet) Len() int { return z.s.Len() }

// Copy implements Typed.
func (z *ZSet) Copy() Typed { return &ZSet{s: *z.s.Copy()} }

// MemoryUsage implements Typed.
func (z *ZSet) MemoryUsage() int64 { return 16 + z.s.MemoryUsage() }

// Rewrite implements Typed: ZADD commands of up to 64 pairs, in order.
func (z *ZSet) Rewrite(key string, emit func(args [][]byte)) {
	var args [][]byte
	z.s.Range(0, false, func(m []byte, score float64) bool {
		if args == nil {
			args = append(make([][]byte, 0, 2+2*hsRewriteBatch), []byte("ZADD"), []byte(key))
		}
		args = append(args, resp.AppendDouble(nil, score), append([]byte(nil), m...))
		if len(args) == 2+2*hsRewriteBatch {
			emit(args)
			args = nil
		}
		return true
	})
	if args != nil {
		emit(args)
	}
}

// Score returns the score of member (for other value families: GEO).
func (z *ZSet) Score(member []byte) (float64, bool) { return z.s.Score(member) }

// Range calls fn for the elements from rank start in ascending order (or
// descending when rev) until fn returns false; member is a view valid
// only during the call.
func (z *ZSet) Range(start int, rev bool, fn func(member []byte, score float64) bool) {
	z.s.Range(start, rev, fn)
}

// Set returns the underlying structure (read-only use by other families).
func (z *ZSet) Set() *zset.Set { return &z.s }

type zsetLimits struct {
	entries, value int
	acct           *mem.Acct // where an indexed set counts its mappings
}

func zlimits(c *Ctx) zsetLimits {
	hs := c.E.Config.hot()
	return zsetLimits{int(hs.zsetMaxEntries), int(hs.zsetMaxValue), c.E.acct}
}

// newZSet creates a set for sizeHint members of at most maxLen bytes,
// with the encoding Redis's zsetTypeCreate would choose.
func newZSet(lim zsetLimits, sizeHint, maxLen int) *ZSet {
	z := &ZSet{}
	if sizeHint > lim.entries || maxLen > lim.value {
		z.s.BuildIndex(lim.acct)
	}
	return z
}

// insert adds m, known to be absent, converting to the indexed encoding
// first when it would exceed the listpack limits.
func (z *ZSet) insert(lim zsetLimits, m []byte, score float64) {
	// Converted first, as Redis's zsetAdd does: the new member keeps a
	// score of -0 in the indexed form, while the packed form stores 0.
	if !z.s.Indexed() && (z.s.Len()+1 > lim.entries || len(m) > lim.value) {
		z.s.BuildIndex(lim.acct)
	}
	z.s.Insert(m, score)
}

func registerSortedSets(t *Table) {
	t.register("zadd", func(c *Ctx) { zaddGeneric(c, false) })
	t.register("zincrby", func(c *Ctx) { zaddGeneric(c, true) })
	t.register("zrem", zremCommand)
	t.register("zcard", zcardCommand)
	t.register("zscore", zscoreCommand)
	t.register("zmscore", zmscoreCommand)
	t.register("zrank", func(c *Ctx) { zrankGeneric(c, false) })
	t.register("zrevrank", func(c *Ctx) { zrankGeneric(c, true) })
	t.register("zcount", zcountCommand)
	t.register("zlexcount", zlexcountCommand)
	t.register("zrange", func(c *Ctx) { zrangeGeneric(c, 1, false, rangeAuto, dirAuto) })
	t.register("zrangestore", func(c *Ctx) { zrangeGeneric(c, 2, true, rangeAuto, dirAuto) })
	t.register("zrevrange", func(c *Ctx) { zrangeGeneric(c, 1, false, rangeRank, dirRev) })
	t.register("zrangebyscore", func(c *Ctx) { zrangeGeneric(c, 1, false, rangeScore, dirFwd) })
	t.register("zrevrangebyscore", func(c *Ctx) { zrangeGeneric(c, 1, false, rangeScore, dirRev) })
	t.register("zrangebylex", func(c *Ctx) { zrangeGeneric(c, 1, false, rangeLex, dirFwd) })
	t.register("zrevrangebylex", func(c *Ctx) { zrangeGeneric(c, 1, false, rangeLex, dirRev) })
	t.register("zremrangebyrank", func(c *Ctx) { zremrangeGeneric(c, rangeRank) })
	t.register("zremrangebyscore", func(c *Ctx) { zremrangeGeneric(c, rangeScore) })
	t.register("zremrangebylex", func(c *Ctx) { zremrangeGeneric(c, rangeLex) })
	t.register("zpopmin", func(c *Ctx) { zpopCommand(c, false) })
	t.register("zpopmax", func(c *Ctx) { zpopCommand(c, true) })
	t.register("bzpopmin", func(c *Ctx) { bzpopCommand(c, false) })
	t.register("bzpopmax", func(c *Ctx) { bzpopCommand(c, true) })
	t.register("zmpop", func(c *Ctx) { zmpopGeneric(c, 1, false) }).Keys = GenericKeys(0, 1, 2)
	t.register("bzmpop", func(c *Ctx) { zmpopGeneric(c, 2, true) }).Keys = GenericKeys(0, 2, 3)
	t.register("zrandmember", zrandmemberCommand)
	t.register("zunion", func(c *Ctx) { zsetOpGeneric(c, false, 1, zopUnion, false) }).Keys = GenericKeys(0, 1, 2)
	t.register("zinter", func(c *Ctx) { zsetOpGeneric(c, false, 1, zopInter, false) }).Keys = GenericKeys(0, 1, 2)
	t.register("zdiff", func(c *Ctx) { zsetOpGeneric(c, false, 1, zopDiff, false) }).Keys = GenericKeys(0, 1, 2)
	t.register("zintercard", func(c *Ctx) { zsetOpGeneric(c, false, 1, zopInter, true) }).Keys = GenericKeys(0, 1, 2)
	t.register("zunionstore", func(c *Ctx) { zsetOpGeneric(c, true, 2, zopUnion, false) }).Keys = GenericKeys(1, 2, 3)
	t.register("zinterstore", func(c *Ctx) { zsetOpGeneric(c, true, 2, zopInter, false) }).Keys = GenericKeys(1, 2, 3)
	t.register("zdiffstore", func(c *Ctx) { zsetOpGeneric(c, true, 2, zopDiff, false) }).Keys = GenericKeys(1, 2, 3)
	t.register("zscan", zscanCommand)
}

// zsetRead returns the sorted set at key (nil if missing); ok is false
// after a WRONGTYPE reply.
func zsetRead(c *Ctx, key []byte) (*ZSet, bool) { return Get[*ZSet](c, key) }

// zsetChanged finishes a write to the set at key: deletes it if empty,
// signals WATCH and records the changes.
func zsetChanged(c *Ctx, key []byte, z *ZSet, n int) {
	if n == 0 {
		return
	}
	if z.s.Len() == 0 {
		c.Emptied(key)
	} else {
		c.Modified(key)
	}
	c.Dirty(n)
}

// writeScore writes a score as Redis does (bulk %.17g in RESP2, double in RESP3).
func writeScore(c *Ctx, f float64) { c.W.Double(f) }

// ---- ZADD / ZINCRBY ----

func zaddGeneric(c *Ctx, zincrby bool) {
	var nx, xx, gt, lt, ch, incr bool
	idx := 2
	if zincrby {
		incr = true
	} else {
		for ; idx < len(c.Args); idx++ {
			switch {
			case c.ArgIs(idx, "nx"):
				nx = true
			case c.ArgIs(idx, "xx"):
				xx = true
			case c.ArgIs(idx, "gt"):
				gt = true
			case c.ArgIs(idx, "lt"):
				lt = true
			case c.ArgIs(idx, "ch"):
				ch = true
			case c.ArgIs(idx, "incr"):
				incr = true
			default:
				goto done
			}
		}
	done:
	}
	elements := len(c.Args) - idx
	if elements%2 != 0 || elements == 0 {
		c.Error(ErrSyntax)
		return
	}
	elements /= 2
	if nx && xx {
		c.Error(ErrZAddXXNX)
		return
	}
	if (gt && nx) || (lt && nx) || (gt && lt) {
		c.Error(ErrZAddGTLTNX)
		return
	}
	if incr && elements > 1 {
		c.Error(ErrZAddIncrPair)
		return
	}
	if incr {
		c.SetEvent("zincr")
	}
	var sbuf [8]float64
	scores := sbuf[:0]
	if elements > len(sbuf) {
		scores = make([]float64, 0, elements)
	}
	scores = scores[:elements]
	for j := range scores {
		f, ok := parseZFloat(c.Args[idx+2*j])
		if !ok {
			c.Error(ErrNotFloat)
			return
		}
		scores[j] = f
	}
	key := c.Args[1]
	z, ok := zsetRead(c, key)
	if !ok {
		return
	}
	if !xx {
		// Refused before any change: the members given, added to what the
		// set holds, must fit in one set.
		extra := int64(0)
		for j := 0; j < elements; j++ {
			extra += int64(len(c.Args[idx+2*j+1]))
		}
		held := int64(0)
		if z != nil {
			held = int64(z.s.MemberBytes())
		}
		if extra > c.E.zsetMaxBytes-held && z != nil {
			// Near the limit: count only the members not yet there.
			extra = 0
			for j := 0; j < elements; j++ {
				if m := c.Args[idx+2*j+1]; !zsetHas(z, m) {
					extra += int64(len(m))
				}
			}
		}
		if extra > c.E.zsetMaxBytes-held {
			c.Error(ErrZSetTooLarge)
			return
		}
	}
	var lim zsetLimits
	if z == nil || !z.s.Indexed() {
		lim = zlimits(c) // only the small form needs the limits
	}
	added, updated, processed := 0, 0, 0
	var score float64
	if z == nil {
		if xx {
			goto reply
		}
		// Redis 7.0's ZADD creates a listpack unless the first member
		// alone exceeds the limits, and converts as members are added:
		// the members added before the conversion lose a -0 score.
		z = newZSet(lim, 1, len(c.Args[idx+1]))
		c.Add(key, ObjectValue(z))
		c.Ready(key)
	}
	for j := 0; j < elements; j++ {
		score = scores[j]
		m := c.Args[idx+2*j+1]
		ref, exists := z.s.Find(m)
		if exists {
			cur := z.s.RefScore(ref)
			if nx {
				continue
			}
			if incr {
				score += cur
				if math.IsNaN(score) {
					c.Error(ErrNaN)
					zaddFinish(c, key, z, added+updated)
					return
				}
			}
			if (lt && score >= cur) || (gt && score <= cur) {
				continue
			}
			processed++
			if score != cur {
				// The reply shows score as computed (-0 included); the
				// packed form stores -0 as 0.
				z.s.SetScore(ref, score)
				updated++
			}
		} else if !xx {
			z.insert(lim, m, score)
			added++
			processed++
		}
	}
	zaddFinish(c, key, z, added+updated)
reply:
	if incr {
		if processed > 0 {
			writeScore(c, score)
		} else {
			c.W.Null()
		}
		return
	}
	if ch {
		c.W.Int(int64(added + updated))
	} else {
		c.W.Int(int64(added))
	}
}

func zaddFinish(c *Ctx, key []byte, z *ZSet, n int) {
	if z.s.Len() == 0 {
		// A key created for a command that added nothing (cannot happen
		// with valid input, but never leave an empty set behind).
		c.Delete(key)
		return
	}
	if n > 0 {
		c.Modified(key)
		c.Dirty(n)
	}
}

// parseZFloat parses a score as Redis's getDoubleFromObject (strtod):
// no leading space, nothing after the number, hex accepted, overflow and
// underflow to zero rejected, NaN rejected.
func parseZFloat(b []byte) (float64, bool) {
	if len(b) == 0 || isSpaceByte(b[0]) {
		return 0, false
	}
	if f, ok := parseFloatArg(b); ok {
		return f, true
	}
	s := hexFix(string(b))
	if s == string(b) {
		return 0, false
	}
	return parseFloatArg([]byte(s))
}

// hexFix makes a C hex float ("0x10", "0x1.8") acceptable to Go's
// ParseFloat, which requires the binary exponent.
func hexFix(s string) string {
	if t := strings.TrimLeft(s, "+-"); len(t) > 2 && (t[:2] == "0x" || t[:2] == "0X") && !strings.ContainsAny(t, "pP") {
		return s + "p0"
	}
	return s
}

// ---- simple reads and ZREM ----

func zremCommand(c *Ctx) {
	key := c.Args[1]
	z, ok := zsetRead(c, key)
	if !ok {
		return
	}
	if z == nil {
		c.W.Int(0)
		return
	}
	n := 0
	for _, m := range c.Args[2:] {
		if _, ok := z.s.Delete(m); ok {
			n++
			if z.s.Len() == 0 {
				break
			}
		}
	}
	zsetChanged(c, key, z, n)
	c.W.Int(int64(n))
}

func zcardCommand(c *Ctx) {
	z, ok := zsetRead(c, c.Args[1])
	if !ok {
		return
	}
	if z == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(z.s.Len()))
}

func zscoreCommand(c *Ctx) {
	z, ok := zsetRead(c, c.Args[1])
	if !ok {
		return
	}
	if z != nil {
		if f, ok := z.s.Score(c.Args[2]); ok {
			writeScore(c, f)
			return
		}
	}
	c.W.Null()
}

func zmscoreCommand(c *Ctx) {
	z, ok := zsetRead(c, c.Args[1])
	if !ok {
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, m := range c.Args[2:] {
		if z != nil {
			if f, ok := z.s.Score(m); ok {
				writeScore(c, f)
				continue
			}
		}
		c.W.Null()
	}
}

func zrankGeneric(c *Ctx, rev bool) {
	z, ok := zsetRead(c, c.Args[1])
	if !ok {
		return
	}
	if z != nil {
		if r, ok := z.s.Rank(c.Args[2]); ok {
			if rev {
				r = z.s.Len() - 1 - r
			}
			c.W.Int(int64(r))
			return
		}
	}
	c.W.Null()
}

// ---- ranges ----

// parseStrtod parses a score bound as C's strtod does in zslParseRange:
// leading spaces allowed, nothing after the number, an empty string is 0,
// overflow gives ±inf, NaN is rejected.
func parseStrtod(b []byte) (float64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	i := 0
	for i < len(b) && isSpaceByte(b[i]) {
		i++
	}
	b = b[i:]
	if len(b) == 0 {
		return 0, false
	}
	for _, ch := range b {
		if ch == '_' {
			return 0, false
		}
	}
	s := hexFix(string(b))
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	if math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

type scoreRange struct {
	min, max     float64
	minex, maxex bool
}

func parseScoreBound(b []byte) (float64, bool, bool) {
	if len(b) > 0 && b[0] == '(' {
		f, ok := parseStrtod(b[1:])
		return f, true, ok
	}
	f, ok := parseStrtod(b)
	return f, false, ok
}

func parseScoreRange(minb, maxb []byte) (scoreRange, bool) {
	var r scoreRange
	var ok1, ok2 bool
	r.min, r.minex, ok1 = parseScoreBound(minb)
	r.max, r.maxex, ok2 = parseScoreBound(maxb)
	return r, ok1 && ok2
}

// ranks returns the ascending rank interval [lo, hi) of the range.
func (r scoreRange) ranks(s *zset.Set) (int, int) {
	lo := s.CountBelowScore(r.min, r.minex)
	hi := s.CountBelowScore(r.max, !r.maxex)
	return lo, hi
}

// lexBound is one end of a lex range: kind '-' / '+' for the infinities,
// '[' inclusive, '(' exclusive.
type lexBound struct {
	kind byte
	m    []byte
}

func parseLexBound(b []byte) (lexBound, bool) {
	if len(b) == 0 {
		return lexBound{}, false
	}
	switch b[0] {
	case '+', '-':
		return lexBound{kind: b[0]}, len(b) == 1
	case '[', '(':
		return lexBound{kind: b[0], m: b[1:]}, true
	}
	return lexBound{}, false
}

type lexRange struct{ min, max lexBound }

func parseLexRange(minb, maxb []byte) (lexRange, bool) {
	a, ok1 := parseLexBound(minb)
	b, ok2 := parseLexBound(maxb)
	return lexRange{a, b}, ok1 && ok2
}

func (b lexBound) zbound() zset.LexBound {
	switch b.kind {
	case '-':
		return zset.LexBound{Inf: -1, Excl: true}
	case '+':
		return zset.LexBound{Inf: 1, Excl: true}
	}
	return zset.LexBound{M: b.m, Excl: b.kind == '('}
}

// ranks returns the ascending rank interval [lo, hi) of the range, walked
// forward (or backward when rev) as Redis does.
func (r lexRange) ranks(s *zset.Set, rev bool) (int, int) {
	return s.LexRange(r.min.zbound(), r.max.zbound(), rev)
}

// rankRange normalizes start/end indexes as Redis does; ok is false for
// an empty range.
func rankRange(start, end int64, n int) (int, int, bool) {
	ln := int64(n)
	if start < 0 {
		start += ln
	}
	if end < 0 {
		end += ln
	}
	if start < 0 {
		start = 0
	}
	if start > end || start >= ln {
		return 0, 0, false
	}
	if end >= ln {
		end = ln - 1
	}
	return int(start), int(end), true
}

type rangeType int

const (
	rangeAuto rangeType = iota
	rangeRank
	rangeScore
	rangeLex
)

type rangeDir int

const (
	dirAuto rangeDir = iota
	dirFwd
	dirRev
)

// zslice is a selected run of a set: count elements from rank first,
// ascending or descending.
type zslice struct {
	first, count int
	rev          bool
}

func (sl zslice) each(s *zset.Set, fn func(m []byte, score float64)) {
	left := sl.count
	if left <= 0 {
		return
	}
	s.RangeBatched(sl.first, sl.rev, func(m []byte, score float64) bool {
		fn(m, score)
		left--
		return left > 0
	})
}

// limitSlice applies LIMIT offset count to the ascending rank interval [lo, hi).
func limitSlice(lo, hi int, offset, limit int64, rev bool) zslice {
	if hi <= lo || offset < 0 || int64(hi-lo) <= offset {
		return zslice{}
	}
	n := int64(hi-lo) - offset
	if limit >= 0 && limit < n {
		n = limit
	}
	if rev {
		return zslice{first: hi - 1 - int(offset), count: int(n), rev: true}
	}
	return zslice{first: lo + int(offset), count: int(n)}
}

// writeZRange writes the elements of sl as Redis's range replies do:
// flat member/score pairs in RESP2, [member, score] arrays in RESP3.
func writeZRange(c *Ctx, s *zset.Set, sl zslice, withscores bool) {
	if withscores && c.W.Proto == 2 {
		c.W.Array(2 * sl.count)
	} else {
		c.W.Array(sl.count)
	}
	sl.each(s, func(m []byte, score float64) {
		if withscores && c.W.Proto == 3 {
			c.W.Array(2)
		}
		c.W.Bulk(m)
		if withscores {
			writeScore(c, score)
		}
	})
}

func zrangeGeneric(c *Ctx, argStart int, store bool, rt rangeType, dir rangeDir) {
	key := c.Args[argStart]
	minIdx, maxIdx := argStart+1, argStart+2
	withscores := false
	var offset, limit int64 = 0, -1
	for j := argStart + 3; j < len(c.Args); j++ {
		left := len(c.Args) - j - 1
		switch {
		case !store && c.ArgIs(j, "withscores"):
			withscores = true
		case c.ArgIs(j, "limit") && left >= 2:
			var ok bool
			if offset, ok = c.IntArg(j + 1); !ok {
				return
			}
			if limit, ok = c.IntArg(j + 2); !ok {
				return
			}
			j += 2
		case dir == dirAuto && c.ArgIs(j, "rev"):
			dir = dirRev
		case rt == rangeAuto && c.ArgIs(j, "bylex"):
			rt = rangeLex
		case rt == rangeAuto && c.ArgIs(j, "byscore"):
			rt = rangeScore
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	if dir == dirAuto {
		dir = dirFwd
	}
	if rt == rangeAuto {
		rt = rangeRank
	}
	if limit != -1 && rt == rangeRank {
		c.Error(ErrZLimitRank)
		return
	}
	if withscores && rt == rangeLex {
		c.Error(ErrZWithscoresLex)
		return
	}
	rev := dir == dirRev
	if rev && rt != rangeRank {
		minIdx, maxIdx = maxIdx, minIdx
	}
	var start, end int64
	var sr scoreRange
	var lr lexRange
	switch rt {
	case rangeRank:
		var ok bool
		if start, ok = c.IntArg(minIdx); !ok {
			return
		}
		if end, ok = c.IntArg(maxIdx); !ok {
			return
		}
	case rangeScore:
		var ok bool
		if sr, ok = parseScoreRange(c.Args[minIdx], c.Args[maxIdx]); !ok {
			c.Error(ErrZMinMaxFloat)
			return
		}
	case rangeLex:
		var ok bool
		if lr, ok = parseLexRange(c.Args[minIdx], c.Args[maxIdx]); !ok {
			c.Error(ErrZMinMaxLex)
			return
		}
	}
	z, ok := zsetRead(c, key)
	if !ok {
		return
	}
	if z == nil {
		if store {
			zstoreResult(c, c.Args[1], nil)
		} else {
			c.W.Array(0)
		}
		return
	}
	s := &z.s
	if rt == rangeScore && !store {
		writeScoreRange(c, s, sr, offset, limit, rev, withscores)
		return
	}
	var sl zslice
	switch rt {
	case rangeRank:
		a, b, ok := rankRange(start, end, s.Len())
		if ok {
			sl = zslice{first: a, count: b - a + 1}
			if rev {
				sl.first = s.Len() - 1 - a
				sl.rev = true
			}
		}
	case rangeScore:
		lo, hi := sr.ranks(s)
		sl = limitSlice(lo, hi, offset, limit, rev)
	case rangeLex:
		lo, hi := lr.ranks(s, rev)
		sl = limitSlice(lo, hi, offset, limit, rev)
	}
	if store {
		// As Redis 7.0's ZRANGESTORE: a listpack unless the count exceeds
		// the limit, converted at the first member too long for it.
		lim := zlimits(c)
		dst := newZSet(lim, sl.count, 0)
		sl.each(s, func(m []byte, score float64) { dst.insert(lim, m, score) })
		zstoreResult(c, c.Args[1], dst)
		return
	}
	writeZRange(c, s, sl, withscores)
}

// writeScoreRange replies to ZRANGE BYSCORE (and ZRANGEBYSCORE,
// ZREVRANGEBYSCORE) in one pass: one search for the end the scan starts
// from, then a batched scan that stops at the other end or the limit, the
// count written in front afterwards (as Redis's deferred length) rather
// than found by a second search.
func writeScoreRange(c *Ctx, s *zset.Set, r scoreRange, offset, limit int64, rev, withscores bool) {
	if offset < 0 {
		c.W.Array(0)
		return
	}
	var start int
	if rev {
		start = s.CountBelowScore(r.max, !r.maxex) - 1 - int(min(offset, int64(s.Len())))
	} else {
		start = s.CountBelowScore(r.min, r.minex) + int(min(offset, int64(s.Len())))
	}
	w := c.W
	at := w.Len()
	pairs := withscores && w.Proto == 3
	n := 0
	if start >= 0 && start < s.Len() && limit != 0 {
		s.RangeBatched(start, rev, func(m []byte, score float64) bool {
			if rev {
				if score < r.min || (r.minex && score == r.min) {
					return false
				}
			} else if score > r.max || (r.maxex && score == r.max) {
				return false
			}
			if pairs {
				w.Array(2)
			}
			w.Bulk(m)
			if withscores {
				w.Double(score)
			}
			n++
			return int64(n) != limit
		})
	}
	if withscores && w.Proto == 2 {
		w.InsertHeader(at, resp.KindArray, 2*n)
	} else {
		w.InsertHeader(at, resp.KindArray, n)
	}
}

// zstoreResult stores dst (nil or empty: deletes the destination) and
// replies with its size, as the *STORE commands do.
func zstoreResult(c *Ctx, key []byte, dst *ZSet) {
	if dst == nil || dst.s.Len() == 0 {
		if c.Delete(key) {
			c.Dirty(1)
		}
		c.W.Int(0)
		return
	}
	c.SetKey(key, ObjectValue(dst))
	c.Ready(key)
	c.Dirty(1)
	c.W.Int(int64(dst.s.Len()))
}

func zcountCommand(c *Ctx) {
	r, ok := parseScoreRange(c.Args[2], c.Args[3])
	if !ok {
		c.Error(ErrZMinMaxFloat)
		return
	}
	z, ok := zsetRead(c, c.Args[1])
	if !ok {
		return
	}
	if z == nil {
		c.W.Int(0)
		return
	}
	lo, hi := r.ranks(&z.s)
	c.W.Int(int64(max(0, hi-lo)))
}

func zlexcountCommand(c *Ctx) {
	r, ok := parseLexRange(c.Args[2], c.Args[3])
	if !ok {
		c.Error(ErrZMinMaxLex)
		return
	}
	z, ok := zsetRead(c, c.Args[1])
	if !ok {
		return
	}
	if z == nil {
		c.W.Int(0)
		return
	}
	lo, hi := r.ranks(&z.s, false)
	c.W.Int(int64(max(0, hi-lo)))
}

func zremrangeGeneric(c *Ctx, rt rangeType) {
	var start, end int64
	var sr scoreRange
	var lr lexRange
	var ok bool
	switch rt {
	case rangeRank:
		if start, ok = c.IntArg(2); !ok {
			return
		}
		if end, ok = c.IntArg(3); !ok {
			return
		}
	case rangeScore:
		if sr, ok = parseScoreRange(c.Args[2], c.Args[3]); !ok {
			c.Error(ErrZMinMaxFloat)
			return
		}
	case rangeLex:
		if lr, ok = parseLexRange(c.Args[2], c.Args[3]); !ok {
			c.Error(ErrZMinMaxLex)
			return
		}
	}
	key := c.Args[1]
	z, ok := zsetRead(c, key)
	if !ok {
		return
	}
	if z == nil {
		c.W.Int(0)
		return
	}
	s := &z.s
	var lo, hi int
	switch rt {
	case rangeRank:
		a, b, ok := rankRange(start, end, s.Len())
		if !ok {
			c.W.Int(0)
			return
		}
		lo, hi = a, b+1
	case rangeScore:
		lo, hi = sr.ranks(s)
	case rangeLex:
		lo, hi = lr.ranks(s, false)
	}
	if hi <= lo {
		c.W.Int(0)
		return
	}
	victims := make([]string, 0, hi-lo)
	zslice{first: lo, count: hi - lo}.each(s, func(m []byte, _ float64) { victims = append(victims, string(m)) })
	for _, m := range victims {
		s.Delete(bview(m))
	}
	zsetChanged(c, key, z, len(victims))
	c.W.Int(int64(len(victims)))
}

// ---- pops ----

// zpopFrom pops up to count elements from one end of z into the reply.
// With nested, each element is a [member, score] array in RESP3 (and in
// both protocols when always is set, for ZMPOP).
type popped struct {
	m     string
	score float64
}

func zpopN(z *ZSet, count int, max bool) []popped {
	n := min(count, z.s.Len())
	out := make([]popped, 0, n)
	for i := 0; i < n; i++ {
		r := 0
		if max {
			r = z.s.Len() - 1
		}
		m, score := z.s.At(r)
		p := popped{string(m), score}
		z.s.Delete(m)
		out = append(out, p)
	}
	return out
}

func popName(max bool) string {
	if max {
		return "ZPOPMAX"
	}
	return "ZPOPMIN"
}

func zpopCommand(c *Ctx, max bool) {
	if len(c.Args) > 3 {
		c.Error(ErrSyntax)
		return
	}
	count := int64(1)
	if len(c.Args) == 3 {
		n, ok := ParseInt(c.Args[2])
		if !ok || n < 0 {
			c.Error(ErrNotPositive)
			return
		}
		count = n
	}
	key := c.Args[1]
	z, ok := zsetRead(c, key)
	if !ok {
		return
	}
	if z == nil || count == 0 {
		c.W.Array(0)
		return
	}
	ps := zpopN(z, int(min(count, int64(z.s.Len()))), max)
	zsetChanged(c, key, z, len(ps))
	c.PropagateStrings(popName(max), string(key), strconv.Itoa(len(ps)))
	nested := len(c.Args) == 3 && c.W.Proto == 3
	if nested {
		c.W.Array(len(ps))
	} else {
		c.W.Array(2 * len(ps))
	}
	for _, p := range ps {
		if nested {
			c.W.Array(2)
		}
		c.W.BulkString(p.m)
		writeScore(c, p.score)
	}
}

// zpopBlocking tries the keys in order for BZPOPMIN/BZPOPMAX/BZMPOP: it
// replies and returns true after popping from the first non-empty set;
// ok is false after a WRONGTYPE reply.
func zpopFirst(c *Ctx, keys [][]byte, max bool, count int, mpop bool) (done, ok bool) {
	for _, k := range keys {
		z, ok := zsetRead(c, k)
		if !ok {
			return false, false
		}
		if z == nil {
			continue
		}
		ps := zpopN(z, count, max)
		if max {
			c.SetEvent("zpopmax")
		} else {
			c.SetEvent("zpopmin")
		}
		zsetChanged(c, k, z, len(ps))
		c.SetEvent("")
		if mpop {
			c.PropagateStrings(popName(max), string(k), strconv.Itoa(len(ps)))
			c.W.Array(2)
			c.W.Bulk(k)
			c.W.Array(len(ps))
			for _, p := range ps {
				c.W.Array(2)
				c.W.BulkString(p.m)
				writeScore(c, p.score)
			}
		} else {
			c.PropagateStrings(popName(max), string(k))
			c.W.Array(3)
			c.W.Bulk(k)
			c.W.BulkString(ps[0].m)
			writeScore(c, ps[0].score)
		}
		return true, true
	}
	return false, true
}

func bzpopCommand(c *Ctx, max bool) {
	deadline, ok := c.BlockTimeout(len(c.Args) - 1)
	if !ok {
		return
	}
	keys := c.Args[1 : len(c.Args)-1]
	zblock(c, keys, deadline, max, 1, false)
}

func zblock(c *Ctx, keys [][]byte, deadline int64, max bool, count int, mpop bool) {
	done, ok := zpopFirst(c, keys, max, count, mpop)
	if done || !ok {
		return
	}
	if c.NoBlock {
		c.W.NullArray()
		return
	}
	wt := &Waiter{Keys: keys, Deadline: deadline, Timeout: func(w *resp.Writer) { w.NullArray() }}
	wt.Serve = func(c *Ctx) bool {
		// Serve from the key that became ready, as Redis does; a key of
		// another type cannot serve the client.
		keys := wt.Keys
		if wt.ReadyKey != nil {
			keys = [][]byte{wt.ReadyKey}
		}
		for _, k := range keys {
			v, found := c.Lookup(k)
			if !found {
				continue
			}
			if _, is := v.Obj().(*ZSet); !is {
				continue
			}
			done, _ := zpopFirst(c, [][]byte{k}, max, count, mpop)
			return done
		}
		return false
	}
	c.Block(wt)
}

// zmpopGeneric is ZMPOP (numkeys at 1) and BZMPOP (timeout at 1, numkeys at 2).
func zmpopGeneric(c *Ctx, numIdx int, block bool) {
	numkeys, ok := ParseInt(c.Args[numIdx])
	if !ok || numkeys < 1 {
		c.Error(ErrZNumkeys)
		return
	}
	// numkeys is compared before any addition: numIdx+numkeys+1 would
	// overflow for numkeys near 2^63 (and index the arguments with a
	// negative number).
	if numkeys > int64(len(c.Args)-numIdx-2) {
		c.Error(ErrSyntax)
		return
	}
	whereIdx := numIdx + int(numkeys) + 1
	var max bool
	switch {
	case c.ArgIs(whereIdx, "min"):
	case c.ArgIs(whereIdx, "max"):
		max = true
	default:
		c.Error(ErrSyntax)
		return
	}
	count, ok := mpopCount(c, whereIdx+1)
	if !ok {
		return
	}
	keys := c.Args[numIdx+1 : whereIdx]
	cnt := int(min(count, math.MaxInt32))
	if block {
		deadline, ok := c.BlockTimeout(1)
		if !ok {
			return
		}
		zblock(c, keys, deadline, max, cnt, true)
		return
	}
	done, ok := zpopFirst(c, keys, max, cnt, true)
	if ok && !done {
		c.W.NullArray()
	}
}

// ---- ZRANDMEMBER ----

func zrandmemberCommand(c *Ctx) {
	if len(c.Args) >= 3 {
		l, ok := ParseInt(c.Args[2])
		if !ok {
			c.Error(ErrNotInteger)
			return
		}
		if l == math.MinInt64 {
			c.Error(ErrZRandRange)
			return
		}
		withscores := false
		if len(c.Args) > 4 || (len(c.Args) == 4 && !c.ArgIs(3, "withscores")) {
			c.Error(ErrSyntax)
			return
		} else if len(c.Args) == 4 {
			withscores = true
			if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
				c.Error(ErrZRandWithscores)
				return
			}
		}
		zrandWithCount(c, l, withscores)
		return
	}
	z, ok := zsetRead(c, c.Args[1])
	if !ok {
		return
	}
	if z == nil {
		c.W.Null()
		return
	}
	m, _ := z.s.Random()
	c.W.Bulk(m)
}

func zrandWithCount(c *Ctx, l int64, withscores bool) {
	z, ok := zsetRead(c, c.Args[1])
	if !ok {
		return
	}
	if z == nil || l == 0 {
		c.W.Array(0)
		return
	}
	s := &z.s
	size := int64(s.Len())
	uniq := l > 0
	count := l
	if !uniq {
		count = -l
	}
	header := func(n int64) {
		if withscores && c.W.Proto == 2 {
			c.W.Array(int(2 * n))
		} else {
			c.W.Array(int(n))
		}
	}
	emit := func(m []byte, score float64) {
		if withscores && c.W.Proto == 3 {
			c.W.Array(2)
		}
		c.W.Bulk(m)
		if withscores {
			writeScore(c, score)
		}
	}
	if !uniq || count == 1 {
		header(count)
		for i := int64(0); i < count; i++ {
			emit(s.Random())
		}
		return
	}
	if count >= size {
		header(size)
		s.Range(s.Len()-1, true, func(m []byte, score float64) bool {
			emit(m, score)
			return true
		})
		return
	}
	// Distinct ranks: a partial Fisher-Yates over rank indexes when the
	// sample is a large part of the set, rejection of repeats otherwise.
	header(count)
	if count*3 > size {
		// A large part of the set: a partial Fisher-Yates shuffle of ranks.
		ranks := make([]int32, size)
		for i := range ranks {
			ranks[i] = int32(i)
		}
		for i := int64(0); i < count; i++ {
			j := i + int64(randInt(int(size-i)))
			ranks[i], ranks[j] = ranks[j], ranks[i]
			emit(s.At(int(ranks[i])))
		}
		return
	}
	picked := make(map[int]bool, count)
	for int64(len(picked)) < count {
		r := randInt(int(size))
		if picked[r] {
			continue
		}
		picked[r] = true
		emit(s.At(r))
	}
}

// ---- ZUNION / ZINTER / ZDIFF ----

type zsetOp int

const (
	zopUnion zsetOp = iota
	zopInter
	zopDiff
)

// setMembers is what a plain set (*Set in sets.go) offers to ZUNION,
// ZINTER, ZDIFF and ZINTERCARD: its members count with score 1.
type setMembers interface {
	Len() int
	EachMember(fn func(m string) bool)
	Has(m []byte) bool
}

type zsrc struct {
	z      *ZSet
	set    setMembers
	weight float64
}

func (s *zsrc) size() int {
	switch {
	case s.z != nil:
		return s.z.s.Len()
	case s.set != nil:
		return s.set.Len()
	}
	return 0
}

func (s *zsrc) score(m []byte) (float64, bool) {
	switch {
	case s.z != nil:
		return s.z.s.Score(m)
	case s.set != nil:
		if s.set.Has(m) {
			return 1, true
		}
	}
	return 0, false
}

func (s *zsrc) each(fn func(m []byte, score float64) bool) {
	switch {
	case s.z != nil:
		s.z.s.Range(0, false, fn)
	case s.set != nil:
		s.set.EachMember(func(m string) bool { return fn(bview(m), 1) })
	}
}

type aggregate int

const (
	aggSum aggregate = iota
	aggMin
	aggMax
)

func (a aggregate) apply(target *float64, v float64) {
	switch a {
	case aggSum:
		*target += v
		if math.IsNaN(*target) {
			*target = 0
		}
	case aggMin:
		if v < *target {
			*target = v
		}
	case aggMax:
		if v > *target {
			*target = v
		}
	}
}

func zsetOpGeneric(c *Ctx, store bool, numIdx int, op zsetOp, cardOnly bool) {
	setnum, ok := c.IntArg(numIdx)
	if !ok {
		return
	}
	if setnum < 1 {
		c.Error("ERR at least 1 input key is needed for '" + c.Cmd.Name + "' command")
		return
	}
	if setnum > int64(len(c.Args)-numIdx-1) {
		c.Error(ErrSyntax)
		return
	}
	n := int(setnum)
	src := make([]zsrc, n)
	j := numIdx + 1
	for i := 0; i < n; i, j = i+1, j+1 {
		src[i].weight = 1
		v, found := c.Lookup(c.Args[j])
		if !found {
			continue
		}
		switch o := v.Obj().(type) {
		case *ZSet:
			src[i].z = o
		case setMembers:
			if v.TypeName() == "set" {
				src[i].set = o
				continue
			}
			c.Error(ErrWrongType)
			return
		default:
			c.Error(ErrWrongType)
			return
		}
	}
	agg := aggSum
	withscores := false
	limit := int64(0)
	for remaining := len(c.Args) - j; remaining > 0; remaining = len(c.Args) - j {
		switch {
		case op != zopDiff && !cardOnly && remaining >= n+1 && c.ArgIs(j, "weights"):
			j++
			for i := 0; i < n; i, j = i+1, j+1 {
				w, ok := parseZFloat(c.Args[j]) // getDoubleFromObject, as ZADD's scores
				if !ok {
					c.Error(ErrZWeightFloat)
					return
				}
				src[i].weight = w
			}
		case op != zopDiff && !cardOnly && remaining >= 2 && c.ArgIs(j, "aggregate"):
			switch {
			case c.ArgIs(j+1, "sum"):
				agg = aggSum
			case c.ArgIs(j+1, "min"):
				agg = aggMin
			case c.ArgIs(j+1, "max"):
				agg = aggMax
			default:
				c.Error(ErrSyntax)
				return
			}
			j += 2
		case !store && !cardOnly && c.ArgIs(j, "withscores"):
			withscores = true
			j++
		case cardOnly && remaining >= 2 && c.ArgIs(j, "limit"):
			l, ok := ParseInt(c.Args[j+1])
			if !ok || l < 0 {
				c.Error(ErrZLimitNegative)
				return
			}
			limit = l
			j += 2
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	if cardOnly {
		c.W.Int(zinterCard(src, limit))
		return
	}
	res := zsetCompute(src, op, agg)
	if !store {
		// Redis replies from the skiplist it computed, scores as they
		// came out (-0 included), never from a listpack.
		writeZResult(c, res, withscores)
		return
	}
	lim := zlimits(c)
	maxLen, total := 0, int64(0)
	for _, e := range res {
		maxLen = max(maxLen, len(e.m))
		total += int64(len(e.m))
	}
	if total > c.E.zsetMaxBytes {
		c.Error(ErrZSetTooLarge)
		return
	}
	dst := newZSet(lim, len(res), maxLen)
	for _, e := range res {
		dst.s.Add(bview(e.m), e.score)
	}
	zstoreResult(c, c.Args[1], dst)
}

// writeZResult replies with res (distinct members) in sorted-set order:
// by score, then by member.
func writeZResult(c *Ctx, res []popped, withscores bool) {
	slices.SortFunc(res, func(a, b popped) int {
		switch {
		case a.score < b.score:
			return -1
		case a.score > b.score:
			return 1
		}
		return strings.Compare(a.m, b.m)
	})
	if withscores && c.W.Proto == 2 {
		c.W.Array(2 * len(res))
	} else {
		c.W.Array(len(res))
	}
	for _, e := range res {
		if withscores && c.W.Proto == 3 {
			c.W.Array(2)
		}
		c.W.BulkString(e.m)
		if withscores {
			writeScore(c, e.score)
		}
	}
}

// sortBySize orders sources from the smallest, as Redis does to make the
// intersection iterate the smallest input.
func sortBySize(src []zsrc) {
	for i := 1; i < len(src); i++ {
		for k := i; k > 0 && src[k].size() < src[k-1].size(); k-- {
			src[k], src[k-1] = src[k-1], src[k]
		}
	}
}

func zinterCard(src []zsrc, limit int64) int64 {
	sortBySize(src)
	if src[0].size() == 0 {
		return 0
	}
	var n int64
	src[0].each(func(m []byte, _ float64) bool {
		for i := 1; i < len(src); i++ {
			if _, ok := src[i].score(m); !ok {
				return true
			}
		}
		n++
		return limit == 0 || n < limit
	})
	return n
}

func weighted(w, score float64) float64 {
	v := w * score
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func zsetCompute(src []zsrc, op zsetOp, agg aggregate) []popped {
	var out []popped
	switch op {
	case zopInter:
		sortBySize(src)
		if src[0].size() == 0 {
			return nil
		}
		src[0].each(func(m []byte, score float64) bool {
			v := weighted(src[0].weight, score)
			for i := 1; i < len(src); i++ {
				s, ok := src[i].score(m)
				if !ok {
					return true
				}
				agg.apply(&v, weighted(src[i].weight, s))
			}
			out = append(out, popped{string(m), v})
			return true
		})
	case zopUnion:
		acc := map[string]float64{}
		var order []string
		for i := range src {
			w := src[i].weight
			src[i].each(func(m []byte, score float64) bool {
				v := weighted(w, score)
				if cur, ok := acc[string(m)]; ok {
					agg.apply(&cur, v)
					acc[string(m)] = cur
				} else {
					k := string(m)
					acc[k] = v
					order = append(order, k)
				}
				return true
			})
		}
		out = make([]popped, 0, len(order))
		for _, k := range order {
			out = append(out, popped{k, acc[k]})
		}
	case zopDiff:
		if src[0].size() == 0 {
			return nil
		}
		src[0].each(func(m []byte, score float64) bool {
			for i := 1; i < len(src); i++ {
				if _, ok := src[i].score(m); ok {
					return true
				}
			}
			out = append(out, popped{string(m), score})
			return true
		})
	}
	return out
}

// ---- ZSCAN ----

func zscanCommand(c *Ctx) {
	cursor, ok := parseCursor(c.Args[2])
	if !ok {
		c.Error(ErrInvalidCursor)
		return
	}
	z, ok := zsetRead(c, c.Args[1])
	if !ok {
		return
	}
	if z == nil {
		c.W.Array(2)
		c.W.BulkString("0")
		c.W.Array(0)
		return
	}
	o, ok := parseScanOptions(c, 3, false)
	if !ok {
		return
	}
	var items [][]byte
	add := func(m []byte, score float64) {
		if o.pattern != nil && !glob.Match(o.pattern, m, false) {
			return
		}
		items = append(items, append([]byte(nil), m...), resp.AppendDouble(nil, score))
	}
	s := &z.s
	if !s.Indexed() {
		s.Range(0, false, func(m []byte, score float64) bool {
			add(m, score)
			return true
		})
		cursor = 0
	} else {
		maxIter := o.count * 10
		for {
			cursor = s.Scan(cursor, add)
			maxIter--
			if cursor == 0 || maxIter <= 0 || int64(len(items)/2) >= o.count {
				break
			}
		}
	}
	c.W.Array(2)
	c.W.BulkString(strconv.FormatUint(cursor, 10))
	c.W.Array(len(items))
	for _, it := range items {
		c.W.Bulk(it)
	}
}

func zsetHas(z *ZSet, m []byte) bool {
	_, ok := z.s.Score(m)
	return ok
}
