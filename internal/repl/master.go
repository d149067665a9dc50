package repl

// The master side: SYNC/PSYNC from redis-server 7.0 replicas (or Ordo
// replicas), a backlog of repl-backlog-size bytes fed from the engine's
// propagation stream (the AOF's), full sync with an RDB written under
// the engine lock into memory and sent as "$<len>\r\n<file>" or, diskless
// (repl-diskless-sync, after repl-diskless-sync-delay), as
// "$EOF:<mark>\r\n<file><mark>", then the stream read from the backlog;
// REPLCONF listening-port/capa/ack, WAIT, min-replicas-to-write,
// client-output-buffer-limit's replica class, INFO replication's slaveN
// lines and ROLE.

import (
	"bytes"
	"errors"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// backlog is the ring of the last bytes of the replication stream: the
// byte of offset o (counting from 1) is at buf[(o-1)%len(buf)].
type backlog struct {
	buf     []byte
	histlen int64
}

// add appends p, whose first byte has offset first.
func (b *backlog) add(first int64, p []byte) {
	size := int64(len(b.buf))
	if int64(len(p)) > size {
		first += int64(len(p)) - size
		p = p[int64(len(p))-size:]
	}
	for len(p) > 0 {
		i := (first - 1) % size
		n := copy(b.buf[i:], p)
		p = p[n:]
		first += int64(n)
	}
}

// read appends the bytes of offsets from..to (inclusive) to dst.
func (b *backlog) read(dst []byte, from, to int64) []byte {
	size := int64(len(b.buf))
	for from <= to {
		i := (from - 1) % size
		n := min(to-from+1, size-i)
		dst = append(dst, b.buf[i:i+n]...)
		from += n
	}
	return dst
}

// link is one replica connected to this master (or a client that sent
// REPLCONF and may become one).
type link struct {
	id         int64
	addr       string // the connection's remote address
	ip         string // REPLCONF ip-address, if sent
	port       int
	capaPsync2 bool
	capaEOF    bool      // can read a diskless transfer ($EOF:<mark>)
	psync      bool      // asked with PSYNC (not SYNC): +FULLRESYNC is due
	online     bool      // past the full sync's RDB
	kicked     bool      // to be closed: our role or history changed
	waitAck    bool      // after a diskless transfer: stream from the first ACK
	file       *syncFile // full sync's file, until sent
	disklessAt time.Time // diskless full sync deferred until then (repl-diskless-sync-delay)
	deferred   bool      // the full sync's snapshot is taken by ServeReplica, in slices
	// pend is the stream not yet handed to the connection (collecting):
	// since the snapshot's offset while the snapshot is taken and sent
	// (snapshot.go), then for as long as the link lives: the replica's
	// output buffer, as Redis keeps one, so a busy master never runs past
	// its backlog while a replica catches up.
	pend       []byte
	collecting bool
	sent       int64     // last offset handed to the connection
	written    int64     // last offset the connection took (sent - written: the output buffer)
	softSince  time.Time // since when the output buffer is over the soft limit
	conn       net.Conn
	ack        int64 // last offset acknowledged
	ackTime    time.Time
	notify     chan struct{}
	closed     bool
}

// feed is engine.Propagate's extension: it appends a change to the
// backlog and wakes the replicas. It runs under the engine lock.
func (r *Replica) feed(db int, args [][]byte) {
	if !r.feeding.Load() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.backlog == nil || r.host != "" {
		return
	}
	b := r.feedBuf[:0]
	if db >= 0 && db != r.seldb {
		b = resp.AppendCommand(b, "SELECT", strconv.Itoa(db))
		r.seldb = db
	}
	b = resp.AppendCommandBytes(b, args)
	if cap(b) <= 64<<10 {
		r.feedBuf = b
	}
	off := r.offset.Load()
	r.backlog.add(off+1, b)
	r.backlog.histlen = min(r.backlog.histlen+int64(len(b)), int64(len(r.backlog.buf)))
	r.offset.Store(off + int64(len(b)))
	r.collectLocked(b)
	r.notifyLinksLocked()
	r.checkOutputLimitsLocked()
}

// collectLocked keeps b, just added to the stream, for the links whose
// snapshot is being taken or sent (their output buffer); r.mu is held.
func (r *Replica) collectLocked(b []byte) {
	for _, l := range r.links {
		if l.collecting {
			l.pend = append(l.pend, b...)
		}
	}
}

// checkOutputLimitsLocked closes the links of replicas whose output
// buffer (the stream not yet taken by their connection) is over
// client-output-buffer-limit's replica class: at once over the hard
// limit, after the given seconds over the soft one, as Redis's
// checkClientOutputBufferLimits. r.mu is held.
func (r *Replica) checkOutputLimitsLocked() {
	if len(r.links) == 0 {
		return
	}
	hard, soft, secs := r.replicaLimits()
	if hard == 0 && soft == 0 {
		return
	}
	off := r.offset.Load()
	now := time.Now()
	for _, l := range r.links {
		if l.conn == nil || l.kicked {
			continue
		}
		pending := off - l.written
		over := hard > 0 && pending >= hard
		if soft > 0 && pending >= soft {
			if l.softSince.IsZero() {
				l.softSince = now
			} else if now.Sub(l.softSince) >= time.Duration(secs)*time.Second {
				over = true
			}
		} else {
			l.softSince = time.Time{}
		}
		if over {
			r.logf("Client id=%d addr=%s (replica) scheduled to be closed ASAP for overcoming of output buffer limits.", l.id, l.addr)
			l.kicked = true
			l.conn.Close()
		}
	}
}

// replicaLimits parses client-output-buffer-limit's replica (slave) class.
func (r *Replica) replicaLimits() (hard, soft, secs int64) {
	v := r.e.Config.Get("client-output-buffer-limit")
	if v == r.limitsSrc {
		return r.limits[0], r.limits[1], r.limits[2]
	}
	f := strings.Fields(v)
	for i := 0; i+3 < len(f); i += 4 {
		if strings.EqualFold(f[i], "replica") || strings.EqualFold(f[i], "slave") {
			hard, _ = engine.ParseMemory(f[i+1])
			soft, _ = engine.ParseMemory(f[i+2])
			secs, _ = strconv.ParseInt(f[i+3], 10, 64)
		}
	}
	r.limitsSrc, r.limits = v, [3]int64{hard, soft, secs}
	return hard, soft, secs
}

// notifyLinksLocked wakes every replica link; r.mu is held.
func (r *Replica) notifyLinksLocked() {
	for _, l := range r.links {
		select {
		case l.notify <- struct{}{}:
		default:
		}
	}
}

// kickLinksLocked closes every replica link (they reconnect and resync);
// r.mu is held.
func (r *Replica) kickLinksLocked() {
	for _, l := range r.links {
		l.kicked = true
	}
	r.notifyLinksLocked()
}

// ensureBacklogLocked creates the backlog if there is none: empty, it
// starts after the current offset. r.mu is held.
func (r *Replica) ensureBacklogLocked() {
	if r.backlog == nil {
		r.backlog = &backlog{buf: make([]byte, max(r.e.Config.Int("repl-backlog-size"), 16*1024))}
	}
}

// ensurePinger starts the goroutine that pings replicas and sends
// GETACKs for WAIT; r.mu is held.
func (r *Replica) ensurePinger() {
	if r.stopPing == nil && !r.closed {
		r.stopPing = make(chan struct{})
		go r.pinger(r.stopPing)
	}
}

// attachFeed chains feed after the engine's Propagate (the AOF's). The
// engine lock is held.
func (r *Replica) attachFeed() {
	prev := r.e.Propagate
	r.e.Propagate = func(db int, args [][]byte) {
		if prev != nil {
			prev(db, args)
		}
		r.feed(db, args)
	}
}

// pinger feeds PING every repl-ping-replica-period while replicas are
// connected, so that they see the link alive.
func (r *Replica) pinger(stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-stop:
			return
		case <-r.ackReq:
			r.e.Lock()
			if r.FailingOver() {
				// The offset stands still for FAILOVER (as Redis, no
				// GETACK while clients are paused).
				r.e.Unlock()
				continue
			}
			r.feed(-1, [][]byte{[]byte("REPLCONF"), []byte("GETACK"), []byte("*")})
			r.e.Unlock()
			continue
		case <-t.C:
		}
		period := time.Duration(r.e.Config.Int("repl-ping-replica-period")) * time.Second
		if time.Since(last) < period {
			continue
		}
		last = time.Now()
		r.mu.Lock()
		n := len(r.links)
		r.mu.Unlock()
		if n == 0 {
			continue
		}
		r.e.Lock()
		if !r.FailingOver() { // the offset stands still for FAILOVER
			r.feed(-1, [][]byte{[]byte("PING")})
		}
		r.e.Unlock()
	}
}

// linkFor returns the link of a client, creating it.
func (r *Replica) linkFor(cl *engine.Client) *link {
	if l := r.links[cl.ID]; l != nil {
		return l
	}
	if r.pre == nil {
		r.pre = map[int64]*link{}
	}
	if len(r.pre) >= 16 {
		// Forget clients that sent REPLCONF and left without PSYNC.
		live := map[int64]bool{}
		for _, c := range r.e.Clients() {
			live[c.ID] = true
		}
		for id := range r.pre {
			if !live[id] {
				delete(r.pre, id)
			}
		}
	}
	l := r.pre[cl.ID]
	if l == nil {
		l = &link{id: cl.ID, addr: cl.Addr, notify: make(chan struct{}, 1)}
		r.pre[cl.ID] = l
	}
	return l
}

// ReplConf implements engine.Replication (REPLCONF).
func (r *Replica) ReplConf(c *engine.Ctx) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.linkFor(c.Client)
	for i := 1; i+1 < len(c.Args); i += 2 {
		opt, val := strings.ToLower(string(c.Args[i])), string(c.Args[i+1])
		switch opt {
		case "listening-port":
			p, err := strconv.Atoi(val)
			if err != nil {
				c.W.Error("ERR value is not an integer or out of range")
				return
			}
			l.port = p
		case "ip-address":
			l.ip = val
		case "capa":
			if strings.EqualFold(val, "psync2") {
				l.capaPsync2 = true
			}
			if strings.EqualFold(val, "eof") {
				l.capaEOF = true
			}
		case "ack", "getack", "rdb-only", "rdb-filter-only":
			// ACKs arrive on replica links (ServeReplica), not here.
		default:
			c.W.Error("ERR Unrecognized REPLCONF option: " + string(c.Args[i]))
			return
		}
	}
	c.W.OK()
}

// Sync implements engine.Replication (SYNC, PSYNC). A replica whose
// link is up serves its own replicas (chained replication) with its
// master's replication ID and offsets, from the backlog it fills with
// the master's stream.
func (r *Replica) Sync(c *engine.Ctx) {
	psync := strings.EqualFold(string(c.Args[0]), "psync")
	if psync && len(c.Args) < 3 {
		c.W.Error("ERR wrong number of arguments for 'psync' command")
		return
	}
	// PSYNC <replid> <offset> FAILOVER: our master hands over (failover.go).
	if psync && len(c.Args) > 3 && c.ArgIs(3, "failover") && !r.psyncFailover(c) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failoverState() != foNone {
		c.W.Error("NOMASTERLINK Can't SYNC while failing over")
		return
	}
	if r.host != "" && (!r.linkUp || r.backlog == nil) {
		c.W.Error("NOMASTERLINK Can't SYNC while not connected with my master")
		return
	}
	l := r.linkFor(c.Client)
	delete(r.pre, c.Client.ID)
	if r.links == nil {
		r.links = map[int64]*link{}
	}
	off := r.offset.Load()
	if psync && r.backlog != nil {
		id := string(c.Args[1])
		want, err := strconv.ParseInt(string(c.Args[2]), 10, 64)
		first := off - r.backlog.histlen + 1
		if err == nil && (id == r.replid || (id == r.replid2 && want <= r.secondOffset)) &&
			want >= first && want <= off+1 {
			l.online, l.sent, l.written = true, want-1, want-1
			r.links[l.id] = l
			r.syncPartialOK++
			if l.capaPsync2 {
				c.W.Simple("CONTINUE " + r.replid)
			} else {
				c.W.Simple("CONTINUE")
			}
			c.Client.SetReplicaLink()
			r.logf("Partial resynchronization request from %s accepted. Sending %d bytes of backlog starting from offset %d.", l.addr, off+1-want, want)
			return
		}
		if id != "?" {
			r.syncPartialErr++
		}
	}
	if r.backlog == nil {
		// A backlog created from scratch starts a new history (Redis's
		// syncCommand).
		r.ensureBacklogLocked()
		r.feeding.Store(true)
		r.replid, r.replid2, r.secondOffset = newID(), strings.Repeat("0", 40), -1
	}
	if r.host == "" {
		r.ensurePinger()
	}
	if delay := r.e.Config.Int("repl-diskless-sync-delay"); r.e.Config.Bool("repl-diskless-sync") && l.capaEOF && delay > 0 {
		// As Redis, the transfer starts after the delay (other replicas
		// may come meanwhile); the replica gets newlines until then, and
		// +FULLRESYNC with the offset the file is taken at.
		l.disklessAt = time.Now().Add(time.Duration(delay) * time.Second)
		l.psync = psync
		r.links[l.id] = l
		r.syncFull++
		c.Client.SetReplicaLink()
		return
	}
	l.psync = psync
	// The snapshot is taken in slices once the command returns
	// (snapshot.go); +FULLRESYNC comes with its offset. A replica of
	// ours (chained) tracks its master's stream for it (sync.go).
	l.deferred = true
	r.links[l.id] = l
	r.syncFull++
	c.Client.SetReplicaLink()
}

var (
	errLagging   = errors.New("the replica fell behind the replication backlog")
	errStaleLink = errors.New("this server's role or replication history changed")
)

// ServeReplica serves a replica's connection after SYNC/PSYNC until it
// ends: the full sync's RDB, then the stream; REPLCONF ACKs are read.
func (r *Replica) ServeReplica(cl *engine.Client, conn net.Conn, rd *resp.Reader) {
	r.mu.Lock()
	l := r.links[cl.ID]
	r.mu.Unlock()
	if l == nil {
		return
	}
	defer func() {
		r.mu.Lock()
		l.closed = true
		delete(r.links, cl.ID)
		r.mu.Unlock()
		conn.Close()
	}()
	gone := make(chan struct{}) // the reader saw the connection end
	go func() {
		defer close(gone)
		defer conn.Close()
		for {
			conn.SetReadDeadline(time.Time{})
			args, err := rd.ReadCommand()
			if err != nil {
				return
			}
			if len(args) >= 3 && engine.EqualFold(args[0], "replconf") && engine.EqualFold(args[1], "ack") {
				n, err := strconv.ParseInt(string(args[2]), 10, 64)
				if err != nil {
					continue
				}
				r.e.Lock()
				r.mu.Lock()
				l.ack, l.ackTime = max(l.ack, n), time.Now()
				select {
				case l.notify <- struct{}{}: // waitAck
				default:
				}
				r.mu.Unlock()
				r.e.WakeAckWaiters()
				r.e.Unlock()
			}
		}
	}()
	r.mu.Lock()
	at := l.disklessAt
	deferred := l.deferred
	l.conn = conn
	r.mu.Unlock()
	diskless := !at.IsZero()
	if deferred && at.IsZero() {
		reply, _, err := r.slicedFullSync(l, l.psync)
		if err != nil {
			r.logf("Closing the link of replica %s: %v", l.addr, err)
			return
		}
		conn.SetWriteDeadline(time.Time{})
		if _, err := conn.Write([]byte(reply)); err != nil {
			return
		}
	}
	if diskless {
		// repl-diskless-sync-delay: newlines keep the link alive.
		for time.Now().Before(at) {
			select {
			case <-gone:
				return
			case <-r.closedCh:
				return
			case <-time.After(min(time.Second, time.Until(at))):
			}
			conn.SetWriteDeadline(time.Now().Add(time.Duration(r.e.Config.Int("repl-timeout")) * time.Second))
			if _, err := conn.Write([]byte("\n")); err != nil {
				return
			}
		}
		s, _, err := r.slicedFullSync(l, l.psync)
		reply := []byte(s)
		if err != nil {
			r.logf("Closing the link of replica %s: %v", l.addr, err)
			return
		}
		conn.SetWriteDeadline(time.Time{})
		if _, err := conn.Write(reply); err != nil {
			return
		}
	}
	r.mu.Lock()
	file := l.file
	l.file = nil
	r.mu.Unlock()
	if file != nil {
		conn.SetWriteDeadline(time.Time{})
		var size int64
		if diskless = diskless || (r.e.Config.Bool("repl-diskless-sync") && l.capaEOF); diskless {
			// The diskless form: "$EOF:<40 random bytes>", the file, the
			// same 40 bytes.
			mark := []byte(newID())
			if _, err := conn.Write(append(append([]byte("$EOF:"), mark...), '\r', '\n')); err != nil {
				return
			}
			var err error
			if size, err = file.writeTo(conn); err != nil {
				return
			}
			if _, err := conn.Write(mark); err != nil {
				return
			}
		} else {
			var buf bytes.Buffer
			if _, err := file.writeTo(&buf); err != nil {
				r.logf("Closing the link of replica %s: %v", l.addr, err)
				return
			}
			size = int64(buf.Len())
			if _, err := conn.Write([]byte("$" + strconv.Itoa(buf.Len()) + "\r\n")); err != nil {
				return
			}
			if _, err := buf.WriteTo(conn); err != nil {
				return
			}
		}
		r.logf("Sent %d bytes of RDB to replica %s", size, l.addr)
		r.logf("Synchronization with replica %s succeeded", l.addr)
		if diskless {
			// As Redis, the stream waits for the replica's first ACK: a
			// replica reading a diskless transfer looks for the end mark
			// at the end of what it reads, so nothing may follow it yet.
			r.mu.Lock()
			l.waitAck = true
			r.mu.Unlock()
		}
	}
	r.mu.Lock()
	l.online = true
	r.mu.Unlock()
	var buf []byte
	for {
		r.mu.Lock()
		off := r.offset.Load()
		var err error
		buf = buf[:0]
		if r.backlog == nil || l.kicked {
			err = errors.New("this server's role or replication history changed")
		} else if l.waitAck && l.ackTime.IsZero() {
			// Not online until the first ACK.
		} else if l.collecting {
			// The link's output buffer: the stream since the snapshot
			// or since the backlog was caught up. (The two buffers swap:
			// feed appends to one while the other is written.)
			if cap(buf) > 4<<20 {
				buf = nil // a burst's buffer is not kept
			}
			buf, l.pend = l.pend, buf
			l.sent += int64(len(buf))
		} else if l.sent < off {
			// A partial resync starts from the backlog; from then on
			// the stream is kept for the link as it is fed, as Redis
			// copies it into each replica's output buffer, so a replica
			// slower than the master for a while is bounded by
			// client-output-buffer-limit, not by repl-backlog-size.
			if l.sent+1 < off-r.backlog.histlen+1 {
				err = errLagging
			} else {
				buf = r.backlog.read(buf, l.sent+1, off)
				l.sent = off
				l.collecting = true
			}
		}
		r.mu.Unlock()
		if err != nil {
			r.logf("Closing the link of replica %s: %v", l.addr, err)
			return
		}
		if len(buf) > 0 {
			// In slices, so that the bytes still to write (the replica's
			// output buffer, which client-output-buffer-limit bounds) are
			// known as they go.
			for p := buf; len(p) > 0; {
				n := min(len(p), 1<<20)
				conn.SetWriteDeadline(time.Now().Add(time.Duration(r.e.Config.Int("repl-timeout")) * time.Second))
				if _, err := conn.Write(p[:n]); err != nil {
					return
				}
				p = p[n:]
				r.mu.Lock()
				l.written = l.sent - int64(len(p))
				r.mu.Unlock()
			}
			continue
		}
		select {
		case <-l.notify:
		case <-gone:
			return
		case <-r.closedCh:
			return
		}
	}
}

// Offset implements engine.Replication.
func (r *Replica) Offset() int64 { return r.offset.Load() }

// Acked implements engine.Replication.
func (r *Replica) Acked(offset int64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, l := range r.links {
		if l.online && l.ack >= offset {
			n++
		}
	}
	return n
}

// RequestAck implements engine.Replication: REPLCONF GETACK * in the
// stream (it counts in the offset, as Redis's). As Redis's beforeSleep,
// it is sent after the command (WAIT) returns, so that it is not the
// calling client's write. The engine lock is held.
func (r *Replica) RequestAck() {
	select {
	case r.ackReq <- struct{}{}:
	default:
	}
}

// SyncStats implements engine.Replication.
func (r *Replica) SyncStats() (full, partialOK, partialErr int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.syncFull, r.syncPartialOK, r.syncPartialErr
}

// GoodReplicas implements engine.Replication (min-replicas-to-write):
// online replicas whose last REPLCONF ACK is at most maxLag seconds old,
// as Redis's refreshGoodSlavesCount (whole seconds).
func (r *Replica) GoodReplicas(maxLag int64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now().Unix()
	n := 0
	for _, l := range r.links {
		if l.online && !l.ackTime.IsZero() && now-l.ackTime.Unix() <= maxLag {
			n++
		}
	}
	return n
}
