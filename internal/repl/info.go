package repl

import (
	"fmt"
	"net"
	"sort"
	"strconv"
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
		ls := r.sortedLinks()
		n := 0
		for _, l := range ls {
			if l.online {
				n++
			}
		}
		w.Array(n)
		for _, l := range ls {
			if l.online {
				w.Array(3)
				w.BulkString(l.host())
				w.BulkString(strconv.Itoa(l.port))
				w.BulkString(strconv.FormatInt(l.ack, 10))
			}
		}
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
	ls := r.sortedLinks()
	kv("connected_slaves", len(ls))
	for i, l := range ls {
		state := "send_bulk"
		if l.online {
			state = "online"
		}
		lag := int64(0)
		if !l.ackTime.IsZero() {
			lag = int64(now.Sub(l.ackTime) / time.Second)
		}
		kv("slave"+strconv.Itoa(i), fmt.Sprintf("ip=%s,port=%d,state=%s,offset=%d,lag=%d", l.host(), l.port, state, l.ack, lag))
	}
	kv("master_failover_state", r.failoverState())
	kv("master_replid", r.replid)
	kv("master_replid2", r.replid2)
	kv("master_repl_offset", off)
	kv("second_repl_offset", r.secondOffset)
	// A replica keeps no backlog (it does not serve replicas of its own).
	if b := r.backlog; b != nil {
		kv("repl_backlog_active", 1)
		kv("repl_backlog_size", len(b.buf))
		kv("repl_backlog_first_byte_offset", off-b.histlen+1)
		kv("repl_backlog_histlen", b.histlen)
	} else {
		kv("repl_backlog_active", 0)
		kv("repl_backlog_size", r.e.Config.Get("repl-backlog-size"))
		kv("repl_backlog_first_byte_offset", 0)
		kv("repl_backlog_histlen", 0)
	}
	return b.String()
}

// sortedLinks returns the replicas by connection order; r.mu is held.
func (r *Replica) sortedLinks() []*link {
	ls := make([]*link, 0, len(r.links))
	for _, l := range r.links {
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].id < ls[j].id })
	return ls
}

// host is the replica's address as INFO and ROLE show it.
func (l *link) host() string {
	if l.ip != "" {
		return l.ip
	}
	if h, _, err := net.SplitHostPort(l.addr); err == nil {
		return h
	}
	return l.addr
}
