package engine_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo/internal/ds/hll"
	"github.com/ordo-db/ordo/internal/redistest"
)

// TestHLLInPlaceConcurrentReaders: while one client's PFADDs write a
// dense HLL in place, other clients' GETs and DUMP/RESTORE copies always
// see a whole HLL (valid, dense), never one changed after it was read:
// the registers of each reading are at least those of the previous one
// (PFADD only raises them), and a restored copy keeps the registers it
// had while the original goes on changing.
func TestHLLInPlaceConcurrentReaders(t *testing.T) {
	o := redistest.StartOrdo(t)
	ctx := context.Background()
	client := func() *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: o.Addr, PoolSize: 1})
		t.Cleanup(func() { c.Close() })
		return c
	}
	w := client()
	if err := w.PFAdd(ctx, "h", "a").Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Do(ctx, "PFDEBUG", "TODENSE", "h").Err(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	wg.Go(func() {
		for i := range 1500 {
			els := make([]any, 8)
			for j := range els {
				els[j] = "e" + strconv.Itoa(i*8+j)
			}
			if err := w.PFAdd(ctx, "h", els...).Err(); err != nil {
				errs <- err
				return
			}
		}
	})
	for r := range 2 {
		rc := client()
		wg.Go(func() {
			var prev []uint8
			for i := range 500 {
				b, err := rc.Get(ctx, "h").Bytes()
				if err != nil {
					errs <- err
					return
				}
				if !hll.Valid(b) || hll.Encoding(b) != hll.Dense || len(b) != hll.DenseSize {
					errs <- fmt.Errorf("reader %d: GET returned %d bytes, not a dense HLL", r, len(b))
					return
				}
				regs := hll.DenseRegisters(b)
				for j := range prev {
					if regs[j] < prev[j] {
						errs <- fmt.Errorf("reader %d: register %d went from %d to %d", r, j, prev[j], regs[j])
						return
					}
				}
				prev = regs
				if i%50 != 0 {
					continue
				}
				// A copy made now keeps these registers (or later ones).
				dump, err := rc.Dump(ctx, "h").Result()
				if err != nil {
					errs <- err
					return
				}
				k := "copy" + strconv.Itoa(r)
				if err := rc.RestoreReplace(ctx, k, 0, dump).Err(); err != nil {
					errs <- err
					return
				}
				c1, err := rc.Get(ctx, k).Bytes()
				if err != nil {
					errs <- err
					return
				}
				if err := rc.Copy(ctx, "h", k+"c", 0, true).Err(); err != nil {
					errs <- err
					return
				}
				c2, err := rc.Get(ctx, k+"c").Bytes()
				if err != nil {
					errs <- err
					return
				}
				for j, v := range hll.DenseRegisters(c1) {
					if v < regs[j] {
						errs <- fmt.Errorf("reader %d: restored copy has register %d at %d, below %d", r, j, v, regs[j])
						return
					}
				}
				// The COPY must not follow the original's later writes.
				later, _ := rc.Get(ctx, k+"c").Bytes()
				if string(later) != string(c2) {
					errs <- fmt.Errorf("reader %d: a COPY of the HLL changed without a write to it", r)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
