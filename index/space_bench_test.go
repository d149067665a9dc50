package index_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/ordo-db/ordo/internal/sysinfo"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index"
)

// codeBackend answers ZRANGE ... BYSCORE WITHSCORES and ZCARD from
// codes held in memory, with replies as a RESP2 client gives them
// (strings), so that a benchmark measures the index's own work: the
// decomposition, the commands, reading the replies, sorting.
type codeBackend struct {
	codes []uint64 // sorted
	ids   []string // ids[i] is codes[i]'s
}

func (b *codeBackend) Do(ctx context.Context, args ...any) (any, error) {
	r, err := b.Pipeline(ctx, []backend.Cmd{args})
	if err != nil {
		return nil, err
	}
	return r[0].Val, r[0].Err
}

func (b *codeBackend) Pipeline(_ context.Context, cmds []backend.Cmd) ([]backend.Result, error) {
	out := make([]backend.Result, len(cmds))
	for i, c := range cmds {
		switch c[0] {
		case "ZCARD":
			out[i].Val = int64(len(b.codes))
		case "EXISTS":
			out[i].Val = int64(0)
		case "ZRANGE":
			lo, _ := strconv.ParseUint(c[2].(string), 10, 64)
			hi, _ := strconv.ParseUint(c[3].(string), 10, 64)
			j, _ := slices.BinarySearch(b.codes, lo)
			var arr []any
			for ; j < len(b.codes) && b.codes[j] <= hi; j++ {
				arr = append(arr, b.ids[j], strconv.FormatUint(b.codes[j], 10))
			}
			out[i].Val = arr
		default:
			return nil, errors.New("codeBackend: unexpected command")
		}
	}
	return out, nil
}

func (b *codeBackend) Tx(ctx context.Context, cmds []backend.Cmd) ([]backend.Result, error) {
	return b.Pipeline(ctx, cmds)
}

func (b *codeBackend) Eval(context.Context, *backend.Script, []string, ...any) (any, error) {
	return nil, errors.New("codeBackend: no scripts")
}

// codeSpace is a 2-D space of 26 bits over n random points held by a
// codeBackend.
func codeSpace(r *rand.Rand, n int) *index.Space {
	cb := &codeBackend{codes: make([]uint64, n), ids: make([]string, n)}
	for i := range cb.codes {
		cb.codes[i] = r.Uint64N(1 << 52)
	}
	slices.Sort(cb.codes)
	for i := range cb.ids {
		cb.ids[i] = "p" + strconv.Itoa(i)
	}
	s, _ := index.NewSpace(cb, "pts", 2, 26)
	return s
}

// BenchmarkSpaceNearest measures Nearest's own work (the server's
// replaced by codeBackend) over 1,000,000 random 2-D points of 26 bits,
// and reports members read per point returned and the process's CPU time
// per query (steadier than ns/op on a shared machine).
func BenchmarkSpaceNearest(b *testing.B) {
	benchSpaceQueries(b, func(s *index.Space, r *rand.Rand, k int) ([]index.PointHit, index.SpaceStats, error) {
		c := []uint64{1<<22 + r.Uint64N(1<<26-1<<23), 1<<22 + r.Uint64N(1<<26-1<<23)}
		hits, st, err := s.Nearest(context.Background(), c, k)
		if err == nil && len(hits) != k {
			err = fmt.Errorf("%d hits, want %d", len(hits), k)
		}
		return hits, st, err
	})
}

// BenchmarkSpaceBox is the same for boxes of about 100 and 1,000 points
// (a square of side 2^26·√(k/n)), as the bench's space rows ask.
func BenchmarkSpaceBox(b *testing.B) {
	benchSpaceQueries(b, func(s *index.Space, r *rand.Rand, k int) ([]index.PointHit, index.SpaceStats, error) {
		side := uint64(float64(1<<26) * math.Sqrt(float64(k)/1e6))
		lo := []uint64{r.Uint64N(1<<26 - side), r.Uint64N(1<<26 - side)}
		return s.BoxStats(context.Background(), lo, []uint64{lo[0] + side, lo[1] + side})
	})
}

// benchSpaceQueries runs query for k = 100 and 1,000 over codeSpace's
// 1,000,000 points.
func benchSpaceQueries(b *testing.B, query func(s *index.Space, r *rand.Rand, k int) ([]index.PointHit, index.SpaceStats, error)) {
	r := rand.New(rand.NewPCG(1, 2))
	s := codeSpace(r, 1_000_000)
	for _, k := range []int{100, 1000} {
		b.Run(strconv.Itoa(k), func(b *testing.B) {
			b.ReportAllocs()
			scanned, got := 0, 0
			cpu0 := sysinfo.ProcessCPU()
			for b.Loop() {
				hits, st, err := query(s, r, k)
				if err != nil {
					b.Fatal(err)
				}
				scanned += st.Scanned
				got += len(hits)
			}
			b.ReportMetric(float64(scanned)/float64(max(got, 1)), "read/point")
			b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkSpaceDecompose measures the decomposition of a box of about
// 100, 1,000 and 10,000 of 1,000,000 points into ranges (Space.Ranges:
// no server involved).
func BenchmarkSpaceDecompose(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	cb := &codeBackend{}
	s, _ := index.NewSpace(cb, "pts", 2, 26)
	for _, k := range []int{100, 1000, 10000} {
		b.Run(strconv.Itoa(k), func(b *testing.B) {
			b.ReportAllocs()
			side := uint64(float64(1<<26) * math.Sqrt(float64(k)/1e6))
			cpu0 := sysinfo.ProcessCPU()
			for b.Loop() {
				lo := []uint64{r.Uint64N(1<<26 - side), r.Uint64N(1<<26 - side)}
				hi := []uint64{lo[0] + side, lo[1] + side}
				if _, err := s.Ranges(lo, hi); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
