package server_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// TestGarbageLeavesOthersServed: while connections pour random bytes and
// broken requests into the server, other clients keep getting exactly
// the replies they asked for, and the server keeps accepting.
func TestGarbageLeavesOthersServed(t *testing.T) {
	o := redistest.StartOrdo(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var garbageConns atomic.Int64
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 1))
			prefixes := []string{"", "*", "*3\r\n", "*1\r\n$", "*2\r\n$4\r\nECHO\r\n$999999\r\n", "ECHO \"", "\r\n"}
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.Dial("tcp", o.Addr)
				if err != nil {
					t.Error(err)
					return
				}
				garbageConns.Add(1)
				junk := []byte(prefixes[rng.IntN(len(prefixes))])
				for n := rng.IntN(20000); n > 0; n-- {
					junk = append(junk, byte(rng.IntN(256)))
				}
				c.SetDeadline(time.Now().Add(50 * time.Millisecond))
				c.Write(junk)
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						break
					}
				}
				c.Close()
			}
		}(uint64(g))
	}
	var good atomic.Int64
	for k := 0; k < 4; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			c, err := net.Dial("tcp", o.Addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			br := bufio.NewReader(c)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				// A small pipeline of distinct requests, replies checked in order.
				var req []byte
				var want []string
				for j := 0; j < 8; j++ {
					s := fmt.Sprintf("c%d-%d-%d", k, i, j)
					req = resp.AppendCommand(req, "ECHO", s)
					want = append(want, s)
				}
				req = append(req, "PING\r\n"...)
				want = append(want, "PONG")
				c.SetDeadline(time.Now().Add(5 * time.Second))
				if _, err := c.Write(req); err != nil {
					t.Errorf("client %d: %v", k, err)
					return
				}
				for _, w := range want {
					raw, err := resp.ReadRawReply(br, nil)
					if err != nil {
						t.Errorf("client %d: %v", k, err)
						return
					}
					v, _, _ := resp.ParseReply(raw)
					if v.Str != w {
						t.Errorf("client %d: got %v, want %q", k, v, w)
						return
					}
					good.Add(1)
				}
			}
		}(k)
	}
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	if good.Load() < 1000 || garbageConns.Load() < 10 {
		t.Fatalf("too little traffic: %d good replies, %d garbage connections", good.Load(), garbageConns.Load())
	}
	c := redistest.Dial(t, o.Addr)
	if v := c.Do("PING"); v.Str != "PONG" {
		t.Fatalf("PING after the storm: %v", v)
	}
	t.Logf("%d good replies alongside %d garbage connections", good.Load(), garbageConns.Load())
}

// TestHugeDeclaredLengthsDoNotAllocate: lengths declared up to the limits
// but never sent must not make the server's memory jump.
func TestHugeDeclaredLengthsDoNotAllocate(t *testing.T) {
	o := redistest.StartOrdo(t)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var conns []net.Conn
	for i := 0; i < 10; i++ {
		c, err := net.Dial("tcp", o.Addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if i%2 == 0 {
			c.Write([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$536870912\r\nabc"))
		} else {
			c.Write([]byte("*2147483647\r\n$1\r\na\r\n$1\r\nb\r\n"))
		}
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	time.Sleep(300 * time.Millisecond)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 32<<20 {
		t.Fatalf("heap grew by %d MB for requests that declared sizes they never sent", grown>>20)
	}
	// A declared length over proto-max-bulk-len is refused at once.
	c := redistest.Dial(t, o.Addr)
	c.Write([]byte("*1\r\n$" + strconv.Itoa(512<<20+1) + "\r\n"))
	if raw := c.ReadRaw(); string(raw) != "-ERR Protocol error: invalid bulk length\r\n" {
		t.Fatalf("got %q", raw)
	}
	// The server is still serving.
	if v := redistest.Dial(t, o.Addr).Do("PING"); v.Str != "PONG" {
		t.Fatalf("PING: %v", v)
	}
}

// TestSlowReaderDoesNotBlockOthers: a client that pipelines many big
// replies and never reads them stalls only itself.
func TestSlowReaderDoesNotBlockOthers(t *testing.T) {
	o := redistest.StartOrdo(t)
	c := redistest.Dial(t, o.Addr)
	c.Do("SET", "big", string(make([]byte, 64<<10)))
	slow, err := net.Dial("tcp", o.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	var req []byte
	for i := 0; i < 2000; i++ { // 128 MB of replies it will never read
		req = resp.AppendCommand(req, "GET", "big")
	}
	go slow.Write(req)
	time.Sleep(200 * time.Millisecond)
	other := redistest.Dial(t, o.Addr)
	start := time.Now()
	for i := 0; i < 100; i++ {
		if v := other.Do("SET", "k", strconv.Itoa(i)); v.Str != "OK" {
			t.Fatalf("SET: %v", v)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("100 commands took %v while a client was not reading", d)
	}
}

// TestMaxClients: the connection over maxclients gets Redis's error and is closed.
func TestMaxClients(t *testing.T) {
	r := redistest.StartRedis(t, "--maxclients", "2")
	o := redistest.StartOrdo(t, "maxclients", "2")
	for _, addr := range []string{r.Addr, o.Addr} {
		name := map[bool]string{true: "redis", false: "ordo"}[addr == r.Addr]
		a := redistest.Dial(t, addr)
		b := redistest.Dial(t, addr)
		a.Do("PING")
		b.Do("PING")
		out := exchange(t, addr, []byte("PING\r\n"), false, time.Second)
		if string(out.reply) != "-ERR max number of clients reached\r\n" || !out.closed {
			t.Errorf("%s %s: third client got %v", name, addr, out)
		}
		b.Close()
		time.Sleep(100 * time.Millisecond)
		if out := exchange(t, addr, []byte("PING\r\n"), false, 200*time.Millisecond); string(out.reply) != "+PONG\r\n" {
			t.Errorf("%s: after one left: %v", addr, out)
		}
	}
}

// TestNetInputCounted: INFO's total_net_input_bytes counts request bytes.
func TestNetInputCounted(t *testing.T) {
	o := redistest.StartOrdo(t)
	c := redistest.Dial(t, o.Addr)
	c.Do("ECHO", string(make([]byte, 10000)))
	if n := o.Engine.Stats.NetInput.Load(); n < 10000 {
		t.Fatalf("total_net_input_bytes = %d after a 10 KB request", n)
	}
}
