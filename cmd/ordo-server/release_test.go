package main

import "testing"

// A quiet server collects only when what it could give back is worth a
// collection: more than 2 MB and an eighth of the live heap.
func TestWorthReleasing(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		free, objects, live uint64
		want                bool
	}{
		{0, 5 * mb, 5 * mb, false},          // nothing free, nothing new
		{6 * mb, 20 * mb, 20 * mb, true},    // a bulk load's freed pages
		{1 * mb, 2 * mb, 1 * mb, false},     // under 2 MB either way
		{3 * mb, 100 * mb, 100 * mb, false}, // under an eighth of a big heap
		{0, 9 * mb, 5 * mb, true},           // 4 MB allocated since the last collection
		{0, 4 * mb, 5 * mb, false},          // swept below the last live count
		{0, 110 * mb, 100 * mb, false},      // 10 MB on 100 MB live: an eighth is 12.5
	} {
		if got := worthReleasing(tc.free, tc.objects, tc.live); got != tc.want {
			t.Errorf("worthReleasing(free %d, objects %d, live %d MB) = %v, want %v",
				tc.free/mb, tc.objects/mb, tc.live/mb, got, tc.want)
		}
	}
}
