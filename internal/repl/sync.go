package repl

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// eofMarkLen is the length of the diskless transfer's end mark.
const eofMarkLen = 40

// fullSync reads the master's RDB after +FULLRESYNC: "$<len>\r\n" and
// the file (disk-based), or "$EOF:<mark>\r\n", the file and the mark
// (diskless), possibly preceded by newlines the master sends to keep
// the link alive while it prepares the file. The file is loaded into a
// fresh dataset while the old one is served, then swapped in.
func (r *Replica) fullSync(gen int64, br *bufio.Reader, id string, off int64) error {
	var line string
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimRight(l, "\r\n")
		if line != "" {
			break
		}
	}
	if strings.HasPrefix(line, "-") {
		return fmt.Errorf("MASTER aborted replication with an error: %s", line[1:])
	}
	if !strings.HasPrefix(line, "$") {
		return fmt.Errorf("bad protocol from MASTER, the first byte is not '$' (we received '%s'), are you sure the host and port are right?", line)
	}
	var mark []byte
	size := int64(-1)
	if rest, ok := strings.CutPrefix(line, "$EOF:"); ok {
		if len(rest) != eofMarkLen {
			return fmt.Errorf("bad EOF mark from MASTER: %q", line)
		}
		mark = []byte(rest)
	} else {
		n, err := strconv.ParseInt(line[1:], 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("bad RDB length from MASTER: %q", line)
		}
		size = n
	}
	r.mu.Lock()
	r.syncTotal, r.syncStart = size, time.Now()
	r.mu.Unlock()
	r.syncRead.Store(0)
	if size >= 0 {
		r.logf("MASTER <-> REPLICA sync: receiving %d bytes from master to disk", size)
	} else {
		r.logf("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to parser")
	}

	src := &countingSource{r: br, n: &r.syncRead}
	// Without the log, the file received becomes dir/dbfilename, as
	// redis-server's replica loads it from disk (repl-diskless-load
	// disabled) and keeps it: a restart with appendonly no loads it. The
	// bytes are copied as they are read; no second serialization, no lock.
	var keep *dumpFile
	if p := r.e.Persistence; p != nil {
		if lg, ok := p.(interface{ Logging() bool }); ok && !lg.Logging() {
			var err error
			if keep, err = newDumpFile(r.e); err != nil {
				r.logf("MASTER <-> REPLICA sync: not keeping the RDB file: %v", err)
			} else {
				defer keep.abort()
				src.tee = keep.w
			}
		}
	}
	var ds *engine.Dataset
	var err error
	if size >= 0 {
		lim := bufio.NewReaderSize(io.LimitReader(src, size), 64<<10)
		ds, err = r.e.LoadDataset(lim, true)
		if err == nil {
			// Anything after the file's checksum, up to the announced
			// length, is not part of the stream.
			_, err = io.Copy(io.Discard, lim)
		}
	} else {
		ds, err = r.e.LoadDataset(src, true)
		if err == nil {
			got := make([]byte, eofMarkLen)
			if _, err = io.ReadFull(br, got); err == nil && !bytes.Equal(got, mark) {
				err = errors.New("the diskless RDB transfer did not end with the EOF mark")
			}
		}
	}
	if err != nil {
		return fmt.Errorf("failed trying to load the MASTER synchronization DB: %w", err)
	}
	r.logf("MASTER <-> REPLICA sync: Loading DB in memory (%d keys)", ds.Stats.Keys)
	if keep != nil {
		if err := keep.commit(); err != nil {
			r.logf("MASTER <-> REPLICA sync: keeping the RDB file failed: %v", err)
		}
	}

	e := r.e
	streamDB := 0
	if n, err := strconv.Atoi(ds.Aux["repl-stream-db"]); err == nil && n >= 0 && n < len(e.DBs()) {
		streamDB = n // the master's stream goes on in that database
	}
	cl := e.NewClient(engine.KindMaster) // applies the file's state
	cl.Authenticated = true
	defer e.RemoveClient(cl)
	// With the log on, a rewrite running now writes the old data set: it
	// is stopped before the swap (as Redis kills its rewrite child), and
	// one started meanwhile too.
	var lr logRestarter
	if p := e.Persistence; p != nil && keep == nil {
		lr, _ = p.(logRestarter)
	}
	for {
		if lr != nil {
			lr.StopRewrite()
		}
		e.Lock()
		if r.stale(gen) {
			e.Unlock()
			ds.Discard()
			return errStale
		}
		if lr == nil || !lr.RewriteRunning() {
			break
		}
		e.Unlock()
	}
	functions, state, hasState := ds.Functions, ds.State, ds.HasState
	e.SwapDataset(ds)
	r.applyState(cl, functions, state, hasState)
	if p := e.Persistence; p != nil && keep == nil {
		// The swap bypassed the log: make the new dataset durable, with
		// a background rewrite whose T0 is now (restartAOFAfterSYNC), or
		// a synchronous save if that cannot start.
		err := errors.New("the persistence has no background restart")
		if lr != nil {
			err = lr.RestartAfterSync()
		}
		if err != nil {
			r.logf("MASTER <-> REPLICA sync: starting the AOF rewrite failed (%v): saving the loaded dataset now", err)
			if err := p.Save(); err != nil {
				r.logf("MASTER <-> REPLICA sync: saving the loaded dataset failed: %v", err)
			}
		}
	}
	r.mu.Lock()
	r.replid, r.replid2, r.secondOffset = id, strings.Repeat("0", 40), -1
	// A new history: our replicas must resync, and the backlog starts
	// empty at the master's offset (it then holds the master's stream,
	// for replicas of ours and for after a promotion).
	r.kickLinksLocked()
	r.backlog = nil
	r.ensureBacklogLocked()
	r.offset.Store(off)
	r.readOffset.Store(off)
	r.synced, r.dbSel = true, streamDB
	r.mu.Unlock()
	e.Unlock()
	r.logf("MASTER <-> REPLICA sync: Finished with success")
	return nil
}

// logRestarter is the log's side of a full sync (internal/aof's
// RestartAfterSync).
type logRestarter interface {
	StopRewrite()
	RewriteRunning() bool
	RestartAfterSync() error
}

// countingSource counts the bytes of the RDB transfer read so far
// (INFO's master_sync_read_bytes); it is an io.ByteReader so that the
// RDB reader consumes exactly the file from it.
type countingSource struct {
	r interface {
		io.Reader
		io.ByteReader
	}
	n   interface{ Add(int64) int64 }
	tee *bufio.Writer // a copy of what is read, if not nil
}

func (c *countingSource) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	if c.tee != nil {
		c.tee.Write(p[:n]) // an error shows at commit
	}
	return n, err
}

func (c *countingSource) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n.Add(1)
		if c.tee != nil {
			c.tee.WriteByte(b)
		}
	}
	return b, err
}

// dumpFile is the RDB file a replica receives, written to a temporary
// file in dir and renamed to dbfilename once it loaded.
type dumpFile struct {
	f    *os.File
	w    *bufio.Writer
	path string
}

func newDumpFile(e *engine.Engine) (*dumpFile, error) {
	dir := e.Config.Get("dir")
	f, err := os.CreateTemp(dir, "temp-sync-*.rdb")
	if err != nil {
		return nil, err
	}
	return &dumpFile{f: f, w: bufio.NewWriterSize(f, 1<<20), path: filepath.Join(dir, e.Config.Get("dbfilename"))}, nil
}

// commit makes the file dir/dbfilename, durably.
func (d *dumpFile) commit() error {
	f := d.f
	d.f = nil
	err := d.w.Flush()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), d.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	if dir, err := os.Open(filepath.Dir(d.path)); err == nil {
		dir.Sync()
		dir.Close()
	}
	return nil
}

// abort removes the file unless it was committed.
func (d *dumpFile) abort() {
	if d.f != nil {
		d.f.Close()
		os.Remove(d.f.Name())
		d.f = nil
	}
}

// Batching bounds: how many commands (and bytes) already received are
// applied under one acquisition of the engine lock.
const (
	maxBatch      = 1024
	maxBatchBytes = 4 << 20
)

type streamCmd struct {
	args [][]byte
	raw  []byte // the command as the master sent it
}

// stream applies the master's commands until the link fails.
func (r *Replica) stream(ctx context.Context, gen int64, conn *ioConn, br *bufio.Reader) error {
	e := r.e
	cl := e.NewClient(engine.KindMaster)
	cl.Authenticated = true
	cl.Addr = conn.RemoteAddr().String()
	cl.LAddr = conn.LocalAddr().String()
	cl.Kill = func() { conn.Close() } // CLIENT KILL TYPE master
	r.mu.Lock()
	cl.DB = r.dbSel
	r.mu.Unlock()
	defer e.RemoveClient(cl)

	// An ACK now, then every second (replicationCron): after a diskless
	// transfer the master waits for the first one to stream.
	if err := r.sendAck(conn, r.offset.Load()); err != nil {
		return err
	}
	ackCtx, stopAcks := context.WithCancel(ctx)
	defer stopAcks()
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ackCtx.Done():
				return
			case <-t.C:
			}
			if r.sendAck(conn, r.offset.Load()) != nil {
				return
			}
		}
	}()

	w := &resp.Writer{Proto: 2, Buf: make([]byte, 0, 512)}
	var batch []streamCmd
	var acks []int64
	var pending []byte // an open MULTI's bytes, applied at EXEC
	for {
		batch = batch[:0]
		size := int64(0)
		for {
			args, raw, err := readCommand(br)
			if err != nil {
				return err
			}
			n := int64(len(raw))
			r.readOffset.Add(n)
			batch = append(batch, streamCmd{args, raw})
			size += n
			if br.Buffered() == 0 || len(batch) >= maxBatch || size >= maxBatchBytes {
				break
			}
		}
		acks = acks[:0]
		e.Lock()
		if r.stale(gen) {
			e.Unlock()
			return errStale
		}
		for _, c := range batch {
			if len(c.args) == 0 {
				r.applied(c.raw)
				continue
			}
			if engine.EqualFold(c.args[0], "replconf") {
				// REPLCONF GETACK * asks for our offset, the one before
				// this command; other REPLCONF subcommands are ignored.
				if len(c.args) >= 2 && engine.EqualFold(c.args[1], "getack") {
					acks = append(acks, r.offset.Load())
				}
				r.applied(c.raw)
				continue
			}
			w.Reset()
			if wt := e.Call(cl, c.args, w); wt != nil {
				// A master never propagates a command that blocks.
				e.Unlock()
				return errors.New("the master sent a blocking command")
			}
			if bytes.HasPrefix(w.Buf, []byte("-")) {
				r.logf("== CRITICAL == This replica is sending an error to its master: '%s' after processing the command '%s'",
					strings.TrimRight(string(w.Buf[1:]), "\r\n"), c.args[0])
			}
			pending = append(pending, c.raw...)
			// As Redis, the offset stays before a MULTI until its EXEC:
			// a link dropped inside a transaction resumes before it.
			if !cl.InMulti() {
				r.applied(pending)
				pending = pending[:0]
			}
		}
		r.mu.Lock()
		r.dbSel = cl.DB
		r.mu.Unlock()
		e.Unlock()
		for _, off := range acks {
			if err := r.sendAck(conn, off); err != nil {
				return err
			}
		}
	}
}

func (r *Replica) sendAck(conn *ioConn, off int64) error {
	_, err := conn.Write(resp.AppendCommand(nil, "REPLCONF", "ACK", strconv.FormatInt(off, 10)))
	return err
}

// maxArgLen bounds one argument of the master's stream (proto-max-bulk-len's
// maximum).
const maxArgLen = 1 << 40

// readCommand reads one request of the master's stream, with its bytes
// as sent (forwarded to our own replicas byte for byte, and counted in
// the offset). Multibulk requests are what masters send; an inline line
// is accepted, and an empty line (a keepalive newline) yields no
// arguments.
func readCommand(br *bufio.Reader) ([][]byte, []byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return nil, nil, errors.New("protocol error: too big inline request from master")
	}
	if err != nil {
		return nil, nil, err
	}
	raw := append([]byte(nil), line...)
	if line[0] != '*' {
		f := strings.Fields(string(line))
		if len(f) == 0 {
			return nil, raw, nil
		}
		args := make([][]byte, len(f))
		for i, s := range f {
			args[i] = []byte(s)
		}
		return args, raw, nil
	}
	count, err := strconv.Atoi(string(bytes.TrimRight(line[1:], "\r\n")))
	if err != nil || count > 1024*1024 {
		return nil, nil, fmt.Errorf("protocol error: invalid multibulk length %q", line)
	}
	args := make([][]byte, 0, max(count, 0))
	for range count {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return nil, nil, err
		}
		raw = append(raw, line...)
		if line[0] != '$' {
			return nil, nil, fmt.Errorf("protocol error: expected '$', got %q", line)
		}
		l, err := strconv.ParseInt(string(bytes.TrimRight(line[1:], "\r\n")), 10, 64)
		if err != nil || l < 0 || l > maxArgLen {
			return nil, nil, fmt.Errorf("protocol error: invalid bulk length %q", line)
		}
		b := make([]byte, l+2)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, nil, err
		}
		raw = append(raw, b...)
		args = append(args, b[:l:l])
	}
	return args, raw, nil
}

// applied counts p, bytes of the master's stream just applied, in the
// offset and forwards them to our replicas through the backlog, as
// Redis 7's replicationFeedStreamFromMasterStream. The engine lock is
// held (the offset moves with the data).
func (r *Replica) applied(p []byte) {
	if len(p) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	off := r.offset.Load()
	if r.backlog != nil {
		r.backlog.add(off+1, p)
		r.backlog.histlen = min(r.backlog.histlen+int64(len(p)), int64(len(r.backlog.buf)))
	}
	r.offset.Store(off + int64(len(p)))
	r.collectLocked(p) // our replicas' snapshots are at an offset of this stream too
	r.notifyLinksLocked()
	r.checkOutputLimitsLocked()
}
