package dict

import (
	"strconv"
	"testing"
)

// TestVisited walks a dict with Scan while it grows (inserts between
// calls) and checks, after every call, that Visited is true exactly for
// the keys Scan has returned so far among those present all along.
func TestVisited(t *testing.T) {
	for _, grow := range []int{0, 3, 50} {
		d := New[struct{}](nil)
		for i := range 500 {
			d.Set("k"+strconv.Itoa(i), struct{}{})
		}
		seen := map[string]bool{}
		next := 500
		var cursor uint64
		for {
			cursor = d.Scan(cursor, func(k string, _ struct{}) { seen[k] = true })
			if cursor == 0 {
				break
			}
			for i := range 500 {
				k := "k" + strconv.Itoa(i)
				if got := d.Visited(cursor, k); got != seen[k] {
					t.Fatalf("grow %d: Visited(%s) = %v, Scan returned it: %v", grow, k, got, seen[k])
				}
			}
			for j := 0; j < grow && next < 5000; j++ { // the table grows (and rehashes) between calls
				d.Set("n"+strconv.Itoa(next), struct{}{})
				next++
			}
		}
		for i := range 500 {
			if !seen["k"+strconv.Itoa(i)] {
				t.Fatalf("grow %d: k%d never returned", grow, i)
			}
		}
	}
}
