package search

import (
	"github.com/ordo-db/ordo/internal/sysinfo"
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// BenchmarkIndexedHSETCall is bench's index HSET row without the network:
// HSETs of three fields (name: two words of 5000, price: an integer,
// color: one of 50) called on the engine in batches of 16 under one lock,
// as a pipelining connection runs them, with and without an index over
// the fields (TEXT, NUMERIC, TAG); "new" writes keys not seen before,
// "overwrite" rewrites 100,000 keys (the old document is removed first).
func BenchmarkIndexedHSETCall(b *testing.B) {
	for _, indexed := range []bool{false, true} {
		for _, overwrite := range []bool{false, true} {
			name := map[bool]string{false: "none", true: "index"}[indexed] + "/" + map[bool]string{false: "new", true: "overwrite"}[overwrite]
			b.Run(name, func(b *testing.B) { benchHSETCall(b, indexed, overwrite) })
		}
	}
}

func benchHSETCall(b *testing.B, indexed, overwrite bool) {
	h := &holder{}
	e := engine.New(nil, func(t *engine.Table) { register(t, h) })
	defer e.Close()
	cl := e.NewClient("bench")
	w := &resp.Writer{Proto: 2}
	call := func(args ...string) {
		a := make([][]byte, len(args))
		for i, s := range args {
			a[i] = []byte(s)
		}
		e.Call(cl, a, w)
	}
	e.Lock()
	if indexed {
		call("FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "item:", "SCHEMA", "name", "TEXT", "price", "NUMERIC", "color", "TAG")
	}
	e.Unlock()
	const keys = 100000
	mk := func(i int) [][]byte {
		x := splitmix(uint64(i) + 7<<40)
		k := i
		if overwrite {
			k = i % keys
		}
		return [][]byte{[]byte("HSET"), []byte("item:" + strconv.Itoa(k)),
			[]byte("name"), []byte("w" + strconv.FormatUint(x%5000, 10) + " w" + strconv.FormatUint((x>>16)%5000, 10)),
			[]byte("price"), []byte(strconv.FormatUint((x>>32)%100000, 10)),
			[]byte("color"), []byte("c" + strconv.FormatUint((x>>48)%50, 10))}
	}
	// The commands are built ahead (4096 of them, reused with fresh keys
	// for "new" as the loop advances), so the loop measures the engine.
	const batch = 16
	if overwrite {
		e.Lock()
		for i := range keys {
			w.Reset()
			e.Call(cl, mk(i), w)
		}
		e.Unlock()
	}
	cmds := make([][][]byte, 4096)
	for i := range cmds {
		cmds[i] = mk(i)
	}
	b.ReportAllocs()
	i := 0
	var cpu0 int64
	for b.Loop() {
		if i == 0 {
			cpu0 = int64(sysinfo.ProcessCPU())
		}
		w.Reset()
		e.Lock()
		for range batch {
			c := cmds[i%len(cmds)]
			if !overwrite {
				c[1] = strconv.AppendInt(c[1][:len("item:")], int64(i), 10)
			} else {
				c[1] = strconv.AppendInt(c[1][:len("item:")], int64((i*7919)%keys), 10)
			}
			e.Call(cl, c, w)
			i++
		}
		e.Unlock()
	}
	if cpu := int64(sysinfo.ProcessCPU()); cpu > 0 {
		b.ReportMetric(float64(cpu-cpu0)/float64(i), "cpu-ns/HSET")
	}
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
