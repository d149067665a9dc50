package repl

// What a full sync carries beyond keys. As Redis 7's replica, ours
// replaces its function libraries with the master's (the file's FUNCTION2
// records). From an Ordo master, the file also carries the engine-wide
// state (engine.AuxState: FT index definitions, aliases, synonyms,
// dictionaries, suggestions), and the replica's own is replaced by it:
// its indexes are dropped and the master's created over the loaded data,
// indexed by FT.CREATE's background scan (FT.INFO's indexing and
// percent_indexed tell when it is done); later writes reach them through
// the replicated commands, as on the master. A file from redis-server has
// no such state: the replica keeps its own indexes, which follow the
// loaded data.

import (
	"bytes"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// applyState installs the master's function libraries and, when hasState,
// its engine-wide state (the engine lock held, right after the dataset
// swap: clients see the new data and state together).
// cl is a client of kind engine.KindMaster (removed by the caller, after
// the lock is released).
func (r *Replica) applyState(cl *engine.Client, functions [][]byte, state string, hasState bool) {
	e := r.e
	w := &resp.Writer{Proto: 2}
	call := func(args [][]byte) resp.Value {
		w.Reset()
		if e.Call(cl, args, w) != nil {
			return resp.Value{Kind: resp.KindError, Str: "blocked"}
		}
		v, _, err := resp.ParseReply(w.Buf)
		if err != nil {
			return resp.Value{Kind: resp.KindError, Str: err.Error()}
		}
		if v.Kind == resp.KindError {
			r.logf("MASTER <-> REPLICA sync: '%s' from the master's file failed: %s", args[0], v.Str)
		}
		return v
	}
	bs := func(ss ...string) [][]byte {
		out := make([][]byte, len(ss))
		for i, s := range ss {
			out[i] = []byte(s)
		}
		return out
	}
	if len(e.FunctionCodes()) > 0 {
		call(bs("FUNCTION", "FLUSH"))
	}
	for _, code := range functions {
		call([][]byte{[]byte("FUNCTION"), []byte("LOAD"), code})
	}
	if !hasState {
		return
	}
	cmds, err := engine.ParseStateAux(state)
	if err != nil {
		r.logf("MASTER <-> REPLICA sync: the master's %s is malformed: %v", engine.AuxState, err)
	}
	// Our indexes give way to the master's (their contents went with the
	// swap; aliases and synonyms go with them). Dictionaries and
	// suggestions went with the swap's FLUSHALL.
	if e.Lookup(bs("FT._LIST")) != nil {
		for _, n := range call(bs("FT._LIST")).Elems {
			call(bs("FT.DROPINDEX", n.Str))
		}
	}
	for _, args := range cmds {
		if len(args) > 1 && engine.EqualFold(args[0], "ft.create") {
			args = withoutInitialSkip(args)
		}
		call(args)
	}
	call(bs("SELECT", "0"))
}

// withoutInitialSkip drops SKIPINITIALSCAN from FT.CREATE's options: the
// replica indexes every document it loaded, as the master does when it
// reloads its AOF (the definition first, then the keys). Without this the
// replica's index would miss the documents the master indexed as they
// were written after its FT.CREATE.
func withoutInitialSkip(args [][]byte) [][]byte {
	out := make([][]byte, 0, len(args))
	schema := false
	for i, a := range args {
		if i > 1 && !schema {
			if engine.EqualFold(a, "schema") {
				schema = true
			} else if bytes.EqualFold(a, []byte("skipinitialscan")) {
				continue
			}
		}
		out = append(out, a)
	}
	return out
}
