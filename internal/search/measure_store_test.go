package search

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"unsafe"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// TestMeasureIndexStore prints where an index's bytes go over bench's
// index memory row's data (100,000 hashes: name TEXT of two words of 5000,
// price NUMERIC, color TAG of 50), indexed as they are written: the Go
// heap in use with the index and after FT.DROPINDEX, and the structures'
// sizes (MEASURE=1 go test -run TestMeasureIndexStore -v); it asserts
// nothing.
func TestMeasureIndexStore(t *testing.T) {
	if os.Getenv("MEASURE") == "" {
		t.Skip()
	}
	h := &holder{}
	e := engine.New(nil, func(t *engine.Table) { register(t, h) })
	defer e.Close()
	cl := e.NewClient("measure")
	w := &resp.Writer{Proto: 2}
	call := func(args ...string) {
		a := make([][]byte, len(args))
		for i, s := range args {
			a[i] = []byte(s)
		}
		w.Reset()
		e.Call(cl, a, w)
	}
	const N = 100000
	e.Lock()
	call("FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "item:", "SCHEMA", "name", "TEXT", "price", "NUMERIC", "color", "TAG")
	for i := range N {
		x := splitmix(uint64(i) + 7<<40)
		call("HSET", "item:"+strconv.Itoa(i),
			"name", "w"+strconv.FormatUint(x%5000, 10)+" w"+strconv.FormatUint((x>>16)%5000, 10),
			"price", strconv.FormatUint((x>>32)%100000, 10),
			"color", "c"+strconv.FormatUint((x>>48)%50, 10))
	}
	call("FT.SEARCH", "idx", "@price:[0 10]", "NOCONTENT", "LIMIT", "0", "0")
	ix := h.s.indexes["idx"]
	m := ix.memory()
	e.Unlock()
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	with := heap()
	per := func(n int) string { return strconv.FormatFloat(float64(n)/(3*N), 'f', 1, 64) }
	t.Logf("FT.INFO sizes, bytes per field per doc: inverted %s blocks %s offsets %s docTable %s sortables %s keyTable %s",
		per(m.inverted), per(m.blocks), per(m.offsets), per(m.docTable), per(m.sortables), per(m.keyTable))
	pages := len(ix.docs) * pageSize * int(unsafe.Sizeof(doc{}))
	tb, _ := ix.terms.bytes()
	t.Logf("doc pages %s (%d B/doc), recs %s (cap %d, len %d), key table %s, odd %s",
		per(pages), unsafe.Sizeof(doc{}), per(ix.recs.room), ix.recs.room, ix.recs.used, per(ix.keys.bytes()), per(cap(ix.odd)*8))
	t.Logf("terms: %d, postings %s, dict %s; over %d", ix.terms.len(), per(tb), per(ix.terms.keysBytes()), len(ix.over))
	for i, f := range ix.fields {
		switch f.typ {
		case typeTag:
			b, _ := ix.tags[i].bytes()
			t.Logf("tag %s: postings %s dict %s column %s", f.name, per(b), per(ix.tags[i].keysBytes()), per(cap(ix.tagc[i])*4))
		case typeNumeric:
			nt := ix.nums[i]
			t.Logf("numeric %s: total %s, column %s, chunks %d", f.name, per(nt.bytes()), per(cap(nt.vals)*8), len(nt.ch))
		}
	}
	t.Logf("tag orders %s", per(ix.tnBytes()))
	e.Lock()
	call("FT.DROPINDEX", "idx")
	e.Unlock()
	ix = nil
	without := heap()
	t.Logf("Go heap: with the index %.1f MB, without %.1f MB: the index %s bytes per field per doc",
		float64(with)/1e6, float64(without)/1e6, per(int(with)-int(without)))
}
