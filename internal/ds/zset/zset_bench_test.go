package zset

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/ds/mem"
)

var benchSizes = []int{1_000, 100_000, 1_000_000}

var built = map[int]*Set{}

// benchSet returns a shared set of n members "user:N" with random integer
// scores (built once per size; benchmarks that change it undo their work).
func benchSet(n int) *Set {
	if s, ok := built[n]; ok {
		return s
	}
	rng := rand.New(rand.NewPCG(1, 2))
	s := New()
	s.BuildIndex(mem.NewAcct(nil, nil))
	for i := 0; i < n; i++ {
		s.Add([]byte("user:"+strconv.Itoa(i)), float64(rng.IntN(1_000_000)))
	}
	built[n] = s
	return s
}

func each(b *testing.B, fn func(b *testing.B, n int)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { fn(b, n) })
	}
}

// BenchmarkInsert adds a new member and removes it again (so the size
// stays n); the pair is reported per operation.
func BenchmarkInsert(b *testing.B) {
	each(b, func(b *testing.B, n int) {
		s := benchSet(n)
		rng := rand.New(rand.NewPCG(3, 4))
		keys := make([][]byte, 1024)
		for i := range keys {
			keys[i] = []byte("new:" + strconv.Itoa(i))
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			k := keys[i&1023]
			s.Add(k, float64(rng.IntN(1_000_000)))
			if i&1023 == 1023 {
				b.StopTimer()
				for _, k := range keys {
					s.Delete(k)
				}
				b.StartTimer()
			}
		}
		b.StopTimer()
		for _, k := range keys {
			s.Delete(k)
		}
	})
}

// BenchmarkDelete deletes an existing member and re-adds it.
func BenchmarkDelete(b *testing.B) {
	each(b, func(b *testing.B, n int) {
		s := benchSet(n)
		rng := rand.New(rand.NewPCG(5, 6))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			k := []byte("user:" + strconv.Itoa(rng.IntN(n)))
			sc, _ := s.Delete(k)
			b.StopTimer()
			s.Add(k, sc)
			b.StartTimer()
		}
	})
}

// BenchmarkUpdateScore changes the score of an existing member (ZADD on
// an existing member: delete and reinsert in the tree).
func BenchmarkUpdateScore(b *testing.B) {
	each(b, func(b *testing.B, n int) {
		s := benchSet(n)
		rng := rand.New(rand.NewPCG(5, 6))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s.Add([]byte("user:"+strconv.Itoa(rng.IntN(n))), float64(rng.IntN(1_000_000)))
		}
	})
}

func BenchmarkScore(b *testing.B) {
	each(b, func(b *testing.B, n int) {
		s := benchSet(n)
		rng := rand.New(rand.NewPCG(7, 8))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s.Score([]byte("user:" + strconv.Itoa(rng.IntN(n))))
		}
	})
}

func BenchmarkRank(b *testing.B) {
	each(b, func(b *testing.B, n int) {
		s := benchSet(n)
		rng := rand.New(rand.NewPCG(7, 8))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s.Rank([]byte("user:" + strconv.Itoa(rng.IntN(n))))
		}
	})
}

// BenchmarkRangeByScore finds a random score bound and reads 10 elements
// (ZRANGEBYSCORE key min +inf LIMIT 0 10).
func BenchmarkRangeByScore(b *testing.B) {
	each(b, func(b *testing.B, n int) {
		s := benchSet(n)
		rng := rand.New(rand.NewPCG(9, 10))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := s.CountBelowScore(float64(rng.IntN(1_000_000)), false)
			k := 0
			s.Range(start, false, func(m []byte, score float64) bool {
				k++
				return k < 10
			})
		}
	})
}

// lexSet is n members with score 0 (a lex index).
var lexBuilt = map[int]*Set{}

func lexSet(n int) *Set {
	if s, ok := lexBuilt[n]; ok {
		return s
	}
	s := New()
	s.BuildIndex(mem.NewAcct(nil, nil))
	for i := 0; i < n; i++ {
		s.Add([]byte("m:"+strconv.Itoa(i)), 0)
	}
	lexBuilt[n] = s
	return s
}

// BenchmarkRangeByLex is ZRANGEBYLEX key [m:5 (m:6 LIMIT 0 10 at a
// random prefix: two lex bounds and 10 elements.
func BenchmarkRangeByLex(b *testing.B) {
	each(b, func(b *testing.B, n int) {
		s := lexSet(n)
		rng := rand.New(rand.NewPCG(11, 12))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			p := []byte("m:" + strconv.Itoa(rng.IntN(n)))
			lo := s.CountBelowLex(p, false)
			p[len(p)-1]++
			hi := s.CountBelowLex(p, false)
			k := 0
			s.Range(lo, false, func(m []byte, score float64) bool {
				k++
				return k < 10 && lo+k < hi
			})
		}
	})
}

// BenchmarkCopy is Typed.Copy of a big sorted set, which an AOF rewrite
// or BGSAVE takes under the engine lock (redis-benchmark's ZADD row
// leaves one of about 200,000 members).
func BenchmarkCopy(b *testing.B) {
	s := New()
	s.BuildIndex(nil)
	for i := 0; i < 200000; i++ {
		s.Add([]byte("m:"+strconv.Itoa(i*7919%1000003)), float64(i*31%100000))
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Copy()
	}
}
