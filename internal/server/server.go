// Package server is ordo-server's network face: it accepts TCP
// connections, reads requests with internal/resp, executes them through
// the engine and writes the replies. It never looks inside a value.
//
// Each connection has one goroutine. It parses every complete request
// already received, executes the whole batch under one acquisition of the
// engine lock, and writes all the replies with one write: pipelining
// costs one lock and one syscall per batch, not per command. Parsing and
// writing run outside the lock, so many connections use every core.
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

	rd := resp.NewReader(countingReader{conn, &e.Stats.NetInput})
	rd.MaxBulkLen = e.Config.Int("proto-max-bulk-len")
	w := &resp.Writer{Proto: 2, Buf: make([]byte, 0, 4096)}

	// Once the client subscribes, its replies and the messages published
	// to it share one ordered queue (engine.Outbox): replies are handed
	// over under the lock, so a message published after a reply was made
	// is written after it; a second goroutine writes messages that arrive
	// while this one waits for requests.
	stopPush := make(chan struct{})
	defer close(stopPush)
	pushing := false
	handoff := func() {
		if ob := cl.Outbox(); ob != nil && len(w.Buf) > 0 {
			ob.Append(w.Buf)
			w.Reset()
		}
	}
	writeOut := func(ob *engine.Outbox) bool {
		if h := e.SyncHook; h != nil {
			h(context.Background())
		}
		n, err := ob.WriteTo(conn)
		e.Stats.NetOutput.Add(n)
		return err == nil && !ob.Dead()
	}
	flush := func() bool {
		if ob := cl.Outbox(); ob != nil {
			if len(w.Buf) > 0 {
				// Replies made without the lock (BUSY, a blocked
				// command's, a protocol error): queued as they are.
				ob.AppendReply(w.Buf)
				w.Reset()
			}
			if !pushing {
				pushing = true
				go func() {
					for {
						select {
						case <-stopPush:
							return
						case <-ob.Notify():
							// Let the publishers running now add theirs, so
							// that one write carries many messages (as
							// Redis writes once per event-loop turn).
							runtime.Gosched()
							if !writeOut(ob) {
								conn.Close()
								return
							}
						}
					}
				}()
			}
			return writeOut(ob)
		}
		if len(w.Buf) == 0 {
			return true
		}
		// No reply before the changes it may depend on are as durable as
		// appendfsync requires (group commit; see internal/aof).
		if h := e.SyncHook; h != nil {
			h(context.Background())
		}
		_, err := conn.Write(w.Buf)
		e.Stats.NetOutput.Add(int64(len(w.Buf)))
		if cap(w.Buf) > 1<<20 {
			w.Buf = make([]byte, 0, 4096)
		}
		w.Reset()
		return err == nil
	}
	for {
		rd.Authenticated = cl.Authenticated
		if t := e.Config.Int("timeout"); t > 0 {
			conn.SetReadDeadline(time.Now().Add(time.Duration(t) * time.Second))
		}
		args, err := rd.ReadCommand()
		if err != nil {
			s.protocolFailure(w, err, flush)
			return
		}
		var perr error
		// While a script runs past busy-reply-threshold, LockOrBusy
		// answers BUSY (or serves SCRIPT KILL) without the lock.
		// (Call records the client's activity with the clock reading it
		// makes anyway: one read fewer per batch.)
		if !e.LockOrBusy(cl, args, w) {
			cl.LastActive.Store(time.Now().UnixMilli())
			if !flush() {
				return
			}
			continue
		}
		for {
			if wt := e.Call(cl, args, w); wt != nil {
				handoff()
				e.Unlock()
				if !flush() || !s.waitBlocked(conn, rd, cl, wt) {
					return
				}
				e.Lock()
			}
			if cl.CloseAfterReply() || cl.Killed() || cl.ReplicaLink() || len(w.Buf) > maxBatchReply {
				break
			}
			// An AUTH earlier in this batch lifts the limits for the rest.
			rd.Authenticated = cl.Authenticated
			args, perr = rd.TryCommand()
			if perr != nil {
				if perr == resp.ErrIncomplete {
					perr = nil
				}
				break
			}
		}
		handoff()
		e.Unlock()
		if perr != nil {
			s.protocolFailure(w, perr, flush)
			return
		}
		if !flush() || cl.CloseAfterReply() || cl.Killed() {
			return
		}
		if cl.ReplicaLink() { // after SYNC/PSYNC: internal/repl serves it
			s.Repl.ServeReplica(cl, conn, rd)
			return
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
