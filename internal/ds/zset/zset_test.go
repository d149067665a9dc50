package zset

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/ds/mem"
)

// model is the simple reference: a sorted slice.
type model struct {
	es  []me
	idx map[string]float64
}

type me struct {
	score float64
	m     string
}

func less(a, b me) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.m < b.m
}

func (md *model) find(m string) int {
	sc, ok := md.idx[m]
	if !ok {
		return -1
	}
	e := me{sc, m}
	return sort.Search(len(md.es), func(i int) bool { return !less(md.es[i], e) })
}

func (md *model) add(m string, score float64) bool {
	added := true
	if i := md.find(m); i >= 0 {
		md.es = append(md.es[:i], md.es[i+1:]...)
		added = false
	}
	e := me{score, m}
	md.idx[m] = score
	i := sort.Search(len(md.es), func(i int) bool { return less(e, md.es[i]) })
	md.es = append(md.es, me{})
	copy(md.es[i+1:], md.es[i:])
	md.es[i] = e
	return added
}

func (md *model) del(m string) bool {
	if i := md.find(m); i >= 0 {
		md.es = append(md.es[:i], md.es[i+1:]...)
		delete(md.idx, m)
		return true
	}
	return false
}

// countNodes walks the tree: the reference for the counters that keep
// MemoryUsage O(1).
func countNodes(s *tree) (leaves, inners int) {
	var walk func(in *inner)
	walk = func(in *inner) {
		inners++
		for i := 0; i < in.n; i++ {
			if in.leafKids {
				leaves++
			} else {
				walk(in.in[i])
			}
		}
	}
	if s.ri != nil {
		walk(s.ri)
	} else if s.rl != nil {
		leaves = 1
	}
	return leaves, inners
}

func check(t *testing.T, step int, s *Set, md *model, full bool) {
	t.Helper()
	if s.Len() != len(md.es) {
		t.Fatalf("step %d: Len %d, model %d", step, s.Len(), len(md.es))
	}
	if !full {
		return
	}
	if s.b != nil {
		leaves, inners := countNodes(s.b)
		if leaves != s.b.leaves || inners != s.b.inners {
			t.Fatalf("step %d: node counters %d leaves %d inners, tree has %d and %d",
				step, s.b.leaves, s.b.inners, leaves, inners)
		}
	}
	i := 0
	s.Range(0, false, func(m []byte, score float64) bool {
		if i >= len(md.es) || string(m) != md.es[i].m || score != md.es[i].score {
			t.Fatalf("step %d: forward at %d: got %q %v", step, i, m, score)
		}
		i++
		return true
	})
	if i != len(md.es) {
		t.Fatalf("step %d: forward visited %d of %d", step, i, len(md.es))
	}
	if n := len(md.es); n > 0 {
		j := n - 1
		s.Range(n-1, true, func(m []byte, score float64) bool {
			if string(m) != md.es[j].m {
				t.Fatalf("step %d: backward at %d: got %q", step, j, m)
			}
			j--
			return true
		})
		if j != -1 {
			t.Fatalf("step %d: backward stopped at %d", step, j)
		}
	}
	for r, e := range md.es {
		m, score := s.At(r)
		if string(m) != e.m || score != e.score {
			t.Fatalf("step %d: At(%d) = %q %v, want %q %v", step, r, m, score, e.m, e.score)
		}
		if rk, ok := s.Rank([]byte(e.m)); !ok || rk != r {
			t.Fatalf("step %d: Rank(%q) = %d %v, want %d", step, e.m, rk, ok, r)
		}
		if sc, ok := s.Score([]byte(e.m)); !ok || sc != e.score {
			t.Fatalf("step %d: Score(%q) = %v %v", step, e.m, sc, ok)
		}
	}
	if s.Indexed() {
		seen := map[string]int{}
		var c uint64
		for {
			c = s.Scan(c, func(m []byte, score float64) { seen[string(m)]++ })
			if c == 0 {
				break
			}
		}
		if len(seen) != len(md.es) {
			t.Fatalf("step %d: Scan saw %d of %d", step, len(seen), len(md.es))
		}
		for k, n := range seen {
			if n != 1 {
				t.Fatalf("step %d: Scan saw %q %d times", step, k, n)
			}
		}
	}
}

func TestModel(t *testing.T) {
	for _, cfg := range []struct {
		members, scores, steps int
		index                  bool
	}{
		{50, 3, 4000, false},
		{3000, 10, 20000, true},
		{20000, 1000000, 40000, true},
		{2000, 1, 20000, false}, // all equal scores: lex order
	} {
		t.Run(fmt.Sprintf("m%d_s%d", cfg.members, cfg.scores), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(cfg.members)))
			s := New()
			if cfg.index {
				s.BuildIndex(nil)
			}
			md := &model{idx: map[string]float64{}}
			name := func() string {
				n := rng.IntN(cfg.members)
				if n%7 == 0 {
					return fmt.Sprintf("m\x00%d\xff", n)
				}
				return fmt.Sprintf("m%d", n)
			}
			for step := 0; step < cfg.steps; step++ {
				op := rng.IntN(10)
				switch {
				case op < 5:
					m := name()
					sc := float64(rng.IntN(cfg.scores))
					if rng.IntN(10) == 0 {
						sc = -sc / 3
					}
					if got, want := s.Add([]byte(m), sc), md.add(m, sc); got != want {
						t.Fatalf("step %d: Add(%q) = %v, want %v", step, m, got, want)
					}
				case op < 8:
					m := name()
					_, got := s.Delete([]byte(m))
					if want := md.del(m); got != want {
						t.Fatalf("step %d: Delete(%q) = %v, want %v", step, m, got, want)
					}
				case op == 8:
					// bounds
					x := float64(rng.IntN(cfg.scores+2) - 1)
					excl := rng.IntN(2) == 0
					want := 0
					for _, e := range md.es {
						if e.score < x || (excl && e.score == x) {
							want++
						}
					}
					if got := s.CountBelowScore(x, excl); got != want {
						t.Fatalf("step %d: CountBelowScore(%v,%v) = %d, want %d", step, x, excl, got, want)
					}
					if cfg.scores == 1 {
						m := name()
						if rng.IntN(3) == 0 {
							m = m[:1+rng.IntN(len(m)-1)]
						}
						want := 0
						for _, e := range md.es {
							if e.m < m || (excl && e.m == m) {
								want++
							}
						}
						if got := s.CountBelowLex([]byte(m), excl); got != want {
							t.Fatalf("step %d: CountBelowLex(%q,%v) = %d, want %d", step, m, excl, got, want)
						}
					}
				default:
					if rng.IntN(20) == 0 {
						s = s.Copy()
					}
					if !s.Indexed() && rng.IntN(50) == 0 {
						s.BuildIndex(nil)
					} else if s.Indexed() && !cfg.index && rng.IntN(50) == 0 {
						s.DropIndex()
					}
				}
				check(t, step, s, md, len(md.es) < 200 || step%500 == 0)
			}
			check(t, -1, s, md, true)
			// Empty it completely.
			for len(md.es) > 0 {
				m := md.es[rng.IntN(len(md.es))].m
				md.del(m)
				if _, ok := s.Delete([]byte(m)); !ok {
					t.Fatalf("drain: Delete(%q) failed", m)
				}
			}
			check(t, -2, s, md, true)
			if s.b != nil && (s.b.rl != nil || s.b.ri != nil) {
				t.Fatal("empty set keeps tree nodes")
			}
			if s.b == nil && len(s.lp) != 0 {
				t.Fatal("empty small set keeps bytes")
			}
		})
	}
}

// TestScanDuringResize checks SCAN's guarantee: members present for the
// whole scan are returned even when the index grows and shrinks between
// calls.
func TestScanDuringResize(t *testing.T) {
	s := New()
	s.BuildIndex(nil)
	for i := 0; i < 5000; i++ {
		s.Add([]byte(fmt.Sprintf("keep%d", i)), float64(i))
	}
	seen := map[string]bool{}
	var c uint64
	step := 0
	for {
		c = s.Scan(c, func(m []byte, _ float64) { seen[string(m)] = true })
		step++
		switch {
		case step < 200:
			for j := 0; j < 200; j++ {
				s.Add([]byte(fmt.Sprintf("tmp%d_%d", step, j)), 1)
			}
		case step < 400:
			for j := 0; j < 200; j++ {
				s.Delete([]byte(fmt.Sprintf("tmp%d_%d", step-199, j)))
			}
		}
		if c == 0 {
			break
		}
	}
	for i := 0; i < 5000; i++ {
		if !seen[fmt.Sprintf("keep%d", i)] {
			t.Fatalf("keep%d not returned by the scan", i)
		}
	}
}

func TestAscendingLoadDensity(t *testing.T) {
	s := New()
	s.BuildIndex(nil)
	for i := 0; i < 100000; i++ {
		s.Add([]byte(fmt.Sprintf("k%08d", i)), float64(i))
	}
	leaves, ids := 0, 0
	for l := s.b.firstLeaf(); l != nil; l = l.next {
		leaves++
		ids += len(l.ids)
	}
	if ids != 100000 || leaves > 100000/leafCap+1 {
		t.Fatalf("ascending load: %d ids in %d leaves", ids, leaves)
	}
	m, _ := s.At(54321)
	if !bytes.Equal(m, []byte("k00054321")) {
		t.Fatalf("At(54321) = %q", m)
	}
}

// TestOffHeapReleased checks that big sets map their arrays outside the
// heap and give them back when they become unreachable.
func TestOffHeapReleased(t *testing.T) {
	acct := mem.NewAcct(nil, nil)
	MappedBytes := acct.MappedBytes
	before := MappedBytes()
	func() {
		s := New()
		s.BuildIndex(acct)
		for i := 0; i < 100000; i++ {
			s.Add([]byte(fmt.Sprintf("member:%d", i)), float64(i))
		}
		c := s.Copy()
		if MappedBytes()-before < 2*100000*16 {
			t.Fatalf("mapped %d bytes for two sets of 100000 members", MappedBytes()-before)
		}
		for i := 0; i < 100000; i += 2 {
			c.Delete([]byte(fmt.Sprintf("member:%d", i)))
		}
		if m, _ := c.At(100); string(m) != "member:201" {
			t.Fatalf("copy after deletes: At(100) = %q", m)
		}
		if m, _ := s.At(100); string(m) == "" {
			t.Fatal("original damaged")
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for MappedBytes() > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if MappedBytes() > before {
		t.Fatalf("%d mapped bytes not released", MappedBytes()-before)
	}
}

// TestMemberBytes: the member bytes a set holds, in both forms, through
// additions and deletions (exact for members shorter than 128 bytes).
func TestMemberBytes(t *testing.T) {
	for _, indexed := range []bool{false, true} {
		s := New()
		if indexed {
			s.BuildIndex(nil)
		}
		want := 0
		for i := 0; i < 500; i++ {
			m := bytes.Repeat([]byte{byte('a' + i%26)}, 1+i%100)
			m = append(m, fmt.Sprint(i)...)
			s.Add(m, float64(i))
			want += len(m)
			if i%3 == 0 {
				s.Delete(m)
				want -= len(m)
			}
			if got := s.MemberBytes(); got != want {
				t.Fatalf("indexed %v, after %d: MemberBytes %d, want %d", indexed, i, got, want)
			}
		}
	}
}

// TestLoadSorted checks that a set built whole from members in order
// answers as the same set built by inserts: ranges both ways, ranks,
// scores, and later changes; and that out-of-order input is refused,
// leaving the set empty.
func TestLoadSorted(t *testing.T) {
	for _, n := range []int{1, 2, leafCap, leafCap + 1, 5000, 70000} {
		for _, desc := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(uint64(n), 9))
			ms := make([][]byte, n)
			sc := make([]float64, n)
			for i := range ms {
				ms[i] = []byte(fmt.Sprintf("m%07d-%d", rng.IntN(1<<30), i)) // distinct
				sc[i] = float64(i / 3)                                      // ties: member order decides
			}
			if n > 1 {
				sc[0] = math.Copysign(0, -1)
			}
			// ascending (score, member), distinct: within a score, the
			// prefix orders the members
			for i := 0; i < n; i++ {
				ms[i] = append([]byte(fmt.Sprintf("%07d:", i%3)), ms[i]...)
			}
			if desc {
				slices.Reverse(ms)
				slices.Reverse(sc)
			}
			want := New()
			want.BuildIndex(nil)
			for i := range ms {
				want.Insert(ms[i], sc[i])
			}
			got := New()
			if !got.LoadSorted(nil, n, func(i int) []byte { return ms[i] }, func(i int) float64 { return sc[i] }) {
				t.Fatalf("n=%d desc=%v: LoadSorted refused ordered input", n, desc)
			}
			if !got.Indexed() || got.Len() != n {
				t.Fatalf("n=%d: indexed %v len %d", n, got.Indexed(), got.Len())
			}
			compareSets(t, got, want)
			for i := 0; i < min(n, 2000); i++ {
				k := rng.IntN(n)
				r1, ok1 := got.Rank(ms[k])
				r2, ok2 := want.Rank(ms[k])
				s1, _ := got.Score(ms[k])
				s2, _ := want.Score(ms[k])
				if r1 != r2 || ok1 != ok2 || math.Float64bits(s1) != math.Float64bits(s2) {
					t.Fatalf("n=%d %q: rank %d/%v score %v, want %d/%v %v", n, ms[k], r1, ok1, s1, r2, ok2, s2)
				}
			}
			// later changes behave as on the inserted set
			for i := 0; i < min(n, 500); i++ {
				k := rng.IntN(n)
				got.Delete(ms[k])
				want.Delete(ms[k])
				m := []byte(fmt.Sprintf("new%d", i))
				got.Add(m, float64(i))
				want.Add(m, float64(i))
			}
			compareSets(t, got, want)
			// a copy (its member index copied slot for slot) answers the same
			cp := got.Copy()
			compareSets(t, cp, want)
			for i := 0; i < min(n, 500); i++ {
				k := rng.IntN(n)
				r1, ok1 := cp.Rank(ms[k])
				r2, ok2 := want.Rank(ms[k])
				if r1 != r2 || ok1 != ok2 {
					t.Fatalf("copy: rank of %q %d/%v, want %d/%v", ms[k], r1, ok1, r2, ok2)
				}
				cp.Delete(ms[k])
				want.Delete(ms[k])
			}
			compareSets(t, cp, want)
		}
	}
	// out of order, or a repeated key: refused, nothing built
	ms := [][]byte{[]byte("a"), []byte("c"), []byte("b")}
	sc := []float64{1, 1, 1}
	s := New()
	if s.LoadSorted(nil, 3, func(i int) []byte { return ms[i] }, func(i int) float64 { return sc[i] }) || s.Len() != 0 || s.Indexed() {
		t.Fatalf("unordered input accepted: len %d", s.Len())
	}
	ms[2] = []byte("c")
	if s.LoadSorted(nil, 3, func(i int) []byte { return ms[i] }, func(i int) float64 { return sc[i] }) {
		t.Fatal("a repeated (score, member) accepted")
	}
}

func compareSets(t *testing.T, got, want *Set) {
	t.Helper()
	type kv struct {
		m string
		s uint64
	}
	collect := func(s *Set, rev bool) []kv {
		var out []kv
		s.Range(0, rev, func(m []byte, score float64) bool {
			out = append(out, kv{string(m), math.Float64bits(score)})
			return true
		})
		return out
	}
	for _, rev := range []bool{false, true} {
		if g, w := collect(got, rev), collect(want, rev); !slices.Equal(g, w) {
			t.Fatalf("rev=%v: %d members, want %d (first %v / %v)", rev, len(g), len(w), g[:min(3, len(g))], w[:min(3, len(w))])
		}
	}
	seen := map[string]int{}
	for c := uint64(0); ; {
		c = got.Scan(c, func(m []byte, _ float64) { seen[string(m)]++ })
		if c == 0 {
			break
		}
	}
	if len(seen) != got.Len() {
		t.Fatalf("Scan saw %d members of %d", len(seen), got.Len())
	}
}
