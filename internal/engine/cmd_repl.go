package engine

// Replication as the engine sees it: REPLICAOF/SLAVEOF, ROLE and INFO
// replication delegate to a Replication (internal/repl); the engine
// itself only knows whether it is a replica (read-only for normal
// clients, no expiry of its own: it waits for the master's DELs) and
// which client is the master's link. A replica's full sync loads the
// master's RDB into a Dataset outside the lock and swaps it in.

import (
	"fmt"
	"io"

	"github.com/ordo-db/ordo/internal/rdb"
	"github.com/ordo-db/ordo/internal/resp"
)

// KindMaster is the Kind of the client that applies a master's
// replication stream: it may write to a read-only replica, never sees a
// key expire, and is not refused over maxmemory.
const KindMaster = "master"

// ErrReadonlyReplica is Redis 7.0's reply to writes on a read-only replica.
const ErrReadonlyReplica = "READONLY You can't write against a read only replica."

// Replication is the replication layer (internal/repl), reached through
// this interface because the engine cannot import it.
type Replication interface {
	// ReplicaOf makes the server a replica of host:port, or a master
	// again when host is "" (REPLICAOF NO ONE). It runs under the engine
	// lock, must not wait for the lock, and returns the status reply.
	ReplicaOf(host string, port int) string
	// Role writes ROLE's reply.
	Role(w *resp.Writer)
	// InfoReplication is the body of INFO's replication section
	// ("field:value" lines).
	InfoReplication() string
}

// SetReplica switches replica behaviour on or off: writes from normal
// clients refused (replica-read-only), no lazy or active expiry.
func (e *Engine) SetReplica(on bool) { e.replica.Store(on) }

// IsReplica reports whether the engine is a replica.
func (e *Engine) IsReplica() bool { return e.replica.Load() }

// readonlyRefused reports whether cmd must be refused for cl because the
// engine is a read-only replica.
func (e *Engine) readonlyRefused(cl *Client, cmd *Command) bool {
	return e.replica.Load() && cmd.Has(FlagWrite) && cl.Kind != KindMaster && cl.Kind != "aof" &&
		e.Config.Bool("replica-read-only")
}

func registerReplication(t *Table) {
	replicaof := func(c *Ctx) {
		r := c.E.Replication
		if r == nil {
			c.W.Error("ERR replication is not available in this Ordo")
			return
		}
		if c.ArgIs(1, "no") && c.ArgIs(2, "one") {
			c.W.Simple(r.ReplicaOf("", 0))
			return
		}
		port, ok := c.IntArg(2)
		if !ok {
			return
		}
		c.W.Simple(r.ReplicaOf(string(c.Args[1]), int(port)))
	}
	t.register("replicaof", replicaof)
	t.register("slaveof", replicaof)
}

// Dataset is a set of databases loaded outside the engine lock (a
// replica's full sync), to be swapped in whole by SwapDataset.
type Dataset struct {
	dbs   []*DB
	Stats RDBStats
}

// LoadDataset reads a whole RDB file from r into a new dataset; it does
// not take the lock and the engine keeps serving its current data. With
// keepExpired (a replica loading its master's file) keys already expired
// are kept, to be deleted by the master's DELs, as Redis's replicas do.
// As ReadFile, it consumes exactly the file from an io.ByteReader.
func (e *Engine) LoadDataset(r io.Reader, keepExpired bool) (*Dataset, error) {
	ds := &Dataset{dbs: make([]*DB, len(e.dbs))}
	for i := range ds.dbs {
		ds.dbs[i] = newDB(i, e.acct)
	}
	now := NowMs()
	_, err := rdb.ReadFile(r, rdb.Handler{
		Function: func([]byte) error {
			ds.Stats.Functions++
			return nil
		},
		Skipped: func(*rdb.Entry, error) error {
			ds.Stats.Skipped++
			return nil
		},
		Entry: func(en *rdb.Entry) error {
			if en.DB >= len(ds.dbs) {
				return fmt.Errorf("the RDB file uses database %d, but only %d databases are configured", en.DB, len(ds.dbs))
			}
			if !keepExpired && en.ExpireAt != -1 && en.ExpireAt <= now {
				ds.Stats.Skipped++
				return nil
			}
			if !ds.dbs[en.DB].load(string(en.Key), fromRDB(e, en.Value), en.ExpireAt) {
				return fmt.Errorf("duplicated key %q in database %d", en.Key, en.DB)
			}
			ds.Stats.Keys++
			return nil
		},
	})
	if err != nil {
		ds.Discard()
		return nil, err
	}
	return ds, nil
}

// Discard frees a dataset that will not be swapped in.
func (ds *Dataset) Discard() {
	for _, db := range ds.dbs {
		db.Flush()
	}
}

// SwapDataset replaces the contents of every database with ds, as one
// atomic step (the caller holds the lock): clients see the old data or
// the new, never a mix. WATCHes on keys present before or after are
// touched, and KeyObservers get a "flushdb" event per database, as for
// FLUSHALL (they are not told of the loaded keys). ds must not be used
// afterwards.
func (e *Engine) SwapDataset(ds *Dataset) {
	for i, db := range e.dbs {
		n := ds.dbs[i]
		db.touchWatchedExisting(n)
		db.keys, n.keys = n.keys, db.keys
		db.expires, n.expires = n.expires, db.expires
		db.used, n.used = n.used, db.used
		db.expireCursor = 0
		n.Flush()
		if len(e.observers) > 0 {
			e.notify(KeyEvent{DB: db.ID, Event: "flushdb"})
		}
	}
	e.dirty++
}

// roleMaster is ROLE's reply for a master without replicas.
func roleMaster(w *resp.Writer) {
	w.Array(3)
	w.BulkString("master")
	w.Int(0)
	w.Array(0)
}
