package search

import (
	"unsafe"

	"github.com/ordo-db/ordo/internal/engine"
)

// Document handles: for an index ON HASH, each live document's hash
// object in the keyspace, by id, so that fetching a page of results
// (FT.SEARCH's content, the typed Search's Docs) reads the hashes
// directly instead of looking each key up in the keyspace again (hashing
// the key, then cache misses on the keyspace's entry and record: about
// a fifth of a 100-document Search).
//
// A handle is exactly as fresh as the index: it is taken where a
// document is indexed (updateSource, from the value the engine holds at
// that moment) and dropped where the document is removed. Every change
// to a key, whatever made it (a write in place, a new object under the
// same key after DEL or RENAME, expiry, eviction, FLUSHDB, SWAPDB), is
// reported through the KeyObserver hook and re-indexes the key under a
// new id before any reader of the index runs, so a live id's handle is
// the object the keyspace holds for its key whenever a reader looks. A
// removed document's handle is cleared at once, so the index never keeps
// a deleted hash alive. Cost: 8 bytes per document id (holes included
// until renumbering; 4 on 32-bit), counted in FT.INFO's
// doc_table_size_mb.

// setHandle records v as document id's value, if it is a hash (lock
// held). Ids come in increasing order, so the column grows at its end.
func (ix *index) setHandle(id uint32, v engine.Value) {
	h, _ := v.Obj().(*engine.Hash)
	if h == nil {
		return
	}
	for int(id) >= len(ix.handles) {
		ix.handles = append(ix.handles, nil)
	}
	ix.handles[id] = h
}

// handle returns document id's hash (nil: not a hash index, or no
// document).
func (ix *index) handle(id uint32) *engine.Hash {
	if int(id) < len(ix.handles) {
		return ix.handles[id]
	}
	return nil
}

// hashOf returns the hash of document id at key: its handle, or (for a
// document indexed without one: tests' index.add) the keyspace's.
func (ix *index) hashOf(e *engine.Engine, id uint32, key string) *engine.Hash {
	if h := ix.handle(id); h != nil {
		return h
	}
	v, _, _ := e.Peek(ix.db, key)
	h, _ := v.Obj().(*engine.Hash)
	return h
}

// dropHandle forgets document id's hash (removeDoc).
func (ix *index) dropHandle(id uint32) {
	if int(id) < len(ix.handles) {
		ix.handles[id] = nil
	}
}

// renumberHandles moves the handles to the new ids (renumber's map m:
// old id -> new id + 1, 0 for a hole; n documents).
func (ix *index) renumberHandles(m []uint32, n uint32) {
	if ix.handles == nil {
		return
	}
	out := make([]*engine.Hash, n)
	for id, h := range ix.handles {
		if id < len(m) && m[id] != 0 {
			out[m[id]-1] = h
		}
	}
	ix.handles = out
}

// handlesBytes is the handles' column size (FT.INFO's doc table).
func (ix *index) handlesBytes() int { return cap(ix.handles) * int(unsafe.Sizeof(uintptr(0))) }
