package zset

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/ordo-db/ordo/internal/ds/mem"
)

// Set is a sorted set: the small packed form (lp) until BuildIndex, the
// large form (b) after. The zero value is an empty small set.
type Set struct {
	lp []byte
	n  int
	b  *tree
}

// New returns an empty set (small form).
func New() *Set { return &Set{} }

// Len is the number of members.
func (s *Set) Len() int {
	if s.b != nil {
		return s.b.n
	}
	return s.n
}

// MaxMemberBytes is the most member bytes, all members together, that
// one Set can hold: its large form addresses them with 32 bits. Callers
// check MemberBytes against it before adding; adding past it panics.
const MaxMemberBytes int64 = math.MaxUint32

// MemberBytes is the member bytes the set holds, all members' lengths
// added up (an upper bound in the small form, exact for members shorter
// than 128 bytes).
func (s *Set) MemberBytes() int {
	if s.b != nil {
		return len(s.b.arena) - s.b.garbage
	}
	return len(s.lp) - 9*s.n // each entry: 8 bytes of score, a length of 1 byte or more
}

// Indexed reports whether the set is in its large form (Redis's
// "skiplist" encoding; the small form is "listpack").
func (s *Set) Indexed() bool { return s.b != nil }

// BuildIndex converts the set to its large form (O(1) lookups, O(log n)
// ranks). Sets never convert back on their own. The arrays of the large
// form, once big, are mapped outside the Go heap and counted in a (nil:
// not counted); copies of the set count in the same Acct. Nothing
// happens if the set is already in its large form.
func (s *Set) BuildIndex(a *mem.Acct) {
	if s.b != nil {
		return
	}
	t := newTree(a)
	t.BuildIndex()
	for o := 0; o < len(s.lp); {
		m, score, next := lpEntry(s.lp, o)
		t.Insert(m, score)
		o = next
	}
	s.b, s.lp, s.n = t, nil, 0
}

// LoadSorted fills an empty set with the n members member(i), score(i),
// in its large form (as BuildIndex), when they come in strictly ascending
// or strictly descending (score, member) order, as a sorted set's
// serialized forms list them (Redis's RDB from the highest score down,
// Ordo's from the lowest up): the tree is then built in O(n) instead of
// by n inserts. It reports false, leaving the set empty, when the set is
// not empty or the order does not hold (the caller then inserts). The
// members must be distinct; scores are stored as given (-0 included, as
// the large form keeps it).
func (s *Set) LoadSorted(a *mem.Acct, n int, member func(i int) []byte, score func(i int) float64) bool {
	if s.Len() != 0 || n == 0 {
		return false
	}
	asc, desc, memberBytes := true, true, 0
	for i := 0; i < n; i++ {
		memberBytes += len(member(i))
		if i == 0 {
			continue
		}
		c := cmpKey(score(i-1), member(i-1), score(i), member(i))
		asc = asc && c < 0
		desc = desc && c > 0
		if !asc && !desc {
			return false
		}
	}
	if int64(memberBytes) > MaxMemberBytes {
		return false
	}
	t := newTree(a)
	var b sortedBuilder
	b.start(t, n, memberBytes)
	for k := 0; k < n; k++ {
		i := k
		if !asc {
			i = n - 1 - k
		}
		b.add(member(i), score(i))
	}
	b.finish()
	t.rehash(16)
	s.b, s.lp, s.n = t, nil, 0
	return true
}

// cmpKey orders (score, member) keys as the set does.
func cmpKey(s1 float64, m1 []byte, s2 float64, m2 []byte) int {
	if s1 < s2 {
		return -1
	}
	if s1 > s2 {
		return 1
	}
	return bytes.Compare(m1, m2)
}

// DropIndex converts the set back to the small form (a store whose result
// Redis would write as a listpack).
func (s *Set) DropIndex() {
	if s.b == nil {
		return
	}
	var lp []byte
	s.b.Range(0, false, func(m []byte, score float64) bool {
		lp = lpAppend(lp, m, score)
		return true
	})
	s.lp, s.n = lp, s.b.n
	s.b.rg.freeAllIfAny()
	s.b = nil
}

// ---- the packed form ----

// The packed form keeps no negative zero: Redis's listpack stores a
// score that is an integer as an integer (zzlInsertAt), so -0 reads back
// as 0 there, while the large form (a skiplist in Redis) keeps it.

func lpAppend(lp []byte, m []byte, score float64) []byte {
	if score == 0 {
		score = 0 // no -0 in the packed form
	}
	lp = binary.LittleEndian.AppendUint64(lp, math.Float64bits(score))
	lp = binary.AppendUvarint(lp, uint64(len(m)))
	return append(lp, m...)
}

// lpEntry decodes the entry at o: member (a view), score, next offset.
func lpEntry(lp []byte, o int) ([]byte, float64, int) {
	score := math.Float64frombits(binary.LittleEndian.Uint64(lp[o:]))
	l, k := binary.Uvarint(lp[o+8:])
	start := o + 8 + k
	end := start + int(l)
	return lp[start:end:end], score, end
}

func lpScore(lp []byte, o int) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(lp[o:]))
}

// lpFind returns the offset of m.
func (s *Set) lpFind(m []byte) (int, bool) {
	for o := 0; o < len(s.lp); {
		mm, _, next := lpEntry(s.lp, o)
		if bytes.Equal(mm, m) {
			return o, true
		}
		o = next
	}
	return 0, false
}

func (s *Set) lpDelete(o int) {
	_, _, next := lpEntry(s.lp, o)
	s.lp = append(s.lp[:o], s.lp[next:]...)
	s.n--
}

func (s *Set) lpInsert(m []byte, score float64) {
	if score == 0 {
		score = 0 // no -0 in the packed form
	}
	// First entry greater than (score, m).
	o := 0
	for o < len(s.lp) {
		mm, sc, next := lpEntry(s.lp, o)
		if sc > score || (sc == score && bytes.Compare(mm, m) > 0) {
			break
		}
		o = next
	}
	var hdr [8 + binary.MaxVarintLen64]byte
	binary.LittleEndian.PutUint64(hdr[:], math.Float64bits(score))
	k := binary.PutUvarint(hdr[8:], uint64(len(m)))
	size := 8 + k + len(m)
	n := len(s.lp)
	if n+size > cap(s.lp) {
		// Grow by a quarter: small sets are many, their slack adds up.
		lp := make([]byte, n, max(n+size+(n+size)/4, 16))
		copy(lp, s.lp)
		s.lp = lp
	}
	s.lp = s.lp[:n+size]
	copy(s.lp[o+size:], s.lp[o:n])
	copy(s.lp[o:], hdr[:8+k])
	copy(s.lp[o+8+k:], m)
	s.n++
}

// lpCount counts the entries for which below is true (a prefix of the order).
func (s *Set) lpCount(below func(m []byte, score float64) bool) int {
	n := 0
	for o := 0; o < len(s.lp); {
		m, score, next := lpEntry(s.lp, o)
		if !below(m, score) {
			break
		}
		n++
		o = next
	}
	return n
}

// ---- operations ----

// Score returns the score of m.
func (s *Set) Score(m []byte) (float64, bool) {
	if s.b != nil {
		return s.b.Score(m)
	}
	o, ok := s.lpFind(m)
	if !ok {
		return 0, false
	}
	return lpScore(s.lp, o), true
}

// Find looks m up once for a read-then-write sequence (ZADD's options);
// the Ref is valid until the next change to the set.
func (s *Set) Find(m []byte) (Ref, bool) {
	if s.b != nil {
		return s.b.Find(m)
	}
	o, ok := s.lpFind(m)
	return Ref(o), ok
}

// RefScore is the score of the member r designates.
func (s *Set) RefScore(r Ref) float64 {
	if s.b != nil {
		return s.b.RefScore(r)
	}
	return lpScore(s.lp, int(r))
}

// SetScore changes the score of the member r designates.
func (s *Set) SetScore(r Ref, score float64) {
	if s.b != nil {
		s.b.SetScore(r, score)
		return
	}
	o := int(r)
	if lpScore(s.lp, o) == score {
		return
	}
	m, _, _ := lpEntry(s.lp, o)
	m = bytes.Clone(m)
	s.lpDelete(o)
	s.lpInsert(m, score)
}

// Insert adds m, which must be absent (checked by Find), with score.
func (s *Set) Insert(m []byte, score float64) {
	if s.b != nil {
		s.b.Insert(m, score)
		return
	}
	s.lpInsert(m, score)
}

// Add sets the score of m, inserting it if absent; it reports whether m
// was added. m is copied.
func (s *Set) Add(m []byte, score float64) bool {
	if s.b != nil {
		return s.b.Add(m, score)
	}
	if r, ok := s.Find(m); ok {
		s.SetScore(r, score)
		return false
	}
	s.lpInsert(m, score)
	return true
}

// Delete removes m and returns its score.
func (s *Set) Delete(m []byte) (float64, bool) {
	if s.b != nil {
		return s.b.Delete(m)
	}
	o, ok := s.lpFind(m)
	if !ok {
		return 0, false
	}
	score := lpScore(s.lp, o)
	s.lpDelete(o)
	return score, true
}

// Rank returns the 0-based ascending rank of m.
func (s *Set) Rank(m []byte) (int, bool) {
	if s.b != nil {
		return s.b.Rank(m)
	}
	r := 0
	for o := 0; o < len(s.lp); r++ {
		mm, _, next := lpEntry(s.lp, o)
		if bytes.Equal(mm, m) {
			return r, true
		}
		o = next
	}
	return 0, false
}

// At returns the member (a view) and score at rank r (0 <= r < Len).
func (s *Set) At(r int) ([]byte, float64) {
	if s.b != nil {
		return s.b.At(r)
	}
	o := 0
	for ; r > 0; r-- {
		_, _, o = lpEntry(s.lp, o)
	}
	m, score, _ := lpEntry(s.lp, o)
	return m, score
}

// CountBelowScore returns how many elements have a score < min (or <= min
// when excl): the rank of the first element in a range starting at min.
func (s *Set) CountBelowScore(min float64, excl bool) int {
	if s.b != nil {
		return s.b.CountBelowScore(min, excl)
	}
	if excl {
		return s.lpCount(func(_ []byte, score float64) bool { return score <= min })
	}
	return s.lpCount(func(_ []byte, score float64) bool { return score < min })
}

// CountBelowLex returns how many members are < m (or <= m when excl),
// assuming all scores are equal, as Redis's lex commands do.
func (s *Set) CountBelowLex(m []byte, excl bool) int {
	if s.b != nil {
		return s.b.CountBelowLex(m, excl)
	}
	if excl {
		return s.lpCount(func(x []byte, _ float64) bool { return bytes.Compare(x, m) <= 0 })
	}
	return s.lpCount(func(x []byte, _ float64) bool { return bytes.Compare(x, m) < 0 })
}

// Range calls fn for the elements from rank start, ascending (or
// descending when rev), until fn returns false or the set ends. fn must
// not change the set; the member is a view valid during the call.
func (s *Set) Range(start int, rev bool, fn func(m []byte, score float64) bool) {
	if s.b != nil {
		s.b.Range(start, rev, fn)
		return
	}
	if start < 0 || start >= s.n {
		return
	}
	if !rev {
		o := 0
		for i := 0; o < len(s.lp); i++ {
			m, score, next := lpEntry(s.lp, o)
			if i >= start && !fn(m, score) {
				return
			}
			o = next
		}
		return
	}
	var buf [128]int32
	offs := buf[:0]
	for o, i := 0, 0; i <= start; i++ {
		offs = append(offs, int32(o))
		_, _, o = lpEntry(s.lp, o)
	}
	for i := len(offs) - 1; i >= 0; i-- {
		m, score, _ := lpEntry(s.lp, int(offs[i]))
		if !fn(m, score) {
			return
		}
	}
}

// Random returns a uniformly random element; the set must not be empty.
func (s *Set) Random() ([]byte, float64) { return s.At(rand.IntN(s.Len())) }

// Scan calls fn for the members of one bucket of the member index at
// cursor and returns the next cursor (0 when done), as Redis's dictScan.
// A small set has no index: callers reply with all of it at once, as
// Redis does for a listpack. fn must not change the set.
func (s *Set) Scan(cursor uint64, fn func(m []byte, score float64)) uint64 {
	if s.b == nil {
		return 0
	}
	return s.b.Scan(cursor, fn)
}

// Copy returns a deep copy.
func (s *Set) Copy() *Set {
	if s.b != nil {
		return &Set{b: s.b.Copy()}
	}
	return &Set{lp: bytes.Clone(s.lp), n: s.n}
}

// MemoryUsage estimates the bytes the set occupies.
func (s *Set) MemoryUsage() int64 {
	if s.b != nil {
		return 48 + s.b.MemoryUsage()
	}
	return 48 + int64(cap(s.lp))
}

// LexBound is one end of a lex range: Inf -1 for "-", +1 for "+", else
// the member M, exclusive when Excl.
type LexBound struct {
	M    []byte
	Excl bool
	Inf  int
}

func cmpLexBound(a, b LexBound) int {
	if a.Inf != 0 || b.Inf != 0 {
		switch {
		case a.Inf == b.Inf:
			return 0
		case a.Inf < b.Inf:
			return -1
		}
		return 1
	}
	return bytes.Compare(a.M, b.M)
}

func (b LexBound) lteMax(m []byte) bool {
	switch {
	case b.Inf > 0:
		return true
	case b.Inf < 0:
		return false
	case b.Excl:
		return bytes.Compare(m, b.M) < 0
	}
	return bytes.Compare(m, b.M) <= 0
}

func (b LexBound) gteMin(m []byte) bool {
	switch {
	case b.Inf < 0:
		return true
	case b.Inf > 0:
		return false
	case b.Excl:
		return bytes.Compare(m, b.M) > 0
	}
	return bytes.Compare(m, b.M) >= 0
}

// LexRange returns the ascending rank interval [lo, hi) of a lex range,
// as Redis computes it: empty for an empty range or when the set lies
// wholly outside it; otherwise from the first member >= min while <= max
// (or, rev, from the last member <= max while >= min). On a set whose
// scores are all equal both directions select the same members; on a
// small set with differing scores this reproduces Redis's listpack walk.
func (s *Set) LexRange(min, max LexBound, rev bool) (int, int) {
	n := s.Len()
	c := cmpLexBound(min, max)
	if n == 0 || c > 0 || (c == 0 && (min.Excl || max.Excl || min.Inf != 0)) {
		return 0, 0
	}
	if last, _ := s.At(n - 1); !min.gteMin(last) {
		return 0, 0
	}
	if first, _ := s.At(0); !max.lteMax(first) {
		return 0, 0
	}
	if s.b != nil || !rev {
		var lo, hi int
		switch {
		case min.Inf < 0:
			lo = 0
		case min.Inf > 0:
			lo = n
		default:
			lo = s.CountBelowLex(min.M, min.Excl)
		}
		switch {
		case max.Inf < 0:
			hi = 0
		case max.Inf > 0:
			hi = n
		default:
			hi = s.CountBelowLex(max.M, !max.Excl)
		}
		if hi < lo {
			hi = lo
		}
		return lo, hi
	}
	var buf [128]int32
	offs := buf[:0]
	for o := 0; o < len(s.lp); {
		offs = append(offs, int32(o))
		_, _, o = lpEntry(s.lp, o)
	}
	j := len(offs) - 1
	for ; j >= 0; j-- {
		m, _, _ := lpEntry(s.lp, int(offs[j]))
		if max.lteMax(m) {
			break
		}
	}
	if j < 0 {
		return 0, 0
	}
	k := j
	for ; k >= 0; k-- {
		m, _, _ := lpEntry(s.lp, int(offs[k]))
		if !min.gteMin(m) {
			break
		}
	}
	return k + 1, j + 1
}
