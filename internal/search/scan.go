package search

import (
	"slices"
	"time"
)

// Background initial indexing. FT.CREATE over a keyspace indexes its
// first slice of keys at once and returns; the rest is indexed in slices
// of scanSlice keys between other commands, by one goroutine per engine
// that takes the engine lock for each slice (so clients are served in
// between) and exits when the engine closes. FT.INFO reports indexing 1
// and percent_indexed until the walk ends. The walk (DB.ScanKeys) sees
// every key present for its whole duration; a key written meanwhile is
// queued by KeyChanged and re-read before any reader, as always, so the
// index is never stale, only incomplete: a search during the scan
// answers from the keys indexed so far, as RediSearch does.

const (
	scanSlice = 1000                   // keys per slice
	scanPause = 200 * time.Microsecond // between slices, lock released
)

// scanState is an index's initial walk.
type scanState struct {
	active bool
	cursor uint64
	done   int // keys visited
	total  int // keys in the database when the walk began
}

// startScan begins the walk of ix's database (lock held) and runs its
// first slice.
func (s *state) startScan(ix *index) {
	ix.scan = scanState{active: true, total: s.e.DBs()[ix.db].Len()}
	s.scanSlice(ix)
	if ix.scan.active {
		s.wakeScanner()
	}
}

// scanSlice indexes the next slice of ix's walk (lock held).
func (s *state) scanSlice(ix *index) {
	db := s.e.DBs()[ix.db]
	n := 0
	var keys []string
	for n < scanSlice && !(ix.scan.cursor == 0 && n > 0) {
		ix.scan.cursor = db.ScanKeys(ix.scan.cursor, func(k string) {
			if ix.covers(k) {
				keys = append(keys, k)
			}
			n++
		})
		if ix.scan.cursor == 0 {
			ix.scan.active = false
			break
		}
	}
	// Within a slice, in key order: a keyspace that fits in one slice
	// gets the same document order (score ties) on every run.
	slices.Sort(keys)
	keys = slices.Compact(keys)
	ix.scan.done += len(keys)
	for _, k := range keys {
		ix.update(s.e, k)
	}
}

// percent is FT.INFO's percent_indexed.
func (sc *scanState) percent() float64 {
	if !sc.active {
		return 1
	}
	if sc.total == 0 {
		return 0
	}
	return min(float64(sc.done)/float64(sc.total), 0.99)
}

// wakeScanner starts the engine's scanner goroutine if it is not running.
func (s *state) wakeScanner() {
	if s.scanning {
		return
	}
	s.scanning = true
	go s.scanLoop()
}

// scanLoop runs slices of every index still walking, round robin, until
// none is or the engine closes.
func (s *state) scanLoop() {
	for {
		select {
		case <-s.e.Done():
			return
		case <-time.After(scanPause):
		}
		s.e.Lock()
		s.sync()
		more := false
		for _, ix := range s.indexes {
			if ix.scan.active {
				s.scanSlice(ix)
				more = more || ix.scan.active
			}
		}
		if !more {
			s.scanning = false
		}
		s.e.Unlock()
		if !more {
			return
		}
	}
}
