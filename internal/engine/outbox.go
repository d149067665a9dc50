package engine

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// Outbox is a client's output queue once it has subscribed to something:
// messages published by other clients are appended to it under the engine
// lock, in publication order, and the connection (or the embedded
// subscription) drains it without the lock. Appending never blocks, so a
// stuck reader never stalls PUBLISH; instead the queue is bounded as
// Redis bounds a pubsub client's output buffer (client-output-buffer-limit
// pubsub <hard> <soft> <seconds>): past the hard limit, or above the soft
// limit for longer than the given seconds, the client is disconnected and
// its queue dropped.
type Outbox struct {
	mu       sync.Mutex
	buf      []byte
	spare    []byte
	inflight int // bytes taken by the writer and not yet written
	dead     bool
	softAt   time.Time // when the soft limit was first exceeded, or zero

	notify chan struct{} // one pending wake-up for the drainer
	wmu    sync.Mutex    // held while taking and writing, so chunks go out in order

	cl *Client
	e  *Engine
}

func newOutbox(e *Engine, cl *Client) *Outbox {
	return &Outbox{e: e, cl: cl, notify: make(chan struct{}, 1)}
}

// Outbox returns the client's output queue, or nil if the client never
// subscribed (its replies then go straight from its writer to its
// connection).
func (cl *Client) Outbox() *Outbox { return cl.out }

// Notify is signalled when bytes were appended.
func (o *Outbox) Notify() <-chan struct{} { return o.notify }

// Dead reports whether the queue was dropped for exceeding its limits.
func (o *Outbox) Dead() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dead
}

// Append queues bytes (the caller's replies, handed over in order) and
// enforces the limits; it never blocks on I/O.
func (o *Outbox) Append(parts ...[]byte) {
	o.mu.Lock()
	if o.dead {
		o.mu.Unlock()
		return
	}
	for _, p := range parts {
		o.buf = append(o.buf, p...)
	}
	over := o.overLimit()
	if over {
		o.dead = true
		o.buf, o.spare = nil, nil
	}
	o.mu.Unlock()
	if over {
		o.e.Logf("Client id=%d addr=%s closed for overcoming of output buffer limits.", o.cl.ID, o.cl.Addr)
		o.cl.killed.Store(true)
		if o.cl.Kill != nil {
			o.cl.Kill()
		}
	}
	select {
	case o.notify <- struct{}{}:
	default:
	}
}

// handoff moves a reply made under the lock for a subscribed client
// that waited (a served or timed-out blocking command) into its Outbox,
// so that it precedes the messages published after it.
func (cl *Client) handoff(w *resp.Writer) {
	if cl.out != nil && len(w.Buf) > 0 {
		cl.out.Append(w.Buf)
		w.Reset()
	}
}

// AppendReply queues the client's own replies made without the engine
// lock, which the limits are not checked against (they are, at the next
// Append).
func (o *Outbox) AppendReply(b []byte) {
	o.mu.Lock()
	if !o.dead {
		o.buf = append(o.buf, b...)
	}
	o.mu.Unlock()
}

// overLimit applies the pubsub class limits while the client has
// subscriptions (a client that unsubscribed from everything is a normal
// client again, whose output Redis does not limit by default). o.mu held.
func (o *Outbox) overLimit() bool {
	if !o.cl.subscribed() {
		o.softAt = time.Time{}
		return false
	}
	hard, soft, secs := o.e.pubsubLimits()
	n := int64(len(o.buf) + o.inflight)
	if hard > 0 && n >= hard {
		return true
	}
	if soft > 0 && n >= soft {
		if o.softAt.IsZero() {
			o.softAt = time.Now()
			return false
		}
		// Whole seconds of wall-clock time, as Redis compares unixtimes.
		return time.Now().Unix()-o.softAt.Unix() > secs
	}
	o.softAt = time.Time{}
	return false
}

// Pending is the number of bytes queued and not yet written.
func (o *Outbox) Pending() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.buf) + o.inflight
}

// WriteTo writes everything queued so far to w. Concurrent callers write
// in turn, in queue order. It returns the bytes written.
func (o *Outbox) WriteTo(w io.Writer) (int64, error) {
	o.wmu.Lock()
	defer o.wmu.Unlock()
	var total int64
	for {
		o.mu.Lock()
		if len(o.buf) == 0 || o.dead {
			o.mu.Unlock()
			return total, nil
		}
		b := o.buf
		o.buf, o.spare = o.spare[:0], nil
		o.inflight = len(b)
		o.mu.Unlock()
		n, err := w.Write(b)
		total += int64(n)
		o.mu.Lock()
		o.inflight = 0
		if cap(b) <= 1<<20 {
			o.spare = b[:0]
		}
		o.mu.Unlock()
		if err != nil {
			return total, err
		}
	}
}

// Take removes and returns everything queued, for an in-process reader,
// which calls Release once it has delivered it: until then the bytes
// still count against the limits.
func (o *Outbox) Take() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.buf
	o.buf, o.spare = o.spare[:0], nil
	o.inflight = len(b)
	return b
}

// Release ends the delivery of b, which Take returned; the Outbox may
// reuse it.
func (o *Outbox) Release(b []byte) {
	o.mu.Lock()
	o.inflight = 0
	if cap(b) <= 1<<20 {
		o.spare = b[:0]
	}
	o.mu.Unlock()
}

// pubsubLimits returns the pubsub class of client-output-buffer-limit.
// Under the lock.
func (e *Engine) pubsubLimits() (hard, soft, secs int64) {
	l := &e.obufLimits
	return l.hard, l.soft, l.secs
}

// setOutputLimits parses client-output-buffer-limit (at start and on
// CONFIG SET, under the lock) and keeps its pubsub class.
func (e *Engine) setOutputLimits(v string) {
	f := strings.Fields(v)
	for i := 0; i+3 < len(f); i += 4 {
		if strings.EqualFold(f[i], "pubsub") {
			hard, _ := ParseMemory(f[i+1])
			soft, _ := ParseMemory(f[i+2])
			secs, _ := strconv.ParseInt(f[i+3], 10, 64)
			e.obufLimits = obufLimits{hard, soft, secs}
		}
	}
}

type obufLimits struct {
	hard, soft, secs int64
}
