package engine_test

import (
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// BenchmarkSort measures SORT on a 100-element list (the bench row's
// command): numeric, BY weight keys with LIMIT, ALPHA, GET.
func BenchmarkSort(b *testing.B) {
	e := engine.New(nil)
	defer e.Close()
	cl := e.NewClient("embedded")
	w := &resp.Writer{Proto: 2}
	call := func(args ...string) {
		a := make([][]byte, len(args))
		for i, s := range args {
			a[i] = []byte(s)
		}
		w.Reset()
		e.Lock()
		e.Call(cl, a, w)
		e.Unlock()
	}
	for i := 0; i < 100; i++ {
		el := strconv.Itoa((i * 37) % 100)
		call("RPUSH", "sortl", el)
		call("SET", "sortw_"+el, strconv.Itoa((i*53)%100))
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"numeric", []string{"SORT", "sortl"}},
		{"by-limit", []string{"SORT", "sortl", "BY", "sortw_*", "LIMIT", "0", "10"}},
		{"alpha", []string{"SORT", "sortl", "ALPHA"}},
		{"get", []string{"SORT", "sortl", "GET", "sortw_*"}},
	} {
		args := make([][]byte, len(c.args))
		for i, s := range c.args {
			args[i] = []byte(s)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w.Reset()
				e.Lock()
				e.Call(cl, args, w)
				e.Unlock()
			}
		})
	}
}
