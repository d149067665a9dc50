package aof_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// client is a minimal RESP client that reports I/O errors instead of
// failing the test (the server gets killed under it).
type client struct {
	c  net.Conn
	br *bufio.Reader
}

func dial(addr string) (*client, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return nil, err
	}
	return &client{c: c, br: bufio.NewReader(c)}, nil
}

func (c *client) do(args ...string) (resp.Value, error) {
	c.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.c.Write(resp.AppendCommand(nil, args...)); err != nil {
		return resp.Value{}, err
	}
	return resp.ReadReply(c.br)
}

type server struct {
	cmd  *exec.Cmd
	addr string
	log  *os.File
}

func startServer(t *testing.T, bin, dir string, extra ...string) *server {
	t.Helper()
	port := redistest.FreePort(t)
	logf, err := os.OpenFile(filepath.Join(dir, "server.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	redistest.SetPdeathsig(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, addr: fmt.Sprintf("127.0.0.1:%d", port), log: logf}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := dial(s.addr); err == nil {
			v, err := c.do("PING")
			c.c.Close()
			if err == nil && v.Str == "PONG" {
				return s
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			t.Fatalf("ordo-server did not start:\n%s", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *server) stop(sig os.Signal) {
	s.cmd.Process.Signal(sig)
	s.cmd.Wait()
	s.log.Close()
}

// buildServer compiles ordo-server into a temporary directory.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ordo-server")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/ordo-server").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// worker state: what was issued and what was acknowledged.
type crashWorker struct {
	id         int
	cntAcked   int64 // last acknowledged INCR result
	cntIssued  int64 // highest value an issued INCR could have produced
	setAcked   []int // acknowledged SET k:w:i
	nextSet    int
	listAcked  int // acknowledged RPUSH count (elements 0..n-1)
	listIssued int
}

// TestCrashAlwaysLosesNoAcknowledgedWrite kills ordo-server (appendfsync
// always) with SIGKILL at random moments under four concurrent writers,
// restarts it and checks that every acknowledged write is there, that
// nothing unissued appeared, and that transactions are whole.
func TestCrashAlwaysLosesNoAcknowledgedWrite(t *testing.T) { crashLosesNothing(t, "always") }

// TestCrashEverysecLosesNoAcknowledgedWrite is the same under appendfsync
// everysec, which writes (without fsync) before replying: a killed
// process loses nothing acknowledged either, through rewrites and their
// file switches too (the soak's setting).
func TestCrashEverysecLosesNoAcknowledgedWrite(t *testing.T) { crashLosesNothing(t, "everysec") }

func crashLosesNothing(t *testing.T, fsync string) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	start := time.Now()
	bin := buildServer(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	const nworkers = 4
	workers := make([]*crashWorker, nworkers)
	for i := range workers {
		workers[i] = &crashWorker{id: i}
	}
	srv := startServer(t, bin, dir, "--appendfsync", fsync)
	hasList := true
	if c, err := dial(srv.addr); err == nil {
		v, _ := c.do("RPUSH", "probe", "x")
		hasList = v.Kind != resp.KindError
		c.do("DEL", "probe")
		c.c.Close()
	}
	totalAcked := 0
	for iter := 0; iter < 10 && time.Since(start) < 40*time.Second; iter++ {
		var wg sync.WaitGroup
		acked := make([]int, nworkers)
		for _, w := range workers {
			wg.Add(1)
			go func(w *crashWorker) {
				defer wg.Done()
				c, err := dial(srv.addr)
				if err != nil {
					return
				}
				defer c.c.Close()
				rr := rand.New(rand.NewPCG(uint64(w.id), uint64(iter)))
				for {
					var err error
					switch op := rr.IntN(4); {
					case op == 0:
						w.cntIssued++
						var v resp.Value
						if v, err = c.do("INCR", fmt.Sprintf("cnt:%d", w.id)); err == nil {
							if v.Int != w.cntIssued {
								t.Errorf("INCR cnt:%d = %d, want %d", w.id, v.Int, w.cntIssued)
								return
							}
							w.cntAcked = v.Int
						}
					case op == 1:
						i := w.nextSet
						w.nextSet++
						var v resp.Value
						if v, err = c.do("SET", fmt.Sprintf("k:%d:%d", w.id, i), strconv.Itoa(i)); err == nil && v.Str == "OK" {
							w.setAcked = append(w.setAcked, i)
						}
					case op == 2 && hasList:
						w.listIssued++
						var v resp.Value
						if v, err = c.do("RPUSH", fmt.Sprintf("l:%d", w.id), strconv.Itoa(w.listIssued-1)); err == nil {
							w.listAcked = int(v.Int)
						}
					default:
						for _, cmd := range [][]string{{"MULTI"}, {"INCR", fmt.Sprintf("a:%d", w.id)}, {"INCR", fmt.Sprintf("b:%d", w.id)}} {
							if _, err = c.do(cmd...); err != nil {
								break
							}
						}
						if err == nil {
							_, err = c.do("EXEC")
						}
					}
					if err != nil {
						return
					}
					acked[w.id]++
				}
			}(w)
		}
		if iter%2 == 1 {
			// Rewrites keep running, so that some kills land in the
			// middle of one or of its file switch.
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := dial(srv.addr)
				if err != nil {
					return
				}
				defer c.c.Close()
				rr := rand.New(rand.NewPCG(uint64(iter), 11))
				for {
					if _, err := c.do("BGREWRITEAOF"); err != nil {
						return
					}
					time.Sleep(time.Duration(rr.IntN(30)) * time.Millisecond)
				}
			}()
		}
		time.Sleep(time.Duration(150+r.IntN(600)) * time.Millisecond)
		last := iter == 9 || time.Since(start) > 35*time.Second
		if last {
			srv.stop(syscall.SIGTERM) // clean: snapshot
			bases, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.base.ordo"))
			incrs, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.ordo"))
			if len(bases) != 1 || len(incrs) != 1 {
				t.Fatalf("after SIGTERM: base files %v, incremental files %v; want one snapshot and one empty log", bases, incrs)
			}
			if tmps, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "temp-*")); len(tmps) > 0 {
				t.Fatalf("temporary files left: %v", tmps)
			}
			if st, err := os.Stat(incrs[0]); err != nil || st.Size() != 8 {
				t.Fatalf("after SIGTERM the log should be empty (snapshot): %v %v", st, err)
			}
		} else {
			srv.stop(syscall.SIGKILL)
		}
		wg.Wait()
		for _, n := range acked {
			totalAcked += n
		}
		srv = startServer(t, bin, dir, "--appendfsync", fsync)
		c, err := dial(srv.addr)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range workers {
			v, err := c.do("GET", fmt.Sprintf("cnt:%d", w.id))
			if err != nil {
				t.Fatal(err)
			}
			n, _ := strconv.ParseInt(v.Str, 10, 64)
			if n < w.cntAcked || n > w.cntIssued {
				t.Fatalf("iteration %d: cnt:%d = %d after restart, acknowledged %d, issued %d", iter, w.id, n, w.cntAcked, w.cntIssued)
			}
			w.cntAcked, w.cntIssued = n, n
			for i := 0; i < len(w.setAcked); i += 500 {
				args := []string{"MGET"}
				end := min(i+500, len(w.setAcked))
				for _, k := range w.setAcked[i:end] {
					args = append(args, fmt.Sprintf("k:%d:%d", w.id, k))
				}
				v, err := c.do(args...)
				if err != nil {
					t.Fatal(err)
				}
				for j, e := range v.Elems {
					if e.Str != strconv.Itoa(w.setAcked[i+j]) {
						t.Fatalf("iteration %d: acknowledged SET k:%d:%d lost (got %q)", iter, w.id, w.setAcked[i+j], e.Str)
					}
				}
			}
			if hasList {
				v, err := c.do("LRANGE", fmt.Sprintf("l:%d", w.id), "0", "-1")
				if err != nil {
					t.Fatal(err)
				}
				if len(v.Elems) < w.listAcked || len(v.Elems) > w.listIssued {
					t.Fatalf("iteration %d: l:%d has %d elements, acknowledged %d, issued %d", iter, w.id, len(v.Elems), w.listAcked, w.listIssued)
				}
				for j, e := range v.Elems {
					if e.Str != strconv.Itoa(j) {
						t.Fatalf("iteration %d: l:%d[%d] = %q: not a prefix of the pushes", iter, w.id, j, e.Str)
					}
				}
				w.listAcked, w.listIssued = len(v.Elems), len(v.Elems)
			}
			va, _ := c.do("GET", fmt.Sprintf("a:%d", w.id))
			vb, _ := c.do("GET", fmt.Sprintf("b:%d", w.id))
			if va.Str != vb.Str {
				t.Fatalf("iteration %d: transaction torn: a:%d=%q b:%d=%q", iter, w.id, va.Str, w.id, vb.Str)
			}
		}
		c.c.Close()
		if last {
			break
		}
	}
	srv.stop(syscall.SIGTERM)
	if totalAcked < 100 {
		t.Fatalf("only %d writes acknowledged: the test did not exercise the server", totalAcked)
	}
	t.Logf("%d acknowledged writes checked across kills (lists: %v) in %v", totalAcked, hasList, time.Since(start).Round(time.Millisecond))
}
