package search

import (
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// newSearchEngine returns an engine with the search commands registered
// (closed when the test ends), their state, and do, which runs one
// command as a single client under the lock and returns its RESP2 reply.
func newSearchEngine(t testing.TB) (e *engine.Engine, h *holder, do func(args ...string) string) {
	h = &holder{}
	e = engine.New(nil, func(t *engine.Table) { register(t, h) })
	t.Cleanup(e.Close)
	cl := e.NewClient("test")
	w := &resp.Writer{Proto: 2}
	do = func(args ...string) string {
		b := make([][]byte, len(args))
		for i, a := range args {
			b[i] = []byte(a)
		}
		w.Reset()
		e.Lock()
		e.Call(cl, b, w)
		e.Unlock()
		return string(w.Buf)
	}
	return e, h, do
}
