package server_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// outcome is what a client observes after sending some bytes: the bytes
// received and whether the server closed the connection.
type outcome struct {
	reply  []byte
	closed bool
}

func (o outcome) String() string { return fmt.Sprintf("%q closed=%v", o.reply, o.closed) }

// exchange sends data in one write and reads until the server closes the
// connection or stays silent for quiet. With halfClose the client shuts
// down its sending side after data, so a server that is waiting for the
// rest of a request sees EOF and closes: no waiting for quiet then.
func exchange(t testing.TB, addr string, data []byte, halfClose bool, quiet time.Duration) outcome {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(data); err != nil && !isReset(err) {
		t.Fatal(err)
	}
	if halfClose {
		c.(*net.TCPConn).CloseWrite()
		quiet = 10 * time.Second
	}
	var out outcome
	buf := make([]byte, 64*1024)
	for {
		c.SetReadDeadline(time.Now().Add(quiet))
		n, err := c.Read(buf)
		out.reply = append(out.reply, buf[:n]...)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				if halfClose {
					t.Fatalf("server neither replied nor closed after EOF; got %q", out.reply)
				}
				return out
			}
			out.closed = true // EOF or reset: either way the server closed it
			return out
		}
	}
}

func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// both runs exchange against Redis and Ordo concurrently.
func both(t testing.TB, redisAddr, ordoAddr string, data []byte, halfClose bool, quiet time.Duration) (redis, ordo outcome) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		redis = exchange(t, redisAddr, data, halfClose, quiet)
	}()
	ordo = exchange(t, ordoAddr, data, halfClose, quiet)
	wg.Wait()
	return
}

type protoCase struct {
	name string
	data string
	want string // Redis's reply, checked too (documents the behaviour); "" = no reply
	open bool   // the connection stays open (Redis waits or carries on)
}

var protocolCases = []protoCase{
	{"empty query", "\r\n", "", true},
	{"bare CRLFs then ping", "\r\n\r\nPING\r\n", "+PONG\r\n", true},
	{"bare LFs then inline ping", "\n\nPING\n", "+PONG\r\n", true},
	{"negative multibulk length", "*-10\r\nPING\r\n", "+PONG\r\n", true},
	{"zero multibulk length", "*0\r\n*1\r\n$4\r\nPING\r\n", "+PONG\r\n", true},
	{"multibulk INT_MAX waits", "*2147483647\r\n", "", true},
	{"multibulk over INT_MAX", "*2147483648\r\n", "-ERR Protocol error: invalid multibulk length\r\n", false},
	{"multibulk 3e9", "*3000000000\r\n", "-ERR Protocol error: invalid multibulk length\r\n", false},
	{"multibulk not a number", "*x\r\n", "-ERR Protocol error: invalid multibulk length\r\n", false},
	{"multibulk empty count", "*\r\n", "-ERR Protocol error: invalid multibulk length\r\n", false},
	{"multibulk plus sign", "*+1\r\n$4\r\nPING\r\n", "-ERR Protocol error: invalid multibulk length\r\n", false},
	{"multibulk leading zero", "*01\r\n$4\r\nPING\r\n", "-ERR Protocol error: invalid multibulk length\r\n", false},
	{"multibulk minus zero", "*-0\r\n", "-ERR Protocol error: invalid multibulk length\r\n", false},
	{"multibulk count with space", "*1 \r\n", "-ERR Protocol error: invalid multibulk length\r\n", false},
	{"multibulk count without LF yet", "*1\r", "", true},
	{"expected dollar", "*3\r\n$3\r\nSET\r\n$1\r\nx\r\nfooz\r\n", "-ERR Protocol error: expected '$', got 'f'\r\n", false},
	{"expected dollar waits for CRLF", "*1\r\nfoo", "", true},
	{"expected dollar got CR", "*1\r\n\r\n", "-ERR Protocol error: expected '$', got ' '\r\n", false},
	{"expected dollar got colon", "*1\r\n:1\r\n", "-ERR Protocol error: expected '$', got ':'\r\n", false},
	{"negative bulk length", "*1\r\n$-1\r\n", "-ERR Protocol error: invalid bulk length\r\n", false},
	{"bulk length not a number", "*1\r\n$x\r\n", "-ERR Protocol error: invalid bulk length\r\n", false},
	{"bulk length plus sign", "*1\r\n$+4\r\nPING\r\n", "-ERR Protocol error: invalid bulk length\r\n", false},
	{"bulk length over 512mb", "*1\r\n$536870913\r\n", "-ERR Protocol error: invalid bulk length\r\n", false},
	{"bulk length 512mb waits", "*1\r\n$536870912\r\nabc", "", true},
	{"bulk length huge", "*1\r\n$9223372036854775807\r\n", "-ERR Protocol error: invalid bulk length\r\n", false},
	{"bulk length overflow", "*1\r\n$99999999999999999999\r\n", "-ERR Protocol error: invalid bulk length\r\n", false},
	{"bulk payload without CRLF is taken by length", "*2\r\n$4\r\nECHO\r\n$1\r\nabcd\r\n", "$1\r\na\r\n-ERR unknown command 'd', with args beginning with: \r\n", true},
	{"zero length bulk", "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", "$0\r\n\r\n", true},
	{"replies before the error", "PING\r\n*1\r\n$4\r\nPING\r\n*1\r\nx\r\n", "+PONG\r\n+PONG\r\n-ERR Protocol error: expected '$', got 'x'\r\n", false},
	{"nothing after the error", "*1\r\n$x\r\nPING\r\n", "-ERR Protocol error: invalid bulk length\r\n", false},
	{"NUL in inline line waits", "PING\x00\r\n", "", true},
	{"NUL in count line waits", "*1\x00\r\n$4\r\nPING\r\n", "", true},
	{"NUL in bulk payload", "*2\r\n$4\r\nECHO\r\n$3\r\na\x00b\r\n", "$3\r\na\x00b\r\n", true},
	{"inline unbalanced double quote", "set a \"b\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n", false},
	{"inline unbalanced single quote", "ECHO 'b\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n", false},
	{"inline closing quote followed by text", "GET \"a\"b\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n", false},
	{"inline double quote escapes", "ECHO \"a\\n\\r\\t\\b\\a\\\\\\\"\\x41\\x4g\\q\"\r\n", "$13\r\na\n\r\t\b\a\\\"Ax4gq\r\n", true},
	{"inline single quote escapes", "ECHO 'it\\'s \\n'\r\n", "$7\r\nit's \\n\r\n", true},
	{"inline empty quoted arg", "ECHO \"\"\r\n", "$0\r\n\r\n", true},
	{"inline quote inside token", "ECHO ab\"c d\"\r\n", "$5\r\nabc d\r\n", true},
	{"inline tabs and spaces", "  ECHO\t\t x  \r\n", "$1\r\nx\r\n", true},
	{"inline vertical tab is not a separator", "ECHO a\vb\r\n", "$3\r\na\vb\r\n", true},
	{"inline LF only", "ECHO x\nPING\n", "$1\r\nx\r\n+PONG\r\n", true},
	{"inline CR in the middle", "ECHO a\rb\r\n", "-ERR wrong number of arguments for 'echo' command\r\n", true},
	{"inline whitespace only", "   \t \r\nPING\r\n", "+PONG\r\n", true},
	{"inline hex escape at end", "ECHO \"\\x4\"\r\n", "$2\r\nx4\r\n", true},
	{"inline backslash at end of quotes", "ECHO \"a\\\"\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n", false},
	{"mixed inline and multibulk", "PING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\nECHO there\r\n", "+PONG\r\n$2\r\nhi\r\n$5\r\nthere\r\n", true},
	{"dollar first is inline", "$4\r\n", "-ERR unknown command '$4', with args beginning with: \r\n", true},
	{"bulk line without LF yet", "*1\r\n$4\r", "", true},
	{"CR not followed by LF in count line", "*1\rx$4\r\nPING\r\n", "+PONG\r\n", true},
}

func TestProtocolErrorsMatchRedis(t *testing.T) {
	r, o := redistest.Shared(t)
	for _, tc := range protocolCases {
		t.Run(tc.name, func(t *testing.T) {
			rd, od := both(t, r.Addr, o.Addr, []byte(tc.data), false, 250*time.Millisecond)
			if string(rd.reply) != tc.want || rd.closed == tc.open {
				t.Errorf("%q: the table disagrees with redis-server: redis %v", tc.data, rd)
			}
			if !bytes.Equal(rd.reply, od.reply) || rd.closed != od.closed {
				t.Errorf("%q:\n redis: %v\n  ordo: %v", tc.data, rd, od)
			}
		})
	}
}

// TestProtocolLongLines covers the 64 KB limits on lines that never end.
func TestProtocolLongLines(t *testing.T) {
	r, o := redistest.Shared(t)
	cases := []struct{ name, data, want string }{
		{"too big inline request", strings.Repeat("A", 200000), "-ERR Protocol error: too big inline request\r\n"},
		{"too big mbulk count string", "*" + strings.Repeat("1", 70000), "-ERR Protocol error: too big mbulk count string\r\n"},
		{"too big bulk count string", "*1\r\n$" + strings.Repeat("1", 70000), "-ERR Protocol error: too big bulk count string\r\n"},
		{"NUL keeps an inline line open until the limit", "PING\x00\r\n" + strings.Repeat("A", 70000), "-ERR Protocol error: too big inline request\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rd, od := both(t, r.Addr, o.Addr, []byte(tc.data), false, 500*time.Millisecond)
			if string(rd.reply) != tc.want || !rd.closed {
				t.Errorf("table disagrees with redis-server: %v", rd)
			}
			if !bytes.Equal(rd.reply, od.reply) || rd.closed != od.closed {
				t.Errorf("\n redis: %v\n  ordo: %v", rd, od)
			}
		})
	}
}

// TestProtocolUnauthenticatedLimits: with requirepass, a client that has
// not authenticated may send at most 10 arguments of at most 16384 bytes.
func TestProtocolUnauthenticatedLimits(t *testing.T) {
	r := redistest.StartRedis(t, "--requirepass", "pw")
	o := redistest.StartOrdo(t, "requirepass", "pw")
	cases := []struct{ name, data string }{
		{"11 args", "*11\r\n"},
		{"10 args waits", "*10\r\n"},
		{"bulk 16385", "*1\r\n$16385\r\n"},
		{"bulk 16384 waits", "*1\r\n$16384\r\n"},
		{"NOAUTH", "PING\r\n"},
		{"invalid checked before unauthenticated", "*1\r\n$-5\r\n"},
		{"AUTH in the same write lifts the limits", "*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n*12\r\n$4\r\nECHO\r\n" + strings.Repeat("$1\r\nx\r\n", 11)},
		{"AUTH then big bulk", "AUTH pw\r\n*2\r\n$4\r\nECHO\r\n$20000\r\n" + strings.Repeat("x", 20000) + "\r\n"},
		{"wrong AUTH keeps the limits", "AUTH nope\r\n*11\r\n"},
		{"inline has no argument limit", "ECHO a b c d e f g h i j k l\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rd, od := both(t, r.Addr, o.Addr, []byte(tc.data), false, 250*time.Millisecond)
			if !bytes.Equal(rd.reply, od.reply) || rd.closed != od.closed {
				t.Errorf("%q:\n redis: %v\n  ordo: %v", tc.data, rd, od)
			}
		})
	}
}

// TestProtocolMaxBulkLenConfig: proto-max-bulk-len bounds a bulk length.
func TestProtocolMaxBulkLenConfig(t *testing.T) {
	r := redistest.StartRedis(t, "--proto-max-bulk-len", "1048576")
	o := redistest.StartOrdo(t, "proto-max-bulk-len", "1048576")
	for _, data := range []string{"*1\r\n$1048577\r\n", "*1\r\n$1048576\r\n"} {
		rd, od := both(t, r.Addr, o.Addr, []byte(data), false, 250*time.Millisecond)
		if !bytes.Equal(rd.reply, od.reply) || rd.closed != od.closed {
			t.Errorf("%q:\n redis: %v\n  ordo: %v", data, rd, od)
		}
	}
}

// TestProtocolRandomDiff sends the same random, mostly well-formed
// protocol fragments to Redis and to Ordo and compares everything each
// client receives before the connection closes. The client half-closes
// after sending, so an incomplete request ends in EOF on both sides.
func TestProtocolRandomDiff(t *testing.T) {
	r, o := redistest.Shared(t)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 7))
	n := 300
	if testing.Short() {
		n = 50
	}
	for i := 0; i < n; i++ {
		data := randomRequestBytes(rng, false)
		rd, od := both(t, r.Addr, o.Addr, data, true, 0)
		if !bytes.Equal(rd.reply, od.reply) {
			t.Fatalf("seed %d case %d: %q:\n redis: %v\n  ordo: %v", seed, i, data, rd, od)
		}
	}
	// With requirepass: the unauthenticated limits, and AUTH lifting them
	// in the middle of a pipeline.
	ra := redistest.StartRedis(t, "--requirepass", "pw")
	oa := redistest.StartOrdo(t, "requirepass", "pw")
	for i := 0; i < n/3; i++ {
		data := randomRequestBytes(rng, true)
		rd, od := both(t, ra.Addr, oa.Addr, data, true, 0)
		if !bytes.Equal(rd.reply, od.reply) {
			t.Fatalf("requirepass seed %d case %d: %q:\n redis: %v\n  ordo: %v", seed, i, data, rd, od)
		}
	}
}

// randomRequestBytes builds a few requests of PING/ECHO, inline and
// multibulk, with random corruptions.
func randomRequestBytes(rng *rand.Rand, auth bool) []byte {
	var b []byte
	pieces := []string{"\r\n", "\n", "\r", "\x00", " ", "\t", "\"", "'", "\\", "\\x41", "$", "*", ":", "-1", "0", "99", "a"}
	for k := rng.IntN(4) + 1; k > 0; k-- {
		args := []string{[]string{"ECHO", "PING", "echo", "ping"}[rng.IntN(4)]}
		nargs := rng.IntN(3)
		if auth {
			switch rng.IntN(4) {
			case 0:
				args = []string{"AUTH", "pw"}
			case 1:
				args = []string{"AUTH", "nope"}
			case 2:
				nargs = 8 + rng.IntN(6) // around the limit of 10 arguments
			}
		}
		for j := nargs; j > 0; j-- {
			var a []byte
			for m := rng.IntN(4); m > 0; m-- {
				a = append(a, pieces[rng.IntN(len(pieces))]...)
			}
			args = append(args, string(a))
		}
		var req []byte
		if rng.IntN(2) == 0 {
			req = fmt.Appendf(nil, "*%d\r\n", len(args))
			for _, a := range args {
				req = fmt.Appendf(req, "$%d\r\n%s\r\n", len(a), a)
			}
		} else {
			for j, a := range args {
				if j > 0 {
					req = append(req, ' ')
				}
				if rng.IntN(2) == 0 {
					req = append(req, strconv.Quote(a)...)
				} else {
					req = append(req, a...)
				}
			}
			req = append(req, "\r\n"...)
		}
		// Corrupt: replace, insert or delete a few bytes.
		for c := rng.IntN(3); c > 0 && len(req) > 0; c-- {
			p := rng.IntN(len(req))
			switch rng.IntN(3) {
			case 0:
				req[p] = pieces[rng.IntN(len(pieces))][0]
			case 1:
				req = append(req[:p], append([]byte(pieces[rng.IntN(len(pieces))]), req[p:]...)...)
			case 2:
				req = append(req[:p], req[p+1:]...)
			}
		}
		b = append(b, req...)
	}
	return b
}

// TestPipelineDepth: 10,000 commands in one write, replies in order.
func TestPipelineDepth(t *testing.T) {
	o := redistest.StartOrdo(t)
	c := redistest.Dial(t, o.Addr)
	const n = 10000
	var req, want []byte
	for i := 0; i < n; i++ {
		s := strconv.Itoa(i)
		switch i % 3 {
		case 0:
			req = fmt.Appendf(req, "*2\r\n$4\r\nECHO\r\n$%d\r\n%s\r\n", len(s), s)
			want = fmt.Appendf(want, "$%d\r\n%s\r\n", len(s), s)
		case 1:
			req = fmt.Appendf(req, "PING %s\r\n\r\n", s) // inline, then a bare CRLF
			want = fmt.Appendf(want, "$%d\r\n%s\r\n", len(s), s)
		case 2:
			req = append(req, "*1\r\n$4\r\nPING\r\n"...)
			want = append(want, "+PONG\r\n"...)
		}
	}
	go c.NetConn().Write(req) // the server may reply before we finish writing
	c.NetConn().SetReadDeadline(time.Now().Add(20 * time.Second))
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c.NetConn(), got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && got[i] == want[i] {
			i++
		}
		t.Fatalf("replies differ at byte %d: got %q want %q", i, got[i:min(i+40, len(got))], want[i:min(i+40, len(want))])
	}
	// The connection is still usable.
	if v := c.Do("PING"); v.Str != "PONG" {
		t.Fatalf("PING after the pipeline: %v", v)
	}
}

// TestPipelineSplitEverywhere: a pipeline delivered one byte at a time
// gives the same replies as one delivered at once.
func TestPipelineSplitEverywhere(t *testing.T) {
	o := redistest.StartOrdo(t)
	req := "*2\r\n$4\r\nECHO\r\n$5\r\nhe\r\no\r\nPING\r\n\r\nECHO \"a b\"\n*1\r\n$4\r\nPING\r\n"
	want := "$5\r\nhe\r\no\r\n+PONG\r\n$3\r\na b\r\n+PONG\r\n"
	c := redistest.Dial(t, o.Addr)
	for i := 0; i < len(req); i++ {
		c.Write([]byte{req[i]})
		time.Sleep(time.Millisecond)
	}
	c.NetConn().SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c.NetConn(), got); err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

// TestDoubleRepliesMatchRedis: scores come back formatted exactly as
// Redis formats doubles (%.17g), in RESP2 and RESP3, for the values of
// internal/resp/testdata/double_17g.txt.
func TestDoubleRepliesMatchRedis(t *testing.T) {
	d := redistest.NewDiff(t)
	b, err := os.ReadFile("../resp/testdata/double_17g.txt")
	if err != nil {
		t.Fatal(err)
	}
	var scores []string
	for _, line := range strings.Split(string(b), "\n") {
		hex, _, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		bits, _ := strconv.ParseUint(hex, 16, 64)
		scores = append(scores, strconv.FormatFloat(math.Float64frombits(bits), 'g', -1, 64))
	}
	scores = append(scores, "inf", "-inf", "+inf", "1e400", "0x10", "1.5e-310")
	for i, s := range scores {
		m := "m" + strconv.Itoa(i)
		d.Do("ZADD", "z", s, m)
		d.Do("ZSCORE", "z", m)
	}
	d.Do("ZINCRBY", "z", "0.1", "m1")
	d.Do("ZRANGE", "z", "0", "20", "WITHSCORES")
	d.Both("HELLO", "3")
	for i := range scores {
		d.Do("ZSCORE", "z", "m"+strconv.Itoa(i))
	}
	d.Do("ZRANGE", "z", "0", "20", "WITHSCORES")
}
