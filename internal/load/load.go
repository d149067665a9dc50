// Package load is Ordo's bulk loader and the writer that feeds it.
//
// Run streams a file of commands to any RESP server (ordo-server, Redis,
// Valkey) the way `redis-cli --pipe` does: one goroutine writes commands
// without waiting for replies, another reads and counts the replies, and
// an ECHO of 20 random bytes sent after the last command tells when the
// last reply has arrived. The input may be RESP (passed through byte for
// byte), plain text lines ("SET Key0 Value0", quoted as redis-cli and
// inline commands understand), or a mix: like Redis, the loader decides
// per command (a command starting with '*' is RESP, anything else is a
// line). Text lines are turned into RESP before sending, so a line's
// quoting is interpreted by the loader, never by the server's inline
// parser (which limits line length).
//
// The output is redis-cli's: "All data transferred. Waiting for the last
// reply...", each error reply on stderr, "Last reply received from
// server.", then "errors: N, replies: M". Replies counts every reply,
// errors included, but not the final ECHO.
//
// Generate (gen.go) turns CSV or JSON-lines records into RESP for the
// loader through command templates.
package load

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/ordo-db/ordo/internal/resp"
)

// Options configure Run.
type Options struct {
	Addr             string        // host:port of the server
	Password         string        // AUTH before loading when not empty
	User             string        // AUTH user (with Password)
	DB               int           // SELECT before loading when not 0
	PipeTimeout      time.Duration // give up when no reply arrives for this long after the input ended (0: wait forever)
	DialTimeout      time.Duration // default 5s
	Stdout           io.Writer     // summary lines (default os.Stdout)
	Stderr           io.Writer     // error replies and progress (default os.Stderr)
	Progress         bool          // redraw a progress line on Stderr (for terminals)
	ProgressInterval time.Duration
	// Cluster routes each command to the master of its keys' slot in a
	// Redis Cluster whose node Addr is (see cluster.go).
	Cluster bool

	skipSlotMap bool // tests: route everything to Addr first and follow MOVED
}

// Result is what a load did.
type Result struct {
	Commands int64         // commands read from the input and sent
	Replies  int64         // replies received, errors included, the final ECHO excluded (redis-cli's count)
	Errors   int64         // error replies, plus input lines that could not be sent and a reply timeout
	Bytes    int64         // bytes sent
	Elapsed  time.Duration // from connect to the last reply
	Complete bool          // the last reply was received
	// Redirects counts MOVED and ASK replies followed (Cluster only): they
	// are not replies to the user's commands and are not counted above.
	Redirects int64
}

// ErrConn reports a broken connection (the message is redis-cli's).
var ErrConn = errors.New("load: connection error")

const magicLen = 20

// Run loads the commands read from in into the server at o.Addr and
// prints redis-cli's messages. It returns an error only when loading
// could not go on (connection refused or broken); error replies are
// counted in Result.Errors.
func Run(ctx context.Context, in io.Reader, o Options) (Result, error) {
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.DialTimeout == 0 {
		o.DialTimeout = 5 * time.Second
	}
	if o.ProgressInterval == 0 {
		o.ProgressInterval = 200 * time.Millisecond
	}
	if o.Cluster {
		return runCluster(ctx, in, o)
	}
	start := time.Now()
	var d net.Dialer
	d.Timeout = o.DialTimeout
	conn, err := d.DialContext(ctx, "tcp", o.Addr)
	if err != nil {
		return Result{}, fmt.Errorf("Could not connect to Redis at %s: %v", o.Addr, errText(err))
	}
	defer conn.Close()
	if err := prepare(conn, o); err != nil {
		return Result{}, err
	}
	// A cancelled context closes the connection, which unblocks both
	// goroutines.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	l := &loader{o: o, conn: conn, start: start}
	if _, err := rand.Read(l.magic[:]); err != nil {
		return Result{}, err
	}
	l.out = &output{stdout: o.Stdout, stderr: o.Stderr}

	var progressDone chan struct{}
	if o.Progress {
		progressDone = make(chan struct{})
		go l.progress(progressDone)
	}
	werr := make(chan error, 1)
	go func() { werr <- l.write(in) }()
	rerr := l.read()
	if rerr != nil {
		conn.Close() // unblock the writer
	}
	wErr := <-werr
	if progressDone != nil {
		close(progressDone)
		l.out.clearProgress()
	}
	res := Result{
		Commands: l.sent.Load(),
		Replies:  l.replies.Load(),
		Errors:   l.errors.Load(),
		Bytes:    l.bytes.Load(),
		Elapsed:  time.Since(start),
		Complete: l.done.Load(),
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if rerr != nil {
		return res, rerr
	}
	if wErr != nil && !res.Complete {
		return res, wErr
	}
	l.out.printf(false, "errors: %d, replies: %d\n", res.Errors, res.Replies)
	return res, nil
}

// errText gives a dial error as redis-cli does ("Connection refused").
func errText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	return err.Error()
}

// prepare sends AUTH and SELECT and checks their replies.
func prepare(conn net.Conn, o Options) error {
	var cmds [][]string
	if o.Password != "" {
		if o.User != "" {
			cmds = append(cmds, []string{"AUTH", o.User, o.Password})
		} else {
			cmds = append(cmds, []string{"AUTH", o.Password})
		}
	}
	if o.DB != 0 {
		cmds = append(cmds, []string{"SELECT", strconv.Itoa(o.DB)})
	}
	if len(cmds) == 0 {
		return nil
	}
	conn.SetDeadline(time.Now().Add(o.DialTimeout))
	defer conn.SetDeadline(time.Time{})
	br := bufio.NewReader(conn)
	for _, c := range cmds {
		if _, err := conn.Write(resp.AppendCommand(nil, c...)); err != nil {
			return fmt.Errorf("Error writing to the server: %v", err)
		}
		v, err := resp.ReadReply(br)
		if err != nil {
			return fmt.Errorf("Error reading from the server: %v", err)
		}
		if v.Kind == resp.KindError {
			if c[0] == "AUTH" {
				return fmt.Errorf("AUTH failed: %s", v.Str)
			}
			return fmt.Errorf("SELECT failed: %s", v.Str)
		}
	}
	if br.Buffered() > 0 {
		return fmt.Errorf("Error reading replies from server")
	}
	return nil
}

type loader struct {
	o     Options
	conn  net.Conn
	start time.Time
	magic [magicLen]byte
	out   *output

	sent    atomic.Int64
	bytes   atomic.Int64
	replies atomic.Int64
	errors  atomic.Int64
	eof     atomic.Bool // the final ECHO is being sent
	done    atomic.Bool // its reply arrived
}

// ---- writer ----

// write sends the input, then the final ECHO.
func (l *loader) write(in io.Reader) error {
	cw := &countWriter{w: l.conn, n: &l.bytes}
	bw := bufio.NewWriterSize(cw, 64<<10)
	enc := NewEncoder(in)
	var inErr error
	for {
		n, err := enc.Next(bw)
		if err == io.EOF {
			break
		}
		var le *LineError
		if errors.As(err, &le) {
			l.errors.Add(1)
			l.out.printf(true, "%s\n", le.Error())
			continue
		}
		if err != nil {
			if isNetErr(err) {
				return fmt.Errorf("Error writing to the server: %v", err)
			}
			// Unreadable input: stop here, but still collect the
			// replies of what was sent.
			l.errors.Add(1)
			l.out.printf(true, "%s\n", err)
			inErr = err
			break
		}
		l.sent.Add(int64(n))
	}
	// The ECHO starts with a CRLF, as redis-cli's does, so that it is
	// still well formed after garbage in the input (a bare CRLF is
	// ignored by the server).
	l.out.printf(false, "All data transferred. Waiting for the last reply...\n")
	l.eof.Store(true)
	if l.o.PipeTimeout > 0 {
		// Also bounds a read already waiting.
		l.conn.SetReadDeadline(time.Now().Add(l.o.PipeTimeout))
	}
	echo := []byte("\r\n*2\r\n$4\r\nECHO\r\n$20\r\n")
	echo = append(echo, l.magic[:]...)
	echo = append(echo, "\r\n"...)
	bw.Write(echo)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("Error writing to the server: %v", err)
	}
	return inErr
}

func isNetErr(err error) bool {
	var ne net.Error
	var we *writeError
	return errors.As(err, &ne) || errors.As(err, &we)
}

type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

type countWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	if err != nil {
		err = &writeError{err}
	}
	return n, err
}

// ---- reader ----

// deadlineReader arms the pipe timeout on every read once the input has
// ended.
type deadlineReader struct{ l *loader }

func (d deadlineReader) Read(p []byte) (int, error) {
	if d.l.eof.Load() && d.l.o.PipeTimeout > 0 {
		d.l.conn.SetReadDeadline(time.Now().Add(d.l.o.PipeTimeout))
	}
	return d.l.conn.Read(p)
}

// read counts replies until the final ECHO comes back.
func (l *loader) read() error {
	br := bufio.NewReaderSize(deadlineReader{l}, 64<<10)
	var scratch []byte
	for !l.done.Load() {
		ln, err := readLine(br)
		if err != nil {
			return l.readErr(err)
		}
		switch ln[0] {
		case '-', '!':
			if l.eof.Load() && l.replies.Load() == l.sent.Load() {
				// Every command has its reply: this error is the
				// final ECHO's (refused, e.g. NOAUTH). Done, without
				// counting it.
				l.done.Store(true)
				l.out.printf(false, "Last reply received from server.\n")
				if ln[0] == '!' {
					skipRest(br, ln)
				}
				break
			}
			msg := ln[1:]
			if ln[0] == '!' {
				n, perr := strconv.Atoi(string(ln[1:]))
				if perr != nil || n < 0 {
					return fmt.Errorf("Error reading replies from server")
				}
				scratch, err = readN(br, scratch[:0], n)
				if err != nil {
					return l.readErr(err)
				}
				msg = scratch
			}
			l.errors.Add(1)
			l.out.printf(true, "%s\n", msg)
			l.replies.Add(1)
		case '$':
			n, perr := strconv.Atoi(string(ln[1:]))
			if perr != nil {
				return fmt.Errorf("Error reading replies from server")
			}
			if n == magicLen && l.eof.Load() {
				scratch, err = readN(br, scratch[:0], n)
				if err != nil {
					return l.readErr(err)
				}
				if string(scratch) == string(l.magic[:]) {
					l.done.Store(true)
					l.out.printf(false, "Last reply received from server.\n")
					break
				}
			} else if n >= 0 {
				if _, err := br.Discard(n + 2); err != nil {
					return l.readErr(err)
				}
			}
			l.replies.Add(1)
		default:
			if err := skipRest(br, ln); err != nil {
				if errors.Is(err, errMalformed) {
					return fmt.Errorf("Error reading replies from server")
				}
				return l.readErr(err)
			}
			l.replies.Add(1)
		}
	}
	return nil
}

func (l *loader) readErr(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() && l.eof.Load() {
		l.errors.Add(1)
		l.out.printf(true, "No replies for %d seconds: exiting.\n", int(l.o.PipeTimeout/time.Second))
		return nil
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("Error reading from the server: Server closed the connection")
	}
	if errors.Is(err, errMalformed) {
		return fmt.Errorf("Error reading replies from server")
	}
	return fmt.Errorf("Error reading from the server: %v", err)
}

var errMalformed = errors.New("malformed reply")

// readLine returns one CRLF-terminated line without its CRLF (valid until
// the next read).
func readLine(br *bufio.Reader) ([]byte, error) {
	ln, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		// A very long simple string or error: gather it.
		buf := append([]byte(nil), ln...)
		for err == bufio.ErrBufferFull {
			ln, err = br.ReadSlice('\n')
			buf = append(buf, ln...)
		}
		ln = buf
	}
	if err != nil {
		return nil, err
	}
	if len(ln) < 3 || ln[len(ln)-2] != '\r' {
		return nil, errMalformed
	}
	return ln[:len(ln)-2], nil
}

func readN(br *bufio.Reader, dst []byte, n int) ([]byte, error) {
	dst = append(dst, make([]byte, n+2)...)
	if _, err := io.ReadFull(br, dst); err != nil {
		return dst, err
	}
	return dst[:n], nil
}

// skipRest skips the rest of a reply whose first line is ln.
func skipRest(br *bufio.Reader, ln []byte) error {
	switch ln[0] {
	case '+', ':', '_', ',', '#', '(':
		return nil
	case '$', '=', '!':
		n, err := strconv.Atoi(string(ln[1:]))
		if err != nil {
			return errMalformed
		}
		if n >= 0 {
			_, err = br.Discard(n + 2)
		}
		return err
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(string(ln[1:]))
		if err != nil {
			return errMalformed
		}
		if ln[0] == '%' || ln[0] == '|' {
			n *= 2
		}
		kind := ln[0]
		for i := 0; i < n; i++ {
			sub, err := readLine(br)
			if err != nil {
				return err
			}
			if err := skipRest(br, sub); err != nil {
				return err
			}
		}
		if kind == '|' { // an attribute precedes the actual reply
			sub, err := readLine(br)
			if err != nil {
				return err
			}
			return skipRest(br, sub)
		}
		return nil
	}
	return errMalformed
}

// ---- output ----

// output serializes messages and the progress line.
type output struct {
	mu          sync.Mutex
	stdout      io.Writer
	stderr      io.Writer
	progressLen int // characters of the progress line on screen
}

func (o *output) printf(toStderr bool, format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.clearLocked()
	w := o.stdout
	if toStderr {
		w = o.stderr
	}
	fmt.Fprintf(w, format, args...)
}

func (o *output) clearLocked() {
	if o.progressLen > 0 {
		fmt.Fprint(o.stderr, "\r\x1b[K")
		o.progressLen = 0
	}
}

func (o *output) clearProgress() {
	o.mu.Lock()
	o.clearLocked()
	o.mu.Unlock()
}

func (o *output) progress(s string) {
	o.mu.Lock()
	fmt.Fprint(o.stderr, "\r\x1b[K"+s)
	o.progressLen = len(s)
	o.mu.Unlock()
}

func (l *loader) progress(done chan struct{}) {
	t := time.NewTicker(l.o.ProgressInterval)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			el := time.Since(l.start).Seconds()
			sent, rep := l.sent.Load(), l.replies.Load()
			rate := 0.0
			if el > 0 {
				rate = float64(rep) / el
			}
			l.out.progress(fmt.Sprintf("sent %d commands (%s), replies %d, errors %d, %.0f replies/s",
				sent, humanBytes(l.bytes.Load()), rep, l.errors.Load(), rate))
		}
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// IsTerminal reports whether f is a terminal. A character device is not
// enough (/dev/null is one): it asks the terminal driver, as isatty does.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
