package load

// Loading into a Redis Cluster (ordo load --cluster, or -c as redis-cli).
//
// The slot map comes from CLUSTER SLOTS on the seed node; each command's
// keys come from the seed's COMMAND table (first key, last key, step), or
// from COMMAND GETKEYS for commands whose keys move (EVAL, ZUNIONSTORE,
// subcommands). A command goes to the master of its keys' slot; one whose
// keys span slots is reported as an error and not sent, as a cluster would
// refuse it. Every node has its own connection, pipelined: a writer
// goroutine per node sends what is queued for it, a reader goroutine reads
// its replies in order and matches each to the command it answers, so a
// MOVED reply updates the map and sends the command again to the new
// owner, and an ASK reply sends ASKING and the command to the node named,
// both without waiting. Only the reader that sees a reply ever queues a
// redirect and queues never block, so no node's stall can wedge another's;
// the input side waits when too many commands are unanswered, which bounds
// memory.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

const (
	maxInFlight   = 64 << 20 // bytes of unanswered commands before the input waits
	maxRedirects  = 16       // MOVED/ASK hops for one command
	crossSlotText = "CROSSSLOT Keys in request don't hash to the same slot"
)

// Slot is the cluster hash slot of key: CRC16 (XMODEM) of the key, or of
// its hash tag (the part between the first '{' and the next '}', if not
// empty), modulo 16384.
func Slot(key []byte) int {
	if i := bytes.IndexByte(key, '{'); i >= 0 {
		if j := bytes.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for _, b := range key {
		crc ^= uint16(b) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc & 16383)
}

// keySpec is what COMMAND says of a command's key positions.
type keySpec struct {
	first, last, step int
	movable           bool // keys found by COMMAND GETKEYS
}

type pending struct {
	cmd    []byte // nil: the reply to an ASKING, not counted
	hops   int
	asking bool // send ASKING before cmd
}

type clusterNode struct {
	addr string
	c    *clusterLoader
	conn net.Conn

	mu     sync.Mutex
	cond   *sync.Cond
	queue  []pending
	closed bool

	pmu      sync.Mutex
	inflight []pending // sent, awaiting replies, in order
	head     int
}

type clusterLoader struct {
	o     Options
	ctx   context.Context
	out   *output
	seed  string
	ctl   *bufio.ReadWriter // control connection to the seed (COMMAND GETKEYS)
	specs map[string]keySpec

	failOnce sync.Once
	failErr  error
	failed   chan struct{} // closed by fail

	mu    sync.Mutex
	slots [16384]string // master address per slot ("" unknown: the seed)
	nodes map[string]*clusterNode
	wg    sync.WaitGroup

	budget     sync.Mutex
	budgetCond *sync.Cond
	inBytes    int64 // bytes of unanswered commands

	sent, bytesOut, replies, errors, redirects atomic.Int64
	outstanding                                atomic.Int64
	lastReply                                  atomic.Int64 // unix nanos of the last reply
	allDone                                    chan struct{}
	eof                                        atomic.Bool
	skipMap                                    bool // tests: start from an empty map and follow MOVED
}

// runCluster is Run for a cluster: o.Addr is any node, the seed.
func runCluster(ctx context.Context, in io.Reader, o Options) (Result, error) {
	if o.DB != 0 {
		return Result{}, errors.New("ordo load: a cluster has only database 0 (-n cannot be used with --cluster)")
	}
	start := time.Now()
	c := &clusterLoader{o: o, ctx: ctx, seed: o.Addr, nodes: map[string]*clusterNode{}, skipMap: o.skipSlotMap,
		failed: make(chan struct{}), allDone: make(chan struct{})}
	c.budgetCond = sync.NewCond(&c.budget)
	c.out = &output{stdout: o.Stdout, stderr: o.Stderr}
	if err := c.setup(); err != nil {
		return Result{}, err
	}
	defer c.closeAll()
	stop := context.AfterFunc(ctx, func() { c.fail(ctx.Err()) })
	defer stop()

	var progressDone chan struct{}
	if o.Progress {
		progressDone = make(chan struct{})
		go c.progress(progressDone)
	}
	inErr := c.dispatch(in)
	c.out.printf(false, "All data transferred. Waiting for the last reply...\n")
	c.eof.Store(true)
	if c.outstanding.Load() == 0 {
		c.signalDone()
	}
	err := c.wait()
	if progressDone != nil {
		close(progressDone)
		c.out.clearProgress()
	}
	res := Result{Commands: c.sent.Load(), Replies: c.replies.Load(), Errors: c.errors.Load(),
		Bytes: c.bytesOut.Load(), Elapsed: time.Since(start), Redirects: c.redirects.Load()}
	if err != nil {
		return res, err
	}
	// An unreadable input stopped the input there (counted in Errors); the
	// replies to what was sent were still collected, as in Run.
	_ = inErr
	res.Complete = true
	c.out.printf(false, "Last reply received from server.\n")
	c.out.printf(false, "errors: %d, replies: %d\n", res.Errors, res.Replies)
	return res, nil
}

// setup reads the slot map and the command table from the seed.
func (c *clusterLoader) setup() error {
	var d net.Dialer
	d.Timeout = c.o.DialTimeout
	conn, err := d.DialContext(c.ctx, "tcp", c.seed)
	if err != nil {
		return fmt.Errorf("Could not connect to Redis at %s: %v", c.seed, errText(err))
	}
	if err := prepare(conn, c.o); err != nil {
		conn.Close()
		return err
	}
	c.ctl = bufio.NewReadWriter(bufio.NewReader(conn), bufio.NewWriter(conn))
	c.nodes[""] = &clusterNode{addr: "", conn: conn} // holds the control connection for closeAll
	slots, err := c.control("CLUSTER", "SLOTS")
	if err != nil {
		return err
	}
	if slots.Kind == resp.KindError {
		return fmt.Errorf("ordo load --cluster: CLUSTER SLOTS on %s: %s", c.seed, slots.Str)
	}
	if !c.skipMap {
		for _, r := range slots.Elems {
			if len(r.Elems) < 3 || len(r.Elems[2].Elems) < 2 {
				continue
			}
			host := r.Elems[2].Elems[0].Str
			if host == "" || host == "?" {
				host, _, _ = net.SplitHostPort(c.seed)
			}
			addr := net.JoinHostPort(host, strconv.FormatInt(r.Elems[2].Elems[1].Int, 10))
			for s := r.Elems[0].Int; s <= r.Elems[1].Int && s < 16384; s++ {
				c.slots[s] = addr
			}
		}
	}
	cmds, err := c.control("COMMAND")
	if err != nil {
		return err
	}
	c.specs = make(map[string]keySpec, len(cmds.Elems))
	for _, e := range cmds.Elems {
		if len(e.Elems) < 6 {
			continue
		}
		ks := keySpec{first: int(e.Elems[3].Int), last: int(e.Elems[4].Int), step: int(e.Elems[5].Int)}
		for _, f := range e.Elems[2].Elems {
			if f.Str == "movablekeys" {
				ks.movable = true
			}
		}
		if len(e.Elems) > 9 && len(e.Elems[9].Elems) > 0 {
			ks.movable = true // subcommands have their own keys
		}
		c.specs[strings.ToLower(e.Elems[0].Str)] = ks
	}
	return nil
}

// control sends one command on the seed's control connection.
func (c *clusterLoader) control(args ...string) (resp.Value, error) {
	return c.controlRaw(resp.AppendCommand(nil, args...))
}

func (c *clusterLoader) controlRaw(cmd []byte) (resp.Value, error) {
	if _, err := c.ctl.Write(cmd); err != nil {
		return resp.Value{}, fmt.Errorf("Error writing to the server: %v", err)
	}
	if err := c.ctl.Flush(); err != nil {
		return resp.Value{}, fmt.Errorf("Error writing to the server: %v", err)
	}
	v, err := resp.ReadReply(c.ctl.Reader)
	if err != nil {
		return v, fmt.Errorf("Error reading from the server: %v", err)
	}
	return v, nil
}

// dispatch reads the input and queues each command on its node.
func (c *clusterLoader) dispatch(in io.Reader) error {
	enc := NewEncoder(in)
	var buf bytes.Buffer
	bw := bufio.NewWriterSize(&buf, 64<<10)
	for {
		select {
		case <-c.failed:
			return nil
		default:
		}
		buf.Reset()
		n, err := enc.Next(bw)
		if err == io.EOF {
			return nil
		}
		var le *LineError
		if errors.As(err, &le) {
			c.errors.Add(1)
			c.out.printf(true, "%s\n", le.Error())
			continue
		}
		if err != nil {
			c.errors.Add(1)
			c.out.printf(true, "%s\n", err)
			return err
		}
		if n == 0 {
			continue
		}
		bw.Flush()
		cmd := bytes.Clone(buf.Bytes())
		slot, err := c.slotOf(cmd)
		if err != nil {
			c.errors.Add(1)
			c.out.printf(true, "%s\n", err)
			continue
		}
		c.acquire(int64(len(cmd)))
		c.sent.Add(1)
		c.outstanding.Add(1)
		c.send(c.owner(slot), pending{cmd: cmd})
	}
}

// slotOf is the slot of cmd's keys, -1 for a command without keys.
func (c *clusterLoader) slotOf(cmd []byte) (int, error) {
	args := splitCommand(cmd)
	if len(args) == 0 {
		return -1, nil
	}
	ks, ok := c.specs[strings.ToLower(string(args[0]))]
	if !ok {
		return -1, nil // unknown to the server: it will say so
	}
	var keys [][]byte
	if ks.movable {
		v, err := c.controlRaw(resp.AppendCommand(nil, append([]string{"COMMAND", "GETKEYS"}, stringsOf(args)...)...))
		if err != nil {
			return 0, err
		}
		for _, k := range v.Elems { // an error reply: no keys (or bad arguments the node will report)
			keys = append(keys, []byte(k.Str))
		}
	} else if ks.first > 0 {
		last := ks.last
		if last < 0 {
			last = len(args) + last
		}
		step := max(ks.step, 1)
		for i := ks.first; i <= last && i < len(args); i += step {
			keys = append(keys, args[i])
		}
	}
	slot := -1
	for _, k := range keys {
		s := Slot(k)
		if slot >= 0 && s != slot {
			return 0, errors.New(crossSlotText)
		}
		slot = s
	}
	return slot, nil
}

func stringsOf(args [][]byte) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}

// splitCommand parses a RESP multibulk written by the Encoder.
func splitCommand(b []byte) [][]byte {
	var args [][]byte
	line := func() []byte {
		i := bytes.Index(b, []byte("\r\n"))
		if i < 0 {
			return nil
		}
		ln := b[:i]
		b = b[i+2:]
		return ln
	}
	hdr := line()
	if len(hdr) < 2 || hdr[0] != '*' {
		return nil
	}
	n, _ := strconv.Atoi(string(hdr[1:]))
	for range n {
		h := line()
		if len(h) < 2 || h[0] != '$' {
			return args
		}
		m, _ := strconv.Atoi(string(h[1:]))
		if m < 0 || m+2 > len(b) {
			return args
		}
		args = append(args, b[:m])
		b = b[m+2:]
	}
	return args
}

// owner is the address serving slot ("" for the seed).
func (c *clusterLoader) owner(slot int) string {
	if slot < 0 {
		return c.seed
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.slots[slot]; a != "" {
		return a
	}
	return c.seed
}

// node returns the connection to addr, dialling it on first use.
func (c *clusterLoader) node(addr string) (*clusterNode, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.nodes[addr]; ok {
		return n, nil
	}
	var d net.Dialer
	d.Timeout = c.o.DialTimeout
	conn, err := d.DialContext(c.ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("Could not connect to Redis at %s: %v", addr, errText(err))
	}
	if err := prepare(conn, c.o); err != nil {
		conn.Close()
		return nil, err
	}
	n := &clusterNode{addr: addr, c: c, conn: conn}
	n.cond = sync.NewCond(&n.mu)
	c.nodes[addr] = n
	c.wg.Add(2)
	go n.writeLoop()
	go n.readLoop()
	return n, nil
}

// send queues p on addr's connection; it never blocks on the network.
func (c *clusterLoader) send(addr string, p pending) {
	n, err := c.node(addr)
	if err != nil {
		c.fail(err)
		return
	}
	n.mu.Lock()
	n.queue = append(n.queue, p)
	n.mu.Unlock()
	n.cond.Signal()
}

func (n *clusterNode) writeLoop() {
	defer n.c.wg.Done()
	bw := bufio.NewWriterSize(&countWriter{w: n.conn, n: &n.c.bytesOut}, 64<<10)
	var batch []pending
	for {
		n.mu.Lock()
		for len(n.queue) == 0 && !n.closed {
			n.cond.Wait()
		}
		if n.closed {
			n.mu.Unlock()
			return
		}
		batch, n.queue = n.queue, batch[:0]
		n.mu.Unlock()
		// Record before writing: the reply may come before Write returns.
		n.pmu.Lock()
		for _, p := range batch {
			if p.asking {
				n.inflight = append(n.inflight, pending{})
			}
			n.inflight = append(n.inflight, p)
		}
		n.pmu.Unlock()
		for _, p := range batch {
			if p.asking {
				bw.WriteString("*1\r\n$6\r\nASKING\r\n")
			}
			bw.Write(p.cmd)
		}
		if err := bw.Flush(); err != nil {
			n.c.fail(fmt.Errorf("Error writing to the server: %v", err))
			return
		}
		clear(batch)
	}
}

func (n *clusterNode) pop() (pending, bool) {
	n.pmu.Lock()
	defer n.pmu.Unlock()
	if n.head == len(n.inflight) {
		return pending{}, false
	}
	p := n.inflight[n.head]
	n.inflight[n.head] = pending{}
	n.head++
	if n.head > 4096 && n.head*2 > len(n.inflight) {
		n.inflight = append(n.inflight[:0], n.inflight[n.head:]...)
		n.head = 0
	}
	return p, true
}

func (n *clusterNode) readLoop() {
	defer n.c.wg.Done()
	c := n.c
	br := bufio.NewReaderSize(n.conn, 64<<10)
	var raw []byte
	for {
		var err error
		raw, err = resp.ReadRawReply(br, raw[:0])
		if err != nil {
			n.mu.Lock()
			closed := n.closed
			n.mu.Unlock()
			if !closed {
				if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
					c.fail(fmt.Errorf("Error reading from the server: Server closed the connection"))
				} else {
					c.fail(fmt.Errorf("Error reading from the server: %v", err))
				}
			}
			return
		}
		p, ok := n.pop()
		if !ok {
			c.fail(fmt.Errorf("Error reading replies from server: a reply to no command from %s", n.addr))
			return
		}
		if p.cmd == nil { // ASKING's +OK
			continue
		}
		if raw[0] == '-' {
			msg := string(raw[1 : len(raw)-2])
			host, _, _ := net.SplitHostPort(n.addr)
			if to, asking, ok := redirect(msg, host); ok && p.hops < maxRedirects {
				c.redirects.Add(1)
				p.hops++
				p.asking = asking
				if !asking {
					if f := strings.Fields(msg); len(f) == 3 {
						if s, err := strconv.Atoi(f[1]); err == nil && s >= 0 && s < 16384 {
							c.mu.Lock()
							c.slots[s] = to
							c.mu.Unlock()
						}
					}
				}
				c.send(to, p)
				continue
			}
			c.errors.Add(1)
			c.out.printf(true, "%s\n", msg)
		}
		c.replies.Add(1)
		c.lastReply.Store(time.Now().UnixNano())
		c.release(int64(len(p.cmd)))
		if c.outstanding.Add(-1) == 0 && c.eof.Load() {
			c.signalDone()
		}
	}
}

// redirect parses "MOVED slot host:port" and "ASK slot host:port".
func redirect(msg, host string) (addr string, asking, ok bool) {
	f := strings.Fields(msg)
	if len(f) != 3 || (f[0] != "MOVED" && f[0] != "ASK") {
		return "", false, false
	}
	addr = f[2]
	if strings.HasPrefix(addr, ":") { // "MOVED 1 :6380": the host of the node that said it
		addr = host + addr
	}
	return addr, f[0] == "ASK", true
}

func (c *clusterLoader) acquire(n int64) {
	c.budget.Lock()
	for c.inBytes > maxInFlight {
		select {
		case <-c.failed:
			c.budget.Unlock()
			return
		default:
		}
		c.budgetCond.Wait()
	}
	c.inBytes += n
	c.budget.Unlock()
}

func (c *clusterLoader) release(n int64) {
	c.budget.Lock()
	c.inBytes -= n
	c.budget.Unlock()
	c.budgetCond.Signal()
}

// fail stops the load with err (the first error wins).
func (c *clusterLoader) fail(err error) {
	c.failOnce.Do(func() {
		c.failErr = err
		c.budget.Lock() // a waiter checks failed under the lock: none misses it
		close(c.failed)
		c.budget.Unlock()
		c.budgetCond.Broadcast()
	})
}

func (c *clusterLoader) signalDone() {
	select {
	case <-c.allDone:
	default:
		close(c.allDone)
	}
}

// wait returns when every command has its reply, the load failed, or no
// reply came for PipeTimeout after the input ended.
func (c *clusterLoader) wait() error {
	c.lastReply.Store(time.Now().UnixNano())
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-c.allDone:
			return nil
		case <-c.failed:
			return c.failErr
		case <-tick.C:
			if t := c.o.PipeTimeout; t > 0 && time.Since(time.Unix(0, c.lastReply.Load())) > t {
				c.errors.Add(1)
				c.out.printf(true, "No replies for %d seconds: exiting.\n", int(t/time.Second))
				return fmt.Errorf("ordo load: %d commands unanswered", c.outstanding.Load())
			}
		}
	}
}

func (c *clusterLoader) closeAll() {
	c.mu.Lock()
	nodes := make([]*clusterNode, 0, len(c.nodes))
	for _, n := range c.nodes {
		nodes = append(nodes, n)
	}
	c.mu.Unlock()
	for _, n := range nodes {
		if n.cond != nil {
			n.mu.Lock()
			n.closed = true
			n.mu.Unlock()
			n.cond.Broadcast()
		}
		n.conn.Close()
	}
	c.wg.Wait()
}

func (c *clusterLoader) progress(done chan struct{}) {
	start := time.Now()
	t := time.NewTicker(c.o.ProgressInterval)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			el := time.Since(start).Seconds()
			c.mu.Lock()
			nodes := len(c.nodes) - 1
			c.mu.Unlock()
			c.out.progress(fmt.Sprintf("sent %d commands to %d nodes, replies %d, errors %d, redirects %d, %.0f replies/s",
				c.sent.Load(), nodes, c.replies.Load(), c.errors.Load(), c.redirects.Load(), float64(c.replies.Load())/max(el, 1e-9)))
		}
	}
}
