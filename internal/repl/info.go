package repl

import (
	"fmt"
	"strings"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// Role implements engine.Replication (ROLE): a master without replicas,
// or Redis 7.0's replica reply [slave, host, port, state, offset].
func (r *Replica) Role(w *resp.Writer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.host == "" {
		w.Array(3)
		w.BulkString("master")
		w.Int(r.offset.Load())
		w.Array(0)
		return
	}
	w.Array(5)
	w.BulkString("slave")
	w.BulkString(r.host)
	w.Int(int64(r.port))
	w.BulkString(r.state)
	if r.linkUp {
		w.Int(r.offset.Load())
	} else {
		w.Int(-1)
	}
}

// InfoReplication implements engine.Replication (INFO replication), with
// Redis 7.0's fields in its order.
func (r *Replica) InfoReplication() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	kv := func(k string, v any) { fmt.Fprintf(&b, "%s:%v\r\n", k, v) }
	now := time.Now()
	off := r.offset.Load()
	if r.host == "" {
		kv("role", "master")
	} else {
		kv("role", "slave")
		kv("master_host", r.host)
		kv("master_port", r.port)
		link := "down"
		if r.linkUp {
			link = "up"
		}
		kv("master_link_status", link)
		lastIO := int64(-1)
		if r.linkUp {
			lastIO = (now.UnixMilli() - r.lastIO.Load()) / 1000
		}
		kv("master_last_io_seconds_ago", lastIO)
		inSync := 0
		if r.state == stateSync {
			inSync = 1
		}
		kv("master_sync_in_progress", inSync)
		readOff, applied := int64(1), int64(1)
		if r.synced {
			readOff, applied = r.readOffset.Load(), off
		}
		kv("slave_read_repl_offset", readOff)
		kv("slave_repl_offset", applied)
		if r.state == stateSync {
			read := r.syncRead.Load()
			perc := 0.0
			if r.syncTotal > 0 {
				perc = float64(read) / float64(r.syncTotal) * 100
			}
			kv("master_sync_total_bytes", r.syncTotal)
			kv("master_sync_read_bytes", read)
			kv("master_sync_left_bytes", r.syncTotal-read)
			kv("master_sync_perc", fmt.Sprintf("%.2f", perc))
			kv("master_sync_last_io_seconds_ago", (now.UnixMilli()-r.lastIO.Load())/1000)
		}
		if !r.linkUp {
			down := int64(-1)
			if !r.downSince.IsZero() {
				down = int64(now.Sub(r.downSince) / time.Second)
			}
			kv("master_link_down_since_seconds", down)
		}
		kv("slave_priority", r.e.Config.Get("replica-priority"))
		ro := 0
		if r.e.Config.Bool("replica-read-only") {
			ro = 1
		}
		kv("slave_read_only", ro)
		kv("replica_announced", 1)
	}
	kv("connected_slaves", 0)
	kv("master_failover_state", "no-failover")
	kv("master_replid", r.replid)
	kv("master_replid2", r.replid2)
	kv("master_repl_offset", off)
	kv("second_repl_offset", r.secondOffset)
	// Ordo keeps no backlog yet: it does not serve replicas.
	kv("repl_backlog_active", 0)
	kv("repl_backlog_size", r.e.Config.Get("repl-backlog-size"))
	kv("repl_backlog_first_byte_offset", 0)
	kv("repl_backlog_histlen", 0)
	return b.String()
}
