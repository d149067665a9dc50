package server

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/resp"
	"github.com/ordo-db/ordo/internal/sysinfo"
)

// batchSource hands out pre-encoded batches of requests, one per Read.
type batchSource struct {
	batches [][]byte
	i       int
}

func (s *batchSource) Read(p []byte) (int, error) {
	b := s.batches[s.i%len(s.batches)]
	s.i++
	return copy(p, b), nil
}

// BenchmarkBatch measures what ordo-server does per pipelined batch of 16
// requests without the network: parse with resp.Reader, run each under
// one engine lock acquisition, reply into one resp.Writer (the path of
// session.batch, minus the read and write system calls). The commands are
// the bench's throughput rows, with __rand_int__ replaced as
// redis-benchmark -r 1000000 does. One op is one batch of 16; cpu-ns/op is
// the process's CPU time per batch.
func BenchmarkBatch(b *testing.B) {
	rows := []struct {
		name string
		cmd  string
	}{
		{"PING", "PING"},
		{"SET", "SET key:__rand_int__ xxx"},
		{"GET", "GET key:__rand_int__"},
		{"INCR", "INCR counter:__rand_int__"},
		{"SADD", "SADD myset element:__rand_int__"},
		{"LPUSH", "LPUSH mylist xxx"},
		{"SETBIT", "SETBIT bm:__rand_int__ 1000 1"},
		{"BITCOUNT", "BITCOUNT bm:__rand_int__ 0 -1"},
		{"PFADD", "PFADD hll ele:__rand_int__"},
		{"PFCOUNT", "PFCOUNT hll"},
		{"ZRANGEBYLEX", "ZRANGEBYLEX myz [m:5 (m:6 LIMIT 0 10"},
		{"SORTBY", "SORT sortl BY sortw_* LIMIT 0 10"},
	}
	for _, row := range rows {
		b.Run(row.name, func(b *testing.B) {
			e := NewEngine(nil)
			defer e.Close()
			cl := e.NewClient("bench")
			w := &resp.Writer{Proto: 2}
			rng := rand.New(rand.NewPCG(1, 2))
			words := strings.Fields(row.cmd)
			encode := func() []byte {
				var buf []byte
				for range 16 {
					buf = fmt.Appendf(buf, "*%d\r\n", len(words))
					for _, wd := range words {
						wd = strings.ReplaceAll(wd, "__rand_int__", fmt.Sprintf("%012d", rng.IntN(1000000)))
						buf = fmt.Appendf(buf, "$%d\r\n%s\r\n", len(wd), wd)
					}
				}
				return buf
			}
			src := &batchSource{}
			for range 4096 {
				src.batches = append(src.batches, encode())
			}
			// Fill the keyspace as the bench's first run does.
			setup := func(args ...string) {
				bs := make([][]byte, len(args))
				for i, a := range args {
					bs[i] = []byte(a)
				}
				e.Lock()
				e.Call(cl, bs, w)
				e.Unlock()
				w.Reset()
			}
			for i := range 100 {
				el := fmt.Sprint((i * 37) % 100)
				setup("RPUSH", "sortl", el)
				setup("SET", "sortw_"+el, fmt.Sprint((i*53)%100))
			}
			for i := range 1000 {
				setup("ZADD", "myz", fmt.Sprint(i), fmt.Sprintf("m:%012d", i*7919%1000000))
			}
			for i := range 3000 {
				setup("PFADD", "hll", fmt.Sprintf("e%d", i))
			}
			rd := resp.NewReader(src)
			run := func() {
				if err := rd.Fill(); err != nil {
					b.Fatal(err)
				}
				e.Lock()
				for {
					args, err := rd.TryCommand()
					if err != nil {
						break
					}
					e.Call(cl, args, w)
				}
				e.Unlock()
				w.Reset()
			}
			for range 2 * len(src.batches) {
				run()
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := sysinfo.ProcessCPU()
			for b.Loop() {
				run()
			}
			// The process's CPU time per batch: steadier than ns/op on
			// a shared machine.
			b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
