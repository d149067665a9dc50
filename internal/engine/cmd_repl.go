package engine

// Replication as the engine sees it: REPLICAOF/SLAVEOF, ROLE and INFO
// replication delegate to a Replication (internal/repl); the engine
// itself only knows whether it is a replica (read-only for normal
// clients, no expiry of its own: it waits for the master's DELs) and
// which client is the master's link. A replica's full sync loads the
// master's RDB into a Dataset outside the lock and swaps it in.

import (
	"bytes"
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
	// ReplConf performs REPLCONF (listening-port, capa, ...) for a
	// replica connecting to this server.
	ReplConf(c *Ctx)
	// Sync performs SYNC and PSYNC: it writes the reply (+FULLRESYNC,
	// +CONTINUE or an error) and, when the client becomes a replica,
	// marks it with SetReplicaLink; the server then hands the connection
	// to the replication layer.
	Sync(c *Ctx)
	// Offset is the master replication offset.
	Offset() int64
	// Acked counts the replicas that acknowledged offset; RequestAck asks
	// them to acknowledge (REPLCONF GETACK), for WAIT.
	Acked(offset int64) int
	RequestAck()
	// SyncStats is INFO stats' sync_full, sync_partial_ok and
	// sync_partial_err.
	SyncStats() (full, partialOK, partialErr int64)
	// GoodReplicas counts the online replicas whose last ACK is at most
	// maxLag seconds old (min-replicas-to-write).
	GoodReplicas(maxLag int64) int
}

// ErrNoReplicas is Redis 7.0's refusal of a write when fewer than
// min-replicas-to-write replicas are good.
const ErrNoReplicas = "NOREPLICAS Not enough good replicas to write."

// replOffset is the master replication offset, 0 without replication.
func (e *Engine) replOffset() int64 {
	if e.Replication == nil {
		return 0
	}
	return e.Replication.Offset()
}

// noReplicasRefused reports whether cmd must be refused because this
// master has fewer good replicas than min-replicas-to-write (Redis's
// checkGoodReplicasStatus): writes, and EXEC of a transaction with
// writes, from any client but the master's link.
func (e *Engine) noReplicasRefused(cl *Client, cmd *Command) bool {
	if e.replica.Load() || e.Replication == nil || cl.Kind == KindMaster || cl.Kind == "aof" {
		return false
	}
	write := cmd.Has(FlagWrite)
	if !write && cmd.Name == "exec" && cl.multi {
		for _, q := range cl.multiQueue {
			if q.cmd.Has(FlagWrite) {
				write = true
				break
			}
		}
	}
	if !write {
		return false
	}
	hs := e.Config.hot()
	n, lag := hs.minReplicas, hs.minReplicasLag
	if n == 0 || lag == 0 {
		return false
	}
	return int64(e.Replication.GoodReplicas(lag)) < n
}

// SetReplicaLink marks the client as a replica's link after SYNC/PSYNC.
func (cl *Client) SetReplicaLink() { cl.replLink = true }

// ReplicaLink reports whether the client became a replica's link: the
// server stops executing its requests and hands its connection to the
// replication layer.
func (cl *Client) ReplicaLink() bool { return cl.replLink }

// waitAckKey is the pseudo key WAIT blocks on; WakeAckWaiters makes it
// ready when a replica acknowledges.
const waitAckKey = "\x00ordo:wait-ack\x00"

// WakeAckWaiters re-checks the clients blocked in WAIT (a replica sent
// REPLCONF ACK). The caller holds the lock.
func (e *Engine) WakeAckWaiters() {
	for i := range e.dbs {
		bk := blockKey{i, waitAckKey}
		if _, ok := e.blocked[bk]; ok && !e.readySet[bk] {
			e.readySet[bk] = true
			e.readyKeys = append(e.readyKeys, bk)
		}
	}
	if len(e.readyKeys) > 0 {
		e.serveReady()
	}
}

// waitCommand is WAIT numreplicas timeout.
func waitCommand(c *Ctx) {
	want, ok := c.IntArg(1)
	if !ok {
		return
	}
	t, ok := ParseInt(c.Args[2])
	if !ok {
		c.W.Error(ErrWaitTimeout)
		return
	}
	if t < 0 {
		c.W.Error(ErrTimeoutNegative)
		return
	}
	r := c.E.Replication
	if c.E.IsReplica() {
		c.W.Error("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.")
		return
	}
	if r == nil {
		c.W.Int(0)
		return
	}
	// Redis's c->woff: the offset right after the client's last write.
	target := c.Client.woff
	n := r.Acked(target)
	if int64(n) >= want || c.NoBlock || c.Client.multi {
		c.W.Int(int64(n))
		return
	}
	r.RequestAck()
	deadline := int64(0)
	if t > 0 {
		deadline = c.Now + t
	}
	c.Block(&Waiter{
		Keys:     [][]byte{[]byte(waitAckKey)},
		Deadline: deadline,
		Serve: func(c *Ctx) bool {
			if n := r.Acked(target); int64(n) >= want {
				c.W.Int(int64(n))
				return true
			}
			return false
		},
		Timeout: func(w *resp.Writer) { w.Int(int64(r.Acked(target))) },
	})
}

// SetReplica switches replica behaviour on or off: writes from normal
// clients refused (replica-read-only), no lazy or active expiry.
func (e *Engine) SetReplica(on bool) { e.replica.Store(on) }

// SetMasterLinkUp records whether a replica's link to its master is up
// (synchronized and streaming): with replica-serve-stale-data no, a
// replica whose link is down refuses most commands (MASTERDOWN).
func (e *Engine) SetMasterLinkUp(up bool) { e.linkUp.Store(up) }

// ErrMasterDown is Redis 7.0's reply of a stale replica.
const ErrMasterDown = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."

// staleRefused reports whether a command of these flags must be refused because the engine
// is a replica without its master and replica-serve-stale-data is no.
func (e *Engine) staleRefused(flags Flag) bool {
	return flags&FlagStale == 0 && e.StaleReplica()
}

// StaleReplica reports whether the engine is a replica without its master
// that must not serve stale data (replica-serve-stale-data no).
func (e *Engine) StaleReplica() bool {
	return e.replica.Load() && !e.linkUp.Load() && !e.Config.Bool("replica-serve-stale-data")
}

// IsReplica reports whether the engine is a replica.
func (e *Engine) IsReplica() bool { return e.replica.Load() }

// readonlyRefused reports whether a command of these flags must be refused for cl because the
// engine is a read-only replica.
func (e *Engine) readonlyRefused(cl *Client, flags Flag) bool {
	return e.replica.Load() && flags&FlagWrite != 0 && cl.Kind != KindMaster && cl.Kind != "aof" &&
		e.Config.Bool("replica-read-only")
}

func registerReplication(t *Table) {
	replicaof := func(c *Ctx) {
		r := c.E.Replication
		if r == nil {
			c.W.Error("ERR replication is not available in this Ordo")
			return
		}
		if f, ok := r.(interface{ FailingOver() bool }); ok && f.FailingOver() {
			c.W.Error("ERR REPLICAOF not allowed while failing over.")
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
	// FAILOVER (internal/repl's failover.go).
	t.register("failover", func(c *Ctx) {
		if f, ok := c.E.Replication.(interface{ Failover(*Ctx) }); ok {
			f.Failover(c)
			return
		}
		c.W.Error("ERR replication is not available in this Ordo")
	})
	t.register("slaveof", replicaof)
	sync := func(c *Ctx) {
		if r := c.E.Replication; r != nil {
			r.Sync(c)
			return
		}
		c.W.Error("ERR replication is not available in this Ordo")
	}
	t.register("sync", sync)
	t.register("psync", sync)
	t.register("replconf", func(c *Ctx) {
		if len(c.Args)%2 == 0 {
			c.W.Error(ErrSyntax)
			return
		}
		if r := c.E.Replication; r != nil {
			r.ReplConf(c)
			return
		}
		c.W.OK()
	})
}

// Dataset is a set of databases loaded outside the engine lock (a
// replica's full sync), to be swapped in whole by SwapDataset.
type Dataset struct {
	dbs   []*DB
	Stats RDBStats
	// Aux holds the file's aux fields (a master's repl-stream-db: the
	// database its stream goes on in).
	Aux map[string]string
	// Functions is the code of the file's function libraries.
	Functions [][]byte
	// State is the file's AuxState (the commands recreating an Ordo
	// master's FT.* definitions and the like); HasState tells whether
	// the file had one (a file from redis-server has not).
	State    string
	HasState bool
}

// LoadDataset reads a whole RDB file from r into a new dataset; it does
// not take the lock and the engine keeps serving its current data. With
// keepExpired (a replica loading its master's file) keys already expired
// are kept, to be deleted by the master's DELs, as Redis's replicas do.
// As ReadFile, it consumes exactly the file from an io.ByteReader.
func (e *Engine) LoadDataset(r io.Reader, keepExpired bool) (*Dataset, error) {
	ds := &Dataset{dbs: make([]*DB, len(e.dbs)), Aux: map[string]string{}}
	for i := range ds.dbs {
		ds.dbs[i] = newDB(e, i)
	}
	now := NowMs()
	_, err := rdb.ReadFile(r, rdb.Handler{
		Aux: func(k, v []byte) error {
			switch string(k) {
			case AuxJSON:
				loaded, err := e.loadJSONAux(ds.dbs, v, now, keepExpired)
				if loaded {
					ds.Stats.Keys++
				} else if err == nil {
					ds.Stats.Skipped++
				}
				return err
			case AuxState:
				ds.State += string(v)
				ds.HasState = true
				return nil
			}
			ds.Aux[string(k)] = string(v)
			return nil
		},
		Function: func(code []byte) error {
			ds.Stats.Functions++
			ds.Functions = append(ds.Functions, bytes.Clone(code))
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
			if !keepExpired && en.ExpireAt != -1 && en.ExpireAt < now {
				ds.Stats.Skipped++
				return nil
			}
			if !ds.dbs[en.DB].load(view(en.Key), fromRDB(e, en.Value), en.ExpireAt) {
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
// FLUSHALL, then a "loaded" event per key. ds must not be used
// afterwards.
func (e *Engine) SwapDataset(ds *Dataset) {
	for i, db := range e.dbs {
		n := ds.dbs[i]
		db.touchWatchedExisting(n, NowMs())
		db.keys, n.keys = n.keys, db.keys
		db.expires, n.expires = n.expires, db.expires
		db.used, n.used = n.used, db.used
		db.expireCursor = 0
		n.Flush()
		if len(e.observers) > 0 {
			e.notify(KeyEvent{DB: db.ID, Event: "flushdb"})
			// Then every loaded key, so that engine-maintained indexes
			// follow the new data ("loaded" is no keyspace notification).
			db.keys.Each(func(k string, _ Value) bool {
				e.notify(KeyEvent{DB: db.ID, Key: k, Event: "loaded"})
				return true
			})
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
