package load

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo/internal/redistest"
)

// testSlot checks the hash slot function against Redis's own answers
// (CLUSTER KEYSLOT on a cluster node), hash tags included.
func testSlot(t *testing.T, addr string) {
	c := redistest.Dial(t, addr)
	keys := []string{"", "a", "foo", "user:1000", "{user1000}.following", "{user1000}.followers",
		"foo{}{bar}", "foo{{bar}}zap", "foo{bar}{zap}", "{", "}", "{}", "\xff\x00binary", strings.Repeat("k", 300)}
	for i := 0; i < 200; i++ {
		keys = append(keys, "key:"+strconv.Itoa(i*7919))
	}
	for _, k := range keys {
		v := c.Do("CLUSTER", "KEYSLOT", k)
		if v.Kind != ':' {
			t.Fatalf("CLUSTER KEYSLOT: %v", v)
		}
		want := v.Int
		if got := Slot([]byte(k)); int64(got) != want {
			t.Errorf("Slot(%q) = %d, Redis says %d", k, got, want)
		}
	}
}

// TestLoadCluster loads into a 3-master Redis Cluster: with the slot map
// every command goes straight to its master (no MOVED), without it every
// MOVED is followed; either way every key is stored where the cluster
// serves it. A command whose keys span slots is an error and not sent.
func TestLoadCluster(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	t.Run("keyslot", func(t *testing.T) { testSlot(t, cl.Addrs()[0]) })
	t.Run("cli", func(t *testing.T) { testLoadClusterCLI(t, cl) })
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs()})
	defer cc.Close()
	ctx := context.Background()
	const n = 100000
	var in bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&in, "SET key:%d v%d\n", i, i)
	}
	in.WriteString("MSET {t}a 1 {t}b 2\n")                                        // one slot: fine
	in.WriteString("MSET x 1 y 2\n")                                              // two slots: refused here
	in.WriteString("EVAL \"return redis.call('set', KEYS[1], ARGV[1])\" 1 e 1\n") // keys from COMMAND GETKEYS
	in.WriteString("PING\n")                                                      // no key: any node

	for _, skip := range []bool{false, true} {
		t.Run(map[bool]string{false: "slot map", true: "following MOVED"}[skip], func(t *testing.T) {
			for _, a := range cl.Addrs() {
				redistest.Dial(t, a).Do("FLUSHALL")
			}
			var out, errb bytes.Buffer
			res, err := Run(ctx, bytes.NewReader(in.Bytes()), Options{Addr: cl.Addrs()[1], Cluster: true,
				skipSlotMap: skip, PipeTimeout: 30 * time.Second, Stdout: &out, Stderr: &errb})
			if err != nil {
				t.Fatalf("%v\n%s", err, errb.String())
			}
			if res.Commands != n+3 || res.Replies != n+3 || res.Errors != 1 {
				t.Errorf("commands %d, replies %d, errors %d; want %d, %d, 1", res.Commands, res.Replies, res.Errors, n+3, n+3)
			}
			if !strings.Contains(errb.String(), "CROSSSLOT") || strings.Count(errb.String(), "\n") != 1 {
				t.Errorf("stderr %q", errb.String())
			}
			if !strings.HasSuffix(out.String(), "errors: 1, replies: 100003\n") {
				t.Errorf("stdout %q", out.String())
			}
			if !skip && res.Redirects != 0 {
				t.Errorf("%d redirects with a fresh slot map", res.Redirects)
			}
			if skip && res.Redirects == 0 {
				t.Error("no redirect followed")
			}
			total := int64(0)
			for _, a := range cl.Addrs() {
				size := redistest.Dial(t, a).Do("DBSIZE").Int
				if size < n/5 {
					t.Errorf("master %s holds only %d keys", a, size)
				}
				total += size
			}
			if total != n+3 { // n SETs, {t}a, {t}b, e
				t.Errorf("%d keys stored, want %d", total, n+3)
			}
			for _, i := range []int{0, 1, 4242, n - 1} {
				if v, err := cc.Get(ctx, "key:"+strconv.Itoa(i)).Result(); err != nil || v != "v"+strconv.Itoa(i) {
					t.Errorf("key:%d = %q, %v", i, v, err)
				}
			}
			if v, _ := cc.Get(ctx, "e").Result(); v != "1" {
				t.Errorf("EVAL's key e = %q", v)
			}
			if v, _ := cc.Exists(ctx, "x", "y").Result(); v != 0 {
				t.Errorf("the cross-slot MSET was sent: %d keys exist", v)
			}
		})
	}
}

// testLoadClusterCLI runs `ordo load -c` as a user would.
func testLoadClusterCLI(t *testing.T, cl *redistest.Cluster) {
	host, port, _ := net.SplitHostPort(cl.Addrs()[0])
	var in strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&in, "SET k%d v\n", i)
	}
	var out, errb bytes.Buffer
	if code := LoadMain([]string{"-c", "-h", host, "-p", port}, strings.NewReader(in.String()), &out, &errb); code != 0 {
		t.Fatalf("status %d: %s", code, errb.String())
	}
	if !strings.HasSuffix(out.String(), "errors: 0, replies: 1000\n") {
		t.Fatalf("stdout %q", out.String())
	}
	if code := LoadMain([]string{"-c", "-n", "1", "-h", host, "-p", port}, strings.NewReader(""), &out, &errb); code == 0 {
		t.Fatal("-n 1 accepted with --cluster")
	}
}
