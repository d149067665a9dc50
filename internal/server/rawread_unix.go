//go:build unix

package server

import (
	"io"
	"net"
	"syscall"
	"time"
)

// serveRaw serves a plain TCP connection from inside its socket's
// syscall.RawConn.Read callback, to save the read that finds nothing.
//
// A net.Conn.Read reads first and waits after: when the client has not
// sent its next request yet, which at one request per round trip is
// every time, the read fails with EAGAIN and only then does the
// goroutine park on the netpoller. That is a third system call per
// request next to the read that gets the request and the write of its
// reply. serveRaw reads the descriptor itself and, when a read returned
// fewer bytes than it had room for (the socket was drained at that
// moment), serves what it got and waits for readiness without reading
// again, as an event loop that reads only sockets epoll reported does.
//
// Why that cannot miss a request: each RawConn.Read call first clears the
// descriptor's read readiness (internal/poll's prepareRead, the runtime's
// poll_runtime_pollReset), then calls the callback, and each time the
// callback returns false it parks until readiness is reported again
// (edge-triggered epoll/kqueue: one report per arrival after the clear).
// Bytes that arrive after a drained read therefore always wake the
// callback; bytes that arrived before the clear might not, so every
// callback invocation, and in particular the first after each fresh
// RawConn.Read, starts with a read. Only inside one RawConn.Read call,
// after a read that drained the socket, does the callback wait without
// reading. A wake-up for bytes the callback already read costs one EAGAIN
// read, as before.
//
// What a drained read does not tell is whether the peer's FIN (or a
// reset) came with the bytes it returned: the next read would give EOF,
// but the readiness that reported it may have been consumed by the
// wake-up for those bytes, and no more comes. A client that sends its
// last request and shuts down its side while reading the reply (nc -N,
// a half-close) would otherwise keep its connection open forever. So a
// wait that skipped its read is marked with the sweep epoch it began in
// (session.skipWait), and the server's sweeper (sweepSkipped) looks at
// the sockets of those that have waited a whole sweep period: a peek
// (recv MSG_PEEK, consuming nothing) that finds EOF or an error closes
// the connection, as reading it would have; one that finds the socket
// empty makes the wait an ordinary one. A connection active more often
// than that is never peeked.
//
// Anything unusual leaves the callback (returns true) and is handled
// outside it with the portable code: a blocked command (waitBlocked
// reads the socket from another goroutine, which needs the read lock the
// callback holds), a replica link (internal/repl reads the connection
// itself), a protocol error, EOF or a closed connection (CLIENT KILL,
// shutdown: the netpoller wakes the parked callback with an error). The
// timeout parameter's read deadline applies to the wait as it does to
// net.Conn.Read. Writes (replies, Pub/Sub pushes from their own
// goroutine) go through RawConn.Write (rawWriter), which takes the
// socket's write lock, not the read lock the callback holds, and waits
// for writability when the send buffer is full, as net.Conn.Write does.
// On Linux reads and writes skip the runtime's syscall bookkeeping
// (sysio_linux.go says why that is safe and what it saves).
//
// It reports false, having done nothing, when the connection is not a
// *net.TCPConn (TLS) so that the caller serves it the portable way.
func (c *session) serveRaw() bool {
	tc, ok := c.conn.(*net.TCPConn)
	if !ok {
		return false
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return false
	}
	c.rc = rc
	c.raw = true
	c.out, c.pushOut = newRawWriter(rc), newRawWriter(rc)
	c.s.addRaw(c)
	defer c.s.removeRaw(c)
	var fd int
	read := func(p []byte) (int, error) {
		for {
			n, err := sysRead(fd, p)
			switch {
			case n > 0:
				c.e.Stats.NetInput.Add(int64(n))
				return n, nil
			case err == syscall.EINTR:
				continue
			case err == nil:
				return 0, io.EOF
			}
			return 0, err
		}
	}
	res := nextRead
	callback := func(sysfd uintptr) bool {
		c.skipWait.Store(0)
		fd = int(sysfd)
		for {
			c.setDeadline()
			drained, err := c.rd.FillOnce(read)
			if err == syscall.EAGAIN {
				return false // a wake-up for bytes already read
			}
			if err != nil {
				res = nextClose
				return true
			}
			if res = c.serveBuffered(); res != nextRead {
				return true
			}
			if drained {
				// Wait for readiness without the read that would find
				// nothing; the sweeper checks for a FIN it hid.
				c.skipWait.Store(c.s.sweepEpoch.Load() + 1)
				return false
			}
		}
	}
	for {
		switch res {
		case nextRead: // nothing complete is buffered
			res = nextClose
			err := rc.Read(callback)
			c.skipWait.Store(0)
			if err != nil {
				return true
			}
		case nextBlocked:
			wt := c.blocked
			c.blocked = nil
			if !c.s.waitBlocked(c.conn, c.rd, c.cl, wt) {
				return true
			}
			c.e.Lock()
			if res = c.batch(nil); res == nextRead {
				res = c.serveBuffered()
			}
		case nextReplica:
			c.s.Repl.ServeReplica(c.cl, c.conn, c.rd)
			return true
		default:
			return true
		}
	}
}

// sweepPeriod is how often the sweeper looks for skipped-read waits: a
// half-closed client's connection is closed 1-2 periods after its FIN.
const sweepPeriod = 100 * time.Millisecond

// sweepSkipped runs until stop is closed: every sweepPeriod it peeks at
// the sockets of connections that have waited, without the read that
// would have seen EOF, since before the previous sweep (see serveRaw).
func (s *Server) sweepSkipped(stop <-chan struct{}) {
	t := time.NewTicker(sweepPeriod)
	defer t.Stop()
	type waiting struct {
		c     *session
		epoch int64
	}
	var list []waiting
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		cur := s.sweepEpoch.Add(1)
		list = list[:0]
		s.mu.Lock()
		for c := range s.raws {
			// v-1 is the epoch the wait began in, at least one whole
			// period ago.
			if v := c.skipWait.Load(); v != 0 && v-1 <= cur-2 {
				list = append(list, waiting{c, v})
			}
		}
		s.mu.Unlock()
		for _, w := range list {
			w.c.checkSkipped(w.epoch)
		}
		clear(list)
	}
}

// checkSkipped peeks at the socket of a connection waiting since epoch
// after a skipped read. Anything it finds was there before the peek,
// which came after that read (the mark is set after it).
func (c *session) checkSkipped(epoch int64) {
	var n int
	var err error
	cerr := c.rc.Control(func(fd uintptr) {
		var b [1]byte
		for {
			n, _, err = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK)
			if err != syscall.EINTR {
				return
			}
		}
	})
	switch {
	case cerr != nil: // closed already
	case n > 0:
		// Bytes that came after the read: their readiness wakes it.
	case err == syscall.EAGAIN:
		c.skipWait.CompareAndSwap(epoch, 0) // nothing hidden: an ordinary wait
	default:
		// EOF or an error the connection has not read: no bytes can
		// follow, so the waiting callback has nothing left to serve and
		// would close the connection on reading it.
		if c.skipWait.CompareAndSwap(epoch, 0) {
			c.conn.Close()
		}
	}
}

// rawWriter writes to a socket through RawConn.Write with sysWrite (see
// sysio_linux.go), waiting for writability when the send buffer is full
// as net.Conn.Write does. One per writing goroutine: its fields hold the
// write in progress.
type rawWriter struct {
	rc  syscall.RawConn
	p   []byte
	n   int
	err error
	cb  func(uintptr) bool
}

func newRawWriter(rc syscall.RawConn) *rawWriter {
	w := &rawWriter{rc: rc}
	w.cb = w.write
	return w
}

func (w *rawWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	w.p, w.n, w.err = p, 0, nil
	if err := w.rc.Write(w.cb); err != nil && w.err == nil {
		w.err = err
	}
	n, err := w.n, w.err
	w.p, w.err = nil, nil
	return n, err
}

// write is the RawConn.Write callback: false waits for writability.
func (w *rawWriter) write(fd uintptr) bool {
	for len(w.p) > 0 {
		n, err := sysWrite(int(fd), w.p)
		switch {
		case n > 0:
			w.n += n
			w.p = w.p[n:]
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			return false
		default:
			if err == nil {
				err = io.ErrShortWrite
			}
			w.err = err
			return true
		}
	}
	return true
}
