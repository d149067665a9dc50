// Package server is ordo-server's network face: it accepts TCP
// connections, reads requests with internal/resp, executes them through
// the engine and writes the replies. It never looks inside a value.
//
// Each connection has one goroutine. It parses every complete request
// already received, executes the whole batch under one acquisition of the
// engine lock, and writes all the replies with one write: pipelining
// costs one lock and one syscall per batch, not per command. Parsing and
// writing run outside the lock, so many connections use every core. After
// a batch of several commands the goroutine yields before its write, so
// that the connections ready at that moment run their batches first and
// the replies leave together, as Redis writes them at the end of its event
// loop's turn: a client is woken once for several replies.
//
// Once a client subscribes, its replies go through the engine's Outbox for
// it, which published messages are also appended to, under the lock: a
// message comes after every reply made before it. The connection writes
// the Outbox after each batch, and a second goroutine writes the messages
// that arrive while the connection waits for requests. A client that does
// not read is disconnected at the pubsub output limit, never slowing
// PUBLISH.
//
// A malformed request gets Redis's "-ERR Protocol error: ..." reply after
// the replies to the requests before it, and the connection is closed;
// other connections are not affected.
//
// On unix a plain TCP connection is read from inside its socket's
// syscall.RawConn.Read callback rather than through net.Conn.Read, so that
// after a read that drained the socket the goroutine waits for readiness
// instead of making a read that finds nothing: one read per request, as
// Redis, not two. That is safe only inside one callback invocation chain,
// every fresh RawConn.Read reads first, a sweeper catches a FIN hidden by
// a drained read, and anything unusual (a blocked command, a replica link)
// leaves the callback for the portable path; rawread_unix.go says why in
// detail. On Linux these reads and the replies' writes are raw system
// calls, which spares the runtime's monitor thread a wake-up per idle
// spell (sysio_linux.go). TLS connections and other systems use the
// portable path.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/repl"
	"github.com/ordo-db/ordo/internal/resp"
	"github.com/ordo-db/ordo/internal/script"
	"github.com/ordo-db/ordo/internal/search"
)

// NewEngine returns an engine with every command family ordo-server
// serves: the engine's own and scripting (internal/script).
func NewEngine(cfg *engine.Config) *engine.Engine {
	return engine.New(cfg, script.Register, search.Register)
}

// maxBatchReply bounds the replies buffered before a flush, so that a deep
// pipeline does not hold the engine lock or memory without bound.
const maxBatchReply = 256 * 1024

// Server serves one engine over TCP.
type Server struct {
	E    *engine.Engine
	Logf func(format string, args ...any)
	// Repl is the engine's replication (REPLICAOF; the replicaof
	// parameter is applied by Serve).
	Repl *repl.Replica

	mu        sync.Mutex
	listeners []net.Listener
	tlsAddrs  []string
	tls       tlsState
	conns     map[net.Conn]struct{}
	nconns    atomic.Int64
	wg        sync.WaitGroup
	closing   atomic.Bool
	done      chan struct{}

	// Connections served from a RawConn.Read callback (rawread_unix.go),
	// under mu, and the sweeper's epoch.
	raws       map[*session]struct{}
	sweepEpoch atomic.Int64
}

// New returns a server for e.
func New(e *engine.Engine) *Server {
	s := &Server{E: e, conns: map[net.Conn]struct{}{}, done: make(chan struct{}),
		Logf: log.New(os.Stderr, "", log.LstdFlags).Printf}
	s.Repl = repl.New(e, repl.Options{Logf: func(f string, a ...any) { s.Logf(f, a...) }, Port: s.port})
	return s
}

// port is the first listener's port (REPLCONF listening-port).
func (s *Server) port() int {
	for _, a := range s.Addrs() {
		if _, p, err := net.SplitHostPort(a); err == nil {
			n, _ := strconv.Atoi(p)
			return n
		}
	}
	return int(s.E.Config.Int("port"))
}

// Listen binds every address of the bind parameter on the port parameter.
// Port 0 picks a free port; Addrs tells which.
func (s *Server) Listen() error {
	plain, err := s.listenBind(s.E.Config.Get("port"), "")
	if err != nil {
		return err
	}
	s.listeners = append(s.listeners, plain...)
	if tport := s.E.Config.Get("tls-port"); tport != "0" {
		if err := s.setupTLS(); err != nil {
			s.Close()
			return err
		}
		lns, err := s.listenBind(tport, " (tls-port)")
		if err != nil {
			return err
		}
		for _, ln := range lns {
			s.tlsAddrs = append(s.tlsAddrs, ln.Addr().String())
			s.listeners = append(s.listeners, s.tlsListener(ln))
		}
	}
	return nil
}

// listenBind listens on port at every address of the bind parameter
// ("-" prefixes dropped, "*" for every IPv4 address); on an error it
// closes the server and names the address (and what, e.g. " (tls-port)").
func (s *Server) listenBind(port, what string) ([]net.Listener, error) {
	var out []net.Listener
	for _, host := range strings.Fields(s.E.Config.Get("bind")) {
		host = strings.TrimPrefix(host, "-")
		if host == "*" {
			host = "0.0.0.0"
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
		if err != nil {
			for _, l := range out {
				l.Close()
			}
			s.Close()
			return nil, fmt.Errorf("server: listen %s%s: %w", net.JoinHostPort(host, port), what, err)
		}
		out = append(out, ln)
	}
	return out, nil
}

// TLSAddrs returns the addresses of the TLS listeners (tls-port).
func (s *Server) TLSAddrs() []string { return s.tlsAddrs }

// Addrs returns the bound addresses.
func (s *Server) Addrs() []string {
	var out []string
	for _, ln := range s.listeners {
		out = append(out, ln.Addr().String())
	}
	return out
}

// Serve accepts connections until Close; it returns when every listener stopped.
func (s *Server) Serve() error {
	if err := s.Repl.Start(); err != nil {
		s.Logf("%v", err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go s.sweepSkipped(stop)
	var wg sync.WaitGroup
	for _, ln := range s.listeners {
		wg.Add(1)
		go func(ln net.Listener) {
			defer wg.Done()
			s.acceptLoop(ln)
		}(ln)
	}
	wg.Wait()
	return nil
}

func (s *Server) acceptLoop(ln net.Listener) {
	var delay time.Duration
	for {
		conn, err := ln.Accept()
		if err != nil {
			if s.closing.Load() {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.Logf("accept: %v", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		delay = 0
		if s.nconns.Load() >= s.E.Config.Int("maxclients") {
			s.E.Stats.RejectedConns.Add(1)
			conn.Write([]byte("-ERR max number of clients reached\r\n"))
			conn.Close()
			continue
		}
		s.mu.Lock()
		if s.closing.Load() {
			s.mu.Unlock()
			conn.Close()
			return
		}
		s.conns[conn] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		s.nconns.Add(1)
		go s.handle(conn)
	}
}

// Close stops accepting, closes every connection and waits for their goroutines.
func (s *Server) Close() {
	if s.closing.Swap(true) {
		s.wg.Wait()
		return
	}
	for _, ln := range s.listeners {
		ln.Close()
	}
	s.Repl.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	close(s.done)
}

// Done is closed when the server has been closed.
func (s *Server) Done() <-chan struct{} { return s.done }

func (s *Server) handle(conn net.Conn) {
	e := s.E
	defer func() {
		conn.Close()
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
		s.nconns.Add(-1)
		s.wg.Done()
	}()
	if tc, ok := conn.(*net.TCPConn); ok {
		if ka := e.Config.Int("tcp-keepalive"); ka > 0 {
			tc.SetKeepAlive(true)
			tc.SetKeepAlivePeriod(time.Duration(ka) * time.Second)
		}
		tc.SetNoDelay(true)
	}
	e.Stats.Connections.Add(1)
	cl := e.NewConnClient("normal", conn.RemoteAddr().String(), conn.LocalAddr().String(), func() { conn.Close() })
	defer e.RemoveClient(cl)

	c := &session{s: s, e: e, conn: conn, cl: cl, out: conn, pushOut: conn,
		rd:       resp.NewReader(countingReader{conn, &e.Stats.NetInput}),
		w:        &resp.Writer{Proto: 2, Buf: make([]byte, 0, 4096)},
		stopPush: make(chan struct{})}
	c.rd.MaxBulkLen = e.Config.Int("proto-max-bulk-len")
	defer close(c.stopPush)
	if !c.serveRaw() {
		c.serve()
	}
}

// session is one client connection's state.
type session struct {
	s    *Server
	e    *engine.Engine
	conn net.Conn
	cl   *engine.Client
	rd   *resp.Reader
	w    *resp.Writer
	// out writes to the connection from its goroutine, pushOut from the
	// Pub/Sub push goroutine: conn itself, or on the raw path writers
	// that skip the runtime's syscall bookkeeping (rawread_unix.go).
	out, pushOut io.Writer

	// Once the client subscribes, its replies and the messages published
	// to it share one ordered queue (engine.Outbox): replies are handed
	// over under the lock, so a message published after a reply was made
	// is written after it; a second goroutine (pushing) writes messages
	// that arrive while this one waits for requests.
	stopPush chan struct{}
	pushing  bool

	// raw is set while requests are served from inside the socket's
	// RawConn.Read callback (serveRaw), where a blocked command cannot
	// wait: batch leaves it in blocked for serveRaw to wait outside.
	raw     bool
	blocked *engine.Waiter
	// rc is the socket (raw only); skipWait is the sweep epoch in which
	// the callback began waiting without the read that would have found
	// nothing, 0 when it is not such a wait.
	rc       syscall.RawConn
	skipWait atomic.Int64
}

func (s *Server) addRaw(c *session) {
	s.mu.Lock()
	if s.raws == nil {
		s.raws = map[*session]struct{}{}
	}
	s.raws[c] = struct{}{}
	s.mu.Unlock()
}

func (s *Server) removeRaw(c *session) {
	s.mu.Lock()
	delete(s.raws, c)
	s.mu.Unlock()
}

// next is what a connection does after serving what it has buffered.
type next int

const (
	nextRead    next = iota // every complete request served: read more
	nextClose               // close the connection
	nextBlocked             // (raw only) a blocked command waits: session.blocked, lock released
	nextReplica             // the connection became a replica link (SYNC/PSYNC)
)

// serve is the portable loop: read (through the netpoller), serve, repeat.
func (c *session) serve() {
	for {
		switch c.serveBuffered() {
		case nextClose:
			return
		case nextReplica:
			c.s.Repl.ServeReplica(c.cl, c.conn, c.rd)
			return
		}
		c.setDeadline()
		if err := c.rd.Fill(); err != nil {
			return
		}
	}
}

// setDeadline applies the timeout parameter (idle clients are closed).
func (c *session) setDeadline() {
	if t := c.e.Config.Int("timeout"); t > 0 {
		c.conn.SetReadDeadline(time.Now().Add(time.Duration(t) * time.Second))
	}
}

// serveBuffered executes every complete request in the read buffer, in
// batches (see batch), and writes the replies.
func (c *session) serveBuffered() next {
	for {
		c.rd.Authenticated = c.cl.Authenticated
		args, err := c.rd.TryCommand()
		if err == resp.ErrIncomplete {
			return nextRead
		}
		if err != nil {
			c.s.protocolFailure(c.w, err, c.flush)
			return nextClose
		}
		// While a script runs past busy-reply-threshold, LockOrBusy
		// answers BUSY (or serves SCRIPT KILL) without the lock.
		// (Call records the client's activity with the clock reading it
		// makes anyway: one read fewer per batch.)
		if !c.e.LockOrBusy(c.cl, args, c.w) {
			c.cl.LastActive.Store(time.Now().UnixMilli())
			if !c.flush() {
				return nextClose
			}
			continue
		}
		if n := c.batch(args); n != nextRead {
			return n
		}
	}
}

// batch executes args and then every complete request buffered after it
// under the engine lock, held on entry and released on return, and
// writes their replies with one write. args == nil resumes a batch after
// a blocked command (serveRaw).
func (c *session) batch(args [][]byte) next {
	var perr error
	ran := 0 // commands run in this batch
	for {
		if args != nil {
			ran++
			if wt := c.e.Call(c.cl, args, c.w); wt != nil {
				c.handoff()
				c.e.Unlock()
				if !c.flush() {
					return nextClose
				}
				if c.raw {
					c.blocked = wt
					return nextBlocked
				}
				if !c.s.waitBlocked(c.conn, c.rd, c.cl, wt) {
					return nextClose
				}
				c.e.Lock()
			}
		}
		if c.cl.CloseAfterReply() || c.cl.Killed() || c.cl.ReplicaLink() || len(c.w.Buf) > maxBatchReply {
			break
		}
		// An AUTH earlier in this batch lifts the limits for the rest.
		c.rd.Authenticated = c.cl.Authenticated
		args, perr = c.rd.TryCommand()
		if perr != nil {
			if perr == resp.ErrIncomplete {
				perr = nil
			}
			break
		}
	}
	c.handoff()
	c.e.Unlock()
	if perr != nil {
		c.s.protocolFailure(c.w, perr, c.flush)
		return nextClose
	}
	if ran > 1 {
		// A pipelined batch: let the connections that became ready
		// meanwhile run their batches before this one's write, so that
		// replies leave together, as Redis writes them all at the end of
		// its event loop's turn. A client then finds several replies per
		// wake-up instead of being woken for each: with 50 clients at
		// -P 16, half the server's context switches and 10% less CPU
		// for redis-benchmark per request (bench/README.md).
		runtime.Gosched()
	}
	if !c.flush() || c.cl.CloseAfterReply() || c.cl.Killed() {
		return nextClose
	}
	if c.cl.ReplicaLink() { // after SYNC/PSYNC: internal/repl serves it
		return nextReplica
	}
	return nextRead
}

// handoff moves the replies made under the lock to a subscriber's Outbox.
func (c *session) handoff() {
	if ob := c.cl.Outbox(); ob != nil && len(c.w.Buf) > 0 {
		ob.Append(c.w.Buf)
		c.w.Reset()
	}
}

func (c *session) writeOut(ob *engine.Outbox, w io.Writer) bool {
	if h := c.e.SyncHook; h != nil {
		h(context.Background())
	}
	n, err := ob.WriteTo(w)
	c.e.Stats.NetOutput.Add(n)
	return err == nil && !ob.Dead()
}

// flush writes the replies; false when the connection is unusable.
func (c *session) flush() bool {
	if ob := c.cl.Outbox(); ob != nil {
		if len(c.w.Buf) > 0 {
			// Replies made without the lock (BUSY, a blocked
			// command's, a protocol error): queued as they are.
			ob.AppendReply(c.w.Buf)
			c.w.Reset()
		}
		if !c.pushing {
			c.pushing = true
			go c.push(ob)
		}
		return c.writeOut(ob, c.out)
	}
	if len(c.w.Buf) == 0 {
		return true
	}
	// No reply before the changes it may depend on are as durable as
	// appendfsync requires (group commit; see internal/aof).
	if h := c.e.SyncHook; h != nil {
		h(context.Background())
	}
	_, err := c.out.Write(c.w.Buf)
	c.e.Stats.NetOutput.Add(int64(len(c.w.Buf)))
	if cap(c.w.Buf) > 1<<20 {
		c.w.Buf = make([]byte, 0, 4096)
	}
	c.w.Reset()
	return err == nil
}

// push writes the messages published to a subscriber while its
// connection waits for requests.
func (c *session) push(ob *engine.Outbox) {
	for {
		select {
		case <-c.stopPush:
			return
		case <-ob.Notify():
			// Let the publishers running now add theirs, so
			// that one write carries many messages (as
			// Redis writes once per event-loop turn).
			runtime.Gosched()
			if !c.writeOut(ob, c.pushOut) {
				c.conn.Close()
				return
			}
		}
	}
}

// countingReader counts the bytes read from a connection (INFO's
// total_net_input_bytes).
type countingReader struct {
	r net.Conn
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// protocolFailure answers a malformed request as Redis does (after the
// replies before it), then the caller closes the connection. I/O errors
// close silently.
func (s *Server) protocolFailure(w *resp.Writer, err error, flush func() bool) {
	var pe *resp.ProtocolError
	if errors.As(err, &pe) {
		w.Error("ERR " + pe.Error())
		s.E.Stats.TotalErrorReplies.Add(1)
	}
	flush()
}

// waitBlocked waits for a blocked command while watching the socket, so
// that a client that disconnects stops waiting (and is never handed an
// element it can no longer receive). Bytes the client pipelines meanwhile
// stay buffered for later. It reports whether the connection is usable.
func (s *Server) waitBlocked(conn net.Conn, rd *resp.Reader, cl *engine.Client, wt *engine.Waiter) bool {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	readErr := make(chan error, 1)
	go func() {
		for {
			if err := rd.Fill(); err != nil {
				var ne net.Error
				if !(errors.As(err, &ne) && ne.Timeout()) {
					cancel()
				}
				readErr <- err
				return
			}
		}
	}()
	err := s.E.Wait(ctx, wt)
	conn.SetReadDeadline(time.Now())
	rerr := <-readErr
	conn.SetReadDeadline(time.Time{})
	if err != nil {
		return false
	}
	var ne net.Error
	if rerr != nil && !(errors.As(rerr, &ne) && ne.Timeout()) && rerr != io.EOF {
		return false
	}
	if rerr == io.EOF {
		return false
	}
	return true
}
