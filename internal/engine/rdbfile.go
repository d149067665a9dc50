package engine

// RDB files: the whole dataset in Redis 7.0's format (internal/rdb).
// SAVE writes dir/dbfilename as redis-server does (after Ordo's own
// snapshot), so a dump.rdb taken from Ordo starts a redis-server; and
// ordo-server --rdb-import loads a dump.rdb written by redis-server
// (LoadRDB). ReJSON-RL values are written as Ordo aux fields, which
// redis-server skips (rdbaux.go).

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ordo-db/ordo/internal/rdb"
)

// RDBStats counts what WriteRDB wrote or LoadRDB loaded.
type RDBStats struct {
	Keys      int // keys written or loaded
	Skipped   int // keys not written (JSON) or not loaded (expired, empty)
	Functions int // function libraries in the file, not loaded
	Libraries int // function libraries written or loaded
}

// FunctionStore is the engine's function libraries as RDB files hold
// them: the code of each library (FUNCTION2 records). Both methods are
// called with the lock held.
type FunctionStore interface {
	FunctionCodes() [][]byte
	LoadFunction(code []byte) error // replaces a library of the same name
}

// WriteRDB writes every database as an RDB file that redis-server 7.0
// loads, with the same encodings. The caller holds the engine lock.
func (e *Engine) WriteRDB(w io.Writer) (RDBStats, error) { return e.WriteRDBAux(w) }

// rdbWriter starts an RDB file with Redis's aux fields and the extra ones
// given (key, value pairs).
func (e *Engine) rdbWriter(w io.Writer, aux []string) *rdb.Writer {
	wr := rdb.NewWriter(w, e.Config.Bool("rdbcompression"))
	wr.Aux("redis-ver", RedisVersion)
	wr.Aux("redis-bits", strconv.Itoa(strconv.IntSize))
	wr.Aux("ctime", strconv.FormatInt(time.Now().Unix(), 10))
	for i := 0; i+1 < len(aux); i += 2 {
		wr.Aux(aux[i], aux[i+1])
	}
	wr.Aux("aof-base", "0")
	return wr
}

// WriteRDBAux is WriteRDB with extra aux fields (key, value pairs), such
// as a replication full sync's repl-stream-db, repl-id and repl-offset.
func (e *Engine) WriteRDBAux(w io.Writer, aux ...string) (RDBStats, error) {
	var st RDBStats
	wr := e.rdbWriter(w, aux)
	if f := e.cmds.functions; f != nil {
		for _, code := range f(e).FunctionCodes() {
			wr.Function(code)
			st.Libraries++
		}
	}
	now := NowMs()
	for i, db := range e.dbs {
		if db.Len() == 0 {
			continue
		}
		wr.SelectDB(i, uint64(db.Len()), uint64(db.ExpiresLen()))
		db.Each(now, func(k string, v Value, at int64) bool {
			rv, ok := toRDB(v)
			if !ok {
				if j, isJSON := v.o.(*JSON); isJSON { // an aux field (rdbaux.go)
					wr.Raw(appendJSONAux(nil, i, k, j, at, e.Config.Bool("rdbcompression")))
					st.Keys++
					return true
				}
				st.Skipped++
				return true
			}
			wr.Entry([]byte(k), rv, at)
			st.Keys++
			return true
		})
	}
	return st, wr.Close()
}

// SaveRDBFile writes the dataset to dir/dbfilename (through a temporary
// file, synced and renamed, as Redis does). The caller holds the lock.
func (e *Engine) SaveRDBFile() (RDBStats, error) {
	var st RDBStats
	err := writeFileSynced(filepath.Join(e.Config.Get("dir"), e.Config.Get("dbfilename")), func(w io.Writer) error {
		var err error
		st, err = e.WriteRDB(w)
		return err
	})
	return st, err
}

// LoadRDB adds the keys of an RDB file (versions 1 to 10) to the
// databases, with the encodings Redis would choose under the current
// configuration. A key that already exists (in the dataset or earlier in
// the file) is an error, as Redis's "RDB has duplicated key". As Redis loading a file,
// it skips keys already expired and empty collections. Module values
// make it fail; so does a database number out of range. On error
// the keys loaded so far stay: callers wanting all or nothing load into
// an empty dataset and flush it on error. The caller holds the lock.
func (e *Engine) LoadRDB(r io.Reader) (RDBStats, error) {
	var st RDBStats
	now := NowMs()
	_, err := rdb.ReadFile(r, rdb.Handler{
		Aux: func(k, v []byte) error {
			if string(k) != AuxJSON {
				return nil
			}
			loaded, err := e.loadJSONAux(e.dbs, v, now, false)
			if loaded {
				st.Keys++
			} else if err == nil {
				st.Skipped++
			}
			return err
		},
		Function: func(code []byte) error {
			if f := e.cmds.functions; f != nil {
				st.Libraries++
				return f(e).LoadFunction(code)
			}
			st.Functions++
			return nil
		},
		Skipped: func(*rdb.Entry, error) error {
			st.Skipped++
			return nil
		},
		Entry: func(en *rdb.Entry) error {
			if en.DB >= len(e.dbs) {
				return fmt.Errorf("the RDB file uses database %d, but only %d databases are configured", en.DB, len(e.dbs))
			}
			if en.ExpireAt != -1 && en.ExpireAt < now { // Redis's rdbLoad: expiretime < now
				st.Skipped++
				return nil
			}
			if len(e.snaps) > 0 {
				e.snapCapture(e.dbs[en.DB], view(en.Key))
			}
			if !e.dbs[en.DB].load(view(en.Key), fromRDB(e, en.Value), en.ExpireAt) {
				return fmt.Errorf("duplicated key %q in database %d", en.Key, en.DB)
			}
			st.Keys++
			return nil
		},
	})
	return st, err
}

// load stores a key read from a file, with its expiry (or -1), and
// reports whether it is new. A duplicate replaces the old value (whose
// bytes stay counted: LoadRDB fails then, and its callers flush). key
// may alias a buffer: the Dict copies it.
func (db *DB) load(key string, v Value, at int64) bool {
	isNew := db.keys.Set(key, v)
	db.used += keyBytes(key, v)
	if !isNew {
		return false
	}
	if at != -1 {
		db.expires.Set(key, at)
	}
	if len(db.watched) > 0 {
		db.touchWatched(key)
	}
	return true
}

// RDBPart is one database's entries serialized by AppendRDBKey, for
// WriteRDBParts.
type RDBPart struct {
	Keys, Expires int
	Entries       [][]byte
}

// AppendRDBKey appends the entry of key in database db as WriteRDB
// writes it, without side effects (no lazy expiry, no access time): ok
// is false when the key is absent or expired at now. The caller holds the lock. hasTTL tells whether the
// entry carries an expiry.
func (e *Engine) AppendRDBKey(dst []byte, db int, key string, now int64) (out []byte, ok, hasTTL bool) {
	d := e.dbs[db]
	v, found := d.keys.Get(key)
	if !found {
		return dst, false, false
	}
	at := int64(-1)
	if x, has := d.expires.Get(key); has {
		if x < now {
			return dst, false, false
		}
		at = x
	}
	rv, conv := toRDB(v)
	if !conv {
		if j, isJSON := v.o.(*JSON); isJSON { // an aux field (rdbaux.go)
			return appendJSONAux(dst, db, key, j, at, e.Config.Bool("rdbcompression")), true, at != -1
		}
		return dst, false, false
	}
	return rdb.AppendEntry(dst, []byte(key), rv, at, e.Config.Bool("rdbcompression")), true, at != -1
}

// KeyNames returns the names of database db's keys (the lock held).
func (e *Engine) KeyNames(db int) []string {
	d := e.dbs[db]
	out := make([]string, 0, d.Len())
	d.keys.Each(func(k string, _ Value) bool {
		out = append(out, k)
		return true
	})
	return out
}

// WriteRDBParts writes an RDB file from entries serialized beforehand by
// AppendRDBKey (a snapshot taken in slices), with WriteRDB's aux fields
// and the given function libraries. It does not need the lock.
func (e *Engine) WriteRDBParts(w io.Writer, parts []RDBPart, functions [][]byte, aux ...string) error {
	wr := e.rdbWriter(w, aux)
	for _, code := range functions {
		wr.Function(code)
	}
	for i, p := range parts {
		if p.Keys == 0 {
			continue
		}
		wr.SelectDB(i, uint64(p.Keys), uint64(p.Expires))
		for _, b := range p.Entries {
			wr.Raw(b)
		}
	}
	return wr.Close()
}

// FunctionCodes returns the function libraries' code (the lock held).
func (e *Engine) FunctionCodes() [][]byte {
	if f := e.cmds.functions; f != nil {
		return f(e).FunctionCodes()
	}
	return nil
}
