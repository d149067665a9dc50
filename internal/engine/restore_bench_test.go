package engine

import (
	"bufio"
	"bytes"
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/resp"
	"github.com/ordo-db/ordo/internal/sysinfo"
)

// BenchmarkRestoreZSet is the bench's data row without the network:
// RESTORE ... REPLACE of the DUMP payload of a 10,000-member sorted set
// (ZSET_2, as Redis 7.0 dumps a skiplist-encoded set) over 16 keys.
func BenchmarkRestoreZSet(b *testing.B) {
	e := New(nil)
	defer e.Close()
	cl := e.NewClient("bench")
	w := &resp.Writer{Proto: 2}
	args := [][]byte{[]byte("ZADD"), []byte("src")}
	x := uint64(1)
	for i := 0; i < 10000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		args = append(args, []byte(strconv.FormatUint(x>>40%1000000, 10)), []byte("member:"+strconv.Itoa(i)))
	}
	e.Lock()
	e.Call(cl, args, w)
	w.Reset()
	e.Call(cl, [][]byte{[]byte("DUMP"), []byte("src")}, w)
	v, err := resp.ReadReply(bufio.NewReader(bytes.NewReader(w.Buf)))
	e.Unlock()
	if err != nil || v.Kind != resp.KindBulk {
		b.Fatalf("DUMP: %v %v", err, v)
	}
	payload := []byte(v.Str)
	restore, zero, replace := []byte("RESTORE"), []byte("0"), []byte("REPLACE")
	keys := make([][]byte, 16)
	for i := range keys {
		keys[i] = []byte("rz:" + strconv.Itoa(i))
	}
	b.ReportAllocs()
	cpu0 := sysinfo.ProcessCPU()
	i := 0
	for b.Loop() {
		w.Reset()
		e.Lock()
		e.Call(cl, [][]byte{restore, keys[i&15], zero, payload, replace}, w)
		e.Unlock()
		i++
	}
	// CPU time is steadier than wall time on a shared machine.
	b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}
