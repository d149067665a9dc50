package engine

// What Redis's RDB format has no type for travels in aux fields, which
// every RDB loader skips when it does not know them (redis-server logs
// "Unrecognized RDB AUX field" at debug level and goes on), so an RDB
// file written by Ordo still loads into redis-server 7.0, without these:
//
//   - AuxJSON: one JSON document (a ReJSON-RL key), in the database
//     section it belongs to. RedisJSON's own module encoding would make
//     a redis-server without the module refuse the file and exit (a
//     replica of ours would die at every full sync).
//   - AuxState: the engine-wide state that is not in keys, FT index
//     definitions, aliases, synonyms, dictionaries and suggestions
//     (engine.StateRewriter), as the commands that recreate it; a
//     replication full sync carries it (WithState), and an Ordo replica
//     replaces its own state with it (see internal/repl).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/ordo-db/ordo/internal/ds/jsonval"
	"github.com/ordo-db/ordo/internal/rdb"
	"github.com/ordo-db/ordo/internal/resp"
)

// Ordo's aux field names.
const (
	AuxJSON  = "ordo-json"
	AuxState = "ordo-state"
)

// appendJSONAux appends the aux record of a JSON document: uvarint
// database, varint expiry (unix ms, or -1), uvarint key length, the key,
// then the document's compact JSON text.
func appendJSONAux(dst []byte, db int, key string, j *JSON, at int64, compress bool) []byte {
	p := binary.AppendUvarint(nil, uint64(db))
	p = binary.AppendVarint(p, at)
	p = binary.AppendUvarint(p, uint64(len(key)))
	p = append(p, key...)
	p = jsonval.Append(p, j.root, nil)
	return rdb.AppendAux(dst, []byte(AuxJSON), p, compress)
}

// jsonAux is a decoded AuxJSON record.
type jsonAux struct {
	db  int
	at  int64
	key []byte
	v   Value
}

func decodeJSONAux(p []byte) (jsonAux, error) {
	var a jsonAux
	bad := errors.New("invalid " + AuxJSON + " aux field")
	db, n := binary.Uvarint(p)
	if n <= 0 || db > 1<<31 {
		return a, bad
	}
	p = p[n:]
	at, n := binary.Varint(p)
	if n <= 0 {
		return a, bad
	}
	p = p[n:]
	kl, n := binary.Uvarint(p)
	if n <= 0 || kl > uint64(len(p)-n) {
		return a, bad
	}
	p = p[n:]
	root, err := jsonval.Parse(p[kl:])
	if err != nil {
		return a, fmt.Errorf("%s: %w", bad, err)
	}
	a.db, a.at, a.key, a.v = int(db), at, p[:kl], ObjectValue(&JSON{root: root})
	return a, nil
}

// loadJSONAux adds the document of an AuxJSON record to dbs (as
// LoadRDB's entries: expired ones skipped unless keepExpired); loaded
// tells whether it was added.
func (e *Engine) loadJSONAux(dbs []*DB, p []byte, now int64, keepExpired bool) (loaded bool, err error) {
	a, err := decodeJSONAux(p)
	if err != nil {
		return false, err
	}
	if a.db >= len(dbs) {
		return false, fmt.Errorf("the RDB file uses database %d, but only %d databases are configured", a.db, len(dbs))
	}
	if !keepExpired && a.at != -1 && a.at < now {
		return false, nil
	}
	if !dbs[a.db].load(view(a.key), a.v, a.at) {
		return false, fmt.Errorf("duplicated key %q in database %d", a.key, a.db)
	}
	return true, nil
}

// StateAux returns the AuxState value: the commands RewriteState emits,
// as RESP requests, each database change preceded by a SELECT. Function
// libraries are left out (FUNCTION2 records carry them). The lock is
// held.
func (e *Engine) StateAux() string {
	var b []byte
	cur := -1
	e.RewriteState(func(db int, args [][]byte) {
		if len(args) > 0 && EqualFold(args[0], "function") {
			return
		}
		if db != cur {
			b = resp.AppendCommand(b, "SELECT", strconv.Itoa(db))
			cur = db
		}
		b = resp.AppendCommandBytes(b, args)
	})
	return string(b)
}

// ParseStateAux splits an AuxState value into its commands.
func ParseStateAux(s string) ([][][]byte, error) {
	var out [][][]byte
	r := resp.NewReader(bytes.NewReader([]byte(s)))
	for {
		args, err := r.ReadCommand()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		cp := make([][]byte, len(args))
		for i, a := range args {
			cp[i] = bytes.Clone(a)
		}
		out = append(out, cp)
	}
}
