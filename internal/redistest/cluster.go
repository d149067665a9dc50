package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// Cluster is a Redis Cluster of redis-server child processes on loopback
// ports: Masters[i] serves the slots of the i-th third of 0..16383. It has
// no replicas (the tests need placement and routing, not failover).
type Cluster struct {
	Masters []*Redis
	dir     string
}

// Addrs returns the masters' addresses (seeds for a cluster client).
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Masters))
	for i, m := range c.Masters {
		out[i] = m.Addr
	}
	return out
}

// Stop kills every node and removes their directories.
func (c *Cluster) Stop() {
	for _, m := range c.Masters {
		m.Stop()
	}
	os.RemoveAll(c.dir)
}

var sharedCluster *Cluster

// StartCluster starts a private cluster of n masters and waits until every
// node reports cluster_state:ok and knows every slot's owner. It is
// stopped when the test ends. Like RequireRedis, it fails in CI and skips
// elsewhere when redis-server is missing.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	c, err := startCluster(t, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}

// SharedCluster returns one 3-master cluster for the whole test binary
// (started on first use, stopped by Main). Tests using it must not run in
// parallel and must empty it themselves (FLUSHALL on every master).
func SharedCluster(t testing.TB) *Cluster {
	t.Helper()
	RequireRedis(t)
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedCluster == nil {
		c, err := startCluster(t, 3)
		if err != nil {
			t.Fatal(err)
		}
		sharedCluster = c
	}
	return sharedCluster
}

// stopSharedCluster is called by Main with sharedMu held.
func stopSharedCluster() {
	if sharedCluster != nil {
		sharedCluster.Stop()
		sharedCluster = nil
	}
}

func startCluster(t testing.TB, n int) (*Cluster, error) {
	path := RequireRedis(t)
	dir, err := os.MkdirTemp("", "redistest-cluster")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir}
	ok := false
	defer func() {
		if !ok {
			c.Stop()
		}
	}()
	busPorts := make([]int, n)
	for i := 0; i < n; i++ {
		node, bus, err := startClusterNode(path, filepath.Join(dir, strconv.Itoa(i)))
		if err != nil {
			return nil, err
		}
		c.Masters = append(c.Masters, node)
		busPorts[i] = bus
	}
	conns := make([]*rawConn, n)
	for i, m := range c.Masters {
		rc, err := dialRaw(m.Addr)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		conns[i] = rc
	}
	// Slots: contiguous thirds, as redis-cli --cluster create assigns them.
	for i := range n {
		lo, hi := i*16384/n, (i+1)*16384/n-1
		if _, err := conns[i].do("CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(lo), strconv.Itoa(hi)); err != nil {
			return nil, fmt.Errorf("redistest: ADDSLOTSRANGE on %s: %v", c.Masters[i].Addr, err)
		}
	}
	for i := 1; i < n; i++ {
		host, port, _ := net.SplitHostPort(c.Masters[i].Addr)
		if _, err := conns[0].do("CLUSTER", "MEET", host, port, strconv.Itoa(busPorts[i])); err != nil {
			return nil, fmt.Errorf("redistest: CLUSTER MEET: %v", err)
		}
	}
	// Ready when every node says ok and maps every slot range to n masters.
	deadline := time.Now().Add(20 * time.Second)
	for {
		ready := true
		for _, rc := range conns {
			info, err := rc.do("CLUSTER", "INFO")
			if err != nil || !strings.Contains(info.Str, "cluster_state:ok") || !strings.Contains(info.Str, "cluster_known_nodes:"+strconv.Itoa(n)+"\r\n") {
				ready = false
				break
			}
			slots, err := rc.do("CLUSTER", "SLOTS")
			if err != nil || len(slots.Elems) != n {
				ready = false
				break
			}
		}
		if ready {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("redistest: cluster of %d nodes not ok after 20s", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	ok = true
	return c, nil
}

func startClusterNode(path, dir string) (*Redis, int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	for attempt := 0; attempt < 5; attempt++ {
		port, bus, err := twoFreePorts()
		if err != nil {
			return nil, 0, err
		}
		args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "no", "--dir", dir, "--daemonize", "no", "--logfile", "",
			"--enable-debug-command", "yes",
			"--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(bus),
			"--cluster-config-file", filepath.Join(dir, "nodes.conf"),
			"--cluster-node-timeout", "5000", "--cluster-require-full-coverage", "yes"}
		cmd := exec.Command(path, args...)
		SetPdeathsig(cmd)
		if err := cmd.Start(); err != nil {
			return nil, 0, err
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		if waitListening(addr, 3*time.Second) && listenerPID(addr, nil) == cmd.Process.Pid {
			// The node's dir is removed with the cluster's.
			return &Redis{Addr: addr, cmd: cmd}, bus, nil
		}
		cmd.Process.Kill()
		cmd.Wait()
		os.Remove(filepath.Join(dir, "nodes.conf"))
	}
	return nil, 0, fmt.Errorf("redistest: cluster node did not start")
}

func twoFreePorts() (int, int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, 0, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports[0], ports[1], nil
}

// rawConn is a minimal RESP connection that needs no testing.TB.
type rawConn struct {
	c  net.Conn
	br *bufio.Reader
}

func dialRaw(addr string) (*rawConn, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return &rawConn{c: c, br: bufio.NewReader(c)}, nil
}

func (r *rawConn) Close() { r.c.Close() }

func (r *rawConn) do(args ...string) (resp.Value, error) {
	r.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.c.Write(resp.AppendCommand(nil, args...)); err != nil {
		return resp.Value{}, err
	}
	raw, err := resp.ReadRawReply(r.br, nil)
	if err != nil {
		return resp.Value{}, err
	}
	v, _, err := resp.ParseReply(raw)
	if err != nil {
		return v, err
	}
	if v.Kind == resp.KindError {
		return v, fmt.Errorf("%s", v.Str)
	}
	return v, nil
}
