package zset

// ScoreRange calls fn for the elements with lo <= score < hi, in
// ascending order, until fn returns false. fn must not change the set;
// the member is a view valid until the next change.
//
// It is Range from CountBelowScore(lo) with the end test inside, but it
// reads the slab entries of up to scoreBatch elements before calling fn
// for any of them: the entries of one leaf lie anywhere in the slab, and
// loading them together lets their cache misses overlap instead of
// paying one per element between calls (GEOSEARCH scans tens of
// thousands of elements for a large radius).
func (s *Set) ScoreRange(lo, hi float64, fn func(m []byte, score float64) bool) {
	if s.b != nil {
		s.b.scoreRange(lo, hi, fn)
		return
	}
	for o := 0; o < len(s.lp); {
		m, score, next := lpEntry(s.lp, o)
		if score >= lo {
			if !(score < hi) || !fn(m, score) {
				return
			}
		}
		o = next
	}
}

const scoreBatch = 32

func (s *tree) scoreRange(lo, hi float64, fn func(m []byte, score float64) bool) {
	start := s.CountBelowScore(lo, false)
	if start >= s.n {
		return
	}
	var buf [scoreBatch]entry
	for l, i := s.locate(start); l != nil; l, i = l.next, 0 {
		for i < len(l.ids) {
			ids := l.ids[i:min(i+scoreBatch, len(l.ids))]
			es := buf[:len(ids)]
			for k, id := range ids {
				es[k] = s.ents[id]
			}
			for k := range es {
				e := &es[k]
				if !(e.score < hi) || !fn(s.arena[e.off:e.off+e.n:e.off+e.n], e.score) {
					return
				}
			}
			i += len(ids)
		}
	}
}
