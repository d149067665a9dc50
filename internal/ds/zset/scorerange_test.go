package zset

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestScoreRange checks ScoreRange against Range from CountBelowScore,
// in both forms, over ranges that start and end inside, between and
// beyond the scores (many equal), and that it stops when fn says so.
func TestScoreRange(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	randomSets(r, func(s *Set, n int, indexed bool) {
		type el struct {
			m     string
			score float64
		}
		for q := 0; q < 200; q++ {
			lo := float64(r.IntN(n/2+3)) - 1
			hi := lo + float64(r.IntN(n/4+3))
			if q%5 == 0 {
				lo += 0.5
			}
			stop := -1
			if q%3 == 0 {
				stop = 1 + r.IntN(40)
			}
			var want, got []el
			s.Range(s.CountBelowScore(lo, false), false, func(m []byte, score float64) bool {
				if !(score < hi) {
					return false
				}
				want = append(want, el{string(m), score})
				return len(want) != stop
			})
			s.ScoreRange(lo, hi, func(m []byte, score float64) bool {
				got = append(got, el{string(m), score})
				return len(got) != stop
			})
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("n %d indexed %v [%v, %v) stop %d: got %v, want %v", n, indexed, lo, hi, stop, got, want)
			}
		}
	})
}

// TestRangeBatched checks RangeBatched against Range from every kind of
// start (first, last, inside, beyond), both directions, both forms, and
// that it stops when fn says so.
func TestRangeBatched(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	randomSets(r, func(s *Set, n int, indexed bool) {
		for q := 0; q < 200; q++ {
			start := r.IntN(n+2) - 1
			if q%7 == 0 {
				start = n - 1
			}
			rev := q%2 == 1
			stop := -1
			if q%3 == 0 {
				stop = 1 + r.IntN(100)
			}
			var want, got []string
			s.Range(start, rev, func(m []byte, score float64) bool {
				want = append(want, fmt.Sprint(string(m), score))
				return len(want) != stop
			})
			s.RangeBatched(start, rev, func(m []byte, score float64) bool {
				got = append(got, fmt.Sprint(string(m), score))
				return len(got) != stop
			})
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("n %d indexed %v start %d rev %v stop %d: got %v, want %v", n, indexed, start, rev, stop, got, want)
			}
		}
	})
}

// randomSets calls fn with sets of 0 to 3,000 members (the small form up
// to 200), with random scores, many equal.
func randomSets(r *rand.Rand, fn func(s *Set, n int, indexed bool)) {
	for _, n := range []int{0, 1, 5, 100, 3000} {
		for _, indexed := range []bool{false, true} {
			if !indexed && n > 200 {
				continue
			}
			s := New()
			if indexed {
				s.BuildIndex(nil)
			}
			for i := 0; i < n; i++ {
				s.Add([]byte(fmt.Sprint("m", i)), float64(r.IntN(n/2+1)))
			}
			fn(s, n, indexed)
		}
	}
}
