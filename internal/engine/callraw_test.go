package engine_test

import (
	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// callRaw runs one command for cl on e as a connection does (RESP2, the
// lock held) and returns the raw reply.
func callRaw(e *engine.Engine, cl *engine.Client, args ...string) string {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	w := &resp.Writer{Proto: 2}
	e.Lock()
	e.Call(cl, b, w)
	e.Unlock()
	return string(w.Buf)
}
