package server_test

// Tests of the read path: on unix a plain TCP connection is served from a
// RawConn.Read callback that waits for readiness instead of making the
// read that would find nothing (rawread_unix.go). Everything a client can
// see must stay as redis-server does it: half-closes, requests split over
// many reads or bigger than the read buffer, deep pipelines, blocked
// commands with a disconnect or pipelined requests behind them, CLIENT
// KILL and the timeout parameter.

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// TestNetPathHalfCloseMatchesRedis: a client that sends requests and
// shuts down its sending side gets the replies and then the close, as
// from Redis, however the FIN travels with the bytes before it. (The
// FIN usually arrives with the request, so that its readiness is used up
// by the wake-up for the request: the server's sweeper must find it.)
func TestNetPathHalfCloseMatchesRedis(t *testing.T) {
	r, o := redistest.Shared(t)
	var deep []byte
	for i := range 3000 { // ~90 KB: several reads of the 16 KB buffer
		deep = resp.AppendCommand(deep, "ECHO", fmt.Sprintf("netpath-%06d", i))
	}
	cases := []struct{ name, data string }{
		{"one request", "PING\r\n"},
		{"two requests", "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n"},
		{"half a request", "*2\r\n$4\r\nECHO\r\n$10\r\nabc"},
		{"a request and half of one", "PING\r\n*2\r\n$4\r\nEC"},
		{"deep pipeline", string(deep)},
		{"nothing", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rd, od := both(t, r.Addr, o.Addr, []byte(tc.data), true, 0)
			if !rd.closed || !bytes.Equal(rd.reply, od.reply) || rd.closed != od.closed {
				t.Errorf("\n redis: %.200v\n  ordo: %.200v", rd, od)
			}
		})
	}
}

// TestNetPathSplitAndLargeMatchRedis: a 1 MB SET delivered in pieces with
// pauses between them (each piece a drained read, then a wait), and the
// same value fetched back inside a pipeline, give Redis's replies.
func TestNetPathSplitAndLargeMatchRedis(t *testing.T) {
	r, o := redistest.Shared(t)
	val := strings.Repeat("0123456789abcdef", 1<<16) // 1 MB
	var req []byte
	req = resp.AppendCommand(req, "SET", "netpath:big", val)
	req = resp.AppendCommand(req, "STRLEN", "netpath:big")
	req = resp.AppendCommand(req, "GET", "netpath:big")
	req = resp.AppendCommand(req, "DEL", "netpath:big")
	var got [2][]byte
	for i, addr := range []string{r.Addr, o.Addr} {
		c := redistest.Dial(t, addr)
		for off, step := 0, 1; off < len(req); step *= 3 {
			// Pieces of 1, 3, 9, ... bytes: headers split at every
			// point, then big pieces that fill the buffer.
			end := min(off+step, len(req))
			c.Write(req[off:end])
			off = end
			time.Sleep(2 * time.Millisecond)
		}
		for range 4 {
			got[i] = append(got[i], c.ReadRaw()...)
		}
		got[i] = append(got[i], c.DoRaw("PING")...)
	}
	if !bytes.Equal(got[0], got[1]) {
		t.Fatalf("replies differ: redis %.100q, ordo %.100q", got[0], got[1])
	}
	if !bytes.Contains(got[1], []byte(val)) {
		t.Fatalf("GET did not return the value: %.100q", got[1])
	}
}

// waitInfo polls INFO until it contains want (bounded, not timed).
func waitInfo(t *testing.T, c *redistest.Conn, section, want string) {
	t.Helper()
	for range 500 {
		if strings.Contains(c.Do("INFO", section).Str, want) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("INFO %s never showed %q", section, want)
}

// TestNetPathBlockedMatchesRedis: a blocked command with requests
// pipelined behind it answers all of them in order once it is served,
// and the connection goes on serving; a client that disconnects while
// blocked is not handed the element, which stays in the list; a client
// killed while it waits for requests is closed. Compared with Redis.
func TestNetPathBlockedMatchesRedis(t *testing.T) {
	r, o := redistest.Shared(t)
	var got [2]string
	for i, addr := range []string{r.Addr, o.Addr} {
		var out strings.Builder
		ctl := redistest.Dial(t, addr)
		ctl.Do("DEL", "netpath:l", "netpath:gone")

		// Pipelined behind a blocked BLPOP.
		a := redistest.Dial(t, addr)
		a.Write([]byte("BLPOP netpath:l 0\r\nPING\r\nECHO after\r\n"))
		waitInfo(t, ctl, "clients", "blocked_clients:1\r\n")
		ctl.Do("RPUSH", "netpath:l", "v1")
		for range 3 {
			out.Write(a.ReadRaw())
		}
		out.Write(a.DoRaw("ECHO", "still-served"))

		// Disconnect while blocked: the element is not lost.
		b := redistest.Dial(t, addr)
		b.Send("BLPOP", "netpath:gone", "0")
		waitInfo(t, ctl, "clients", "blocked_clients:1\r\n")
		b.Close()
		waitInfo(t, ctl, "clients", "blocked_clients:0\r\n")
		out.Write(ctl.DoRaw("RPUSH", "netpath:gone", "kept"))
		out.Write(ctl.DoRaw("LRANGE", "netpath:gone", "0", "-1"))

		// CLIENT KILL of a connection that waits for its next request.
		k := redistest.Dial(t, addr)
		id := k.Do("CLIENT", "ID").Int
		out.Write(ctl.DoRaw("CLIENT", "KILL", "ID", strconv.FormatInt(id, 10)))
		k.NetConn().SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := k.NetConn().Read(make([]byte, 16))
		fmt.Fprintf(&out, "killed read: n=%d closed=%v\n", n, err != nil && !isTimeout(err))
		ctl.Do("DEL", "netpath:l", "netpath:gone")
		got[i] = out.String()
	}
	if got[0] != got[1] {
		t.Fatalf("\n redis: %q\n  ordo: %q", got[0], got[1])
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(interface{ Timeout() bool })
	return ok && ne.Timeout()
}

// TestNetPathIdleTimeoutMatchesRedis: with timeout 1 an idle client is
// closed, after the replies to what it sent.
func TestNetPathIdleTimeoutMatchesRedis(t *testing.T) {
	r := redistest.StartRedis(t, "--timeout", "1")
	o := redistest.StartOrdo(t, "timeout", "1")
	for _, addr := range []string{r.Addr, o.Addr} {
		out := exchange(t, addr, []byte("PING\r\n"), false, 10*time.Second)
		if string(out.reply) != "+PONG\r\n" || !out.closed {
			t.Errorf("%s: idle client: %v", addr, out)
		}
	}
}
