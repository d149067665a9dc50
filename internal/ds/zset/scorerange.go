package zset

import "runtime"

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

// RangeBatched is Range (from rank start, ascending or descending when
// rev, until fn returns false or the set ends) with ScoreRange's batched
// loads: it reads the slab entries of up to scoreBatch elements, and
// touches the first byte of each of their members in the arena, before
// calling fn for any of them, so that the cache misses of a batch overlap
// (a range reply reads every member and score of the run). fn must not
// change the set; the member is a view valid until the next change.
func (s *Set) RangeBatched(start int, rev bool, fn func(m []byte, score float64) bool) {
	if s.b == nil || start < 0 || start >= s.b.n {
		s.Range(start, rev, fn)
		return
	}
	s.b.rangeBatched(start, rev, fn)
}

func (s *tree) rangeBatched(start int, rev bool, fn func(m []byte, score float64) bool) {
	var buf [scoreBatch]entry
	// batch loads the entries of ids into buf and the members' first
	// cache lines; KeepAlive of the sum keeps those loads in the code.
	batch := func(ids []uint32) []entry {
		es := buf[:len(ids)]
		for k, id := range ids {
			es[k] = s.ents[id]
		}
		var touch byte
		for k := range es {
			if es[k].n > 0 {
				touch += s.arena[es[k].off]
			}
		}
		runtime.KeepAlive(touch)
		return es
	}
	l, i := s.locate(start)
	if !rev {
		for ; l != nil; l, i = l.next, 0 {
			for i < len(l.ids) {
				es := batch(l.ids[i:min(i+scoreBatch, len(l.ids))])
				for k := range es {
					e := &es[k]
					if !fn(s.arena[e.off:e.off+e.n:e.off+e.n], e.score) {
						return
					}
				}
				i += len(es)
			}
		}
		return
	}
	for l != nil {
		// ids[lo:i+1] in descending order.
		for i >= 0 {
			lo := max(0, i+1-scoreBatch)
			es := batch(l.ids[lo : i+1])
			for k := len(es) - 1; k >= 0; k-- {
				e := &es[k]
				if !fn(s.arena[e.off:e.off+e.n:e.off+e.n], e.score) {
					return
				}
			}
			i = lo - 1
		}
		l = l.prev
		if l != nil {
			i = len(l.ids) - 1
		}
	}
}
