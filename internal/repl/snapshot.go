package repl

// A full sync's RDB without holding the engine lock for the whole file:
// the engine's point-in-time snapshot (engine.Snapshot, which BGSAVE
// uses too). Under the lock, once, the snapshot begins and the
// replication offset is read: the file is the dataset at that offset.
// The snapshot is then serialized in slices (a few hundred keys per lock
// acquisition; a key changed meanwhile is serialized just before its
// first change), and the stream since the offset is kept for the link
// (link.pend, its output buffer, bounded by client-output-buffer-limit's
// replica class as in Redis) until the file is sent.

import (
	"io"
	"strconv"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
)

// slicedFullSync prepares l's full sync (l.file, l.sent) from a snapshot
// taken in slices, and returns the +FULLRESYNC reply when psync; it takes
// the engine lock itself. It reports the longest lock hold.
func (r *Replica) slicedFullSync(l *link, psync bool) (reply string, longest time.Duration, err error) {
	e := r.e
	e.Lock()
	t0 := time.Now()
	r.mu.Lock()
	if l.kicked || r.backlog == nil {
		r.mu.Unlock()
		e.Unlock()
		return "", 0, errStaleLink
	}
	off, replid := r.offset.Load(), r.replid
	snap := e.BeginSnapshot()
	state := e.StateAux() // FT definitions etc. at the snapshot's instant
	// As prepareFullSync: a replica forwards its master's stream byte
	// for byte, which goes on in the database it is in.
	streamDB := 0
	if r.host != "" {
		streamDB = r.dbSel
	} else {
		r.seldb = -1 // our stream goes on with a SELECT
	}
	l.sent, l.written = off, off
	l.pend, l.collecting = nil, true
	r.mu.Unlock()
	begin := time.Since(t0)
	e.Unlock()

	snap.Walk()
	longest = max(begin, snap.LongestHold())
	aux := []string{"repl-stream-db", strconv.Itoa(streamDB), "repl-id", replid,
		"repl-offset", strconv.FormatInt(off, 10), engine.AuxState, state}
	r.mu.Lock()
	defer r.mu.Unlock()
	if l.kicked || r.backlog == nil {
		return "", longest, errStaleLink
	}
	l.file = &syncFile{snap: snap, aux: aux}
	if psync {
		reply = "+FULLRESYNC " + replid + " " + strconv.FormatInt(off, 10) + "\r\n"
	}
	r.logf("Replica %s asks for synchronization; full resync at offset %d (longest lock hold %v)",
		l.addr, off, longest.Round(time.Microsecond))
	return reply, longest, nil
}

// syncFile is a full sync's RDB file, serialized (engine.Snapshot) but
// not yet assembled: a diskless transfer writes it to the socket as it
// is assembled (Redis's forked child writes to the socket as it
// serializes), so the master never holds the file twice; the disk-based
// form needs its length first and assembles it in memory.
type syncFile struct {
	snap *engine.Snapshot
	aux  []string
}

// writeTo writes the file to w and returns its size.
func (f *syncFile) writeTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	_, err := f.snap.WriteRDB(cw, f.aux...)
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
