package repl_test

import (
	"bytes"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/rdb"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// fakeMaster is one connection from the replica, seen by a test playing
// the master.
type fakeMaster struct {
	t    *testing.T
	conn net.Conn
	rd   *resp.Reader
}

func (m *fakeMaster) expect(name string) [][]byte {
	m.t.Helper()
	m.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	args, err := m.rd.ReadCommand()
	if err != nil {
		m.t.Fatalf("fake master: waiting for %s: %v", name, err)
	}
	if !strings.EqualFold(string(args[0]), name) {
		m.t.Fatalf("fake master: got %q, want %s", args, name)
	}
	return args
}

func (m *fakeMaster) send(s string) {
	m.t.Helper()
	if _, err := m.conn.Write([]byte(s)); err != nil {
		m.t.Fatal(err)
	}
}

// handshake reads PING, REPLCONF listening-port, REPLCONF capa and
// PSYNC, and returns PSYNC's arguments.
func (m *fakeMaster) handshake() (string, string) {
	m.t.Helper()
	m.expect("PING")
	m.send("+PONG\r\n")
	if a := m.expect("REPLCONF"); string(a[1]) != "listening-port" {
		m.t.Fatalf("first REPLCONF: %q", a)
	}
	m.send("+OK\r\n")
	if a := m.expect("REPLCONF"); strings.Join(strings.Fields(string(bytes.Join(a[1:], []byte(" ")))), " ") != "capa eof capa psync2" {
		m.t.Fatalf("second REPLCONF: %q", a)
	}
	m.send("+OK\r\n")
	a := m.expect("PSYNC")
	return string(a[1]), string(a[2])
}

// ack waits for REPLCONF ACK <offset> (skipping the periodic ones with
// an older offset) and fails unless the offset is want.
func (m *fakeMaster) ack(want int64) {
	m.t.Helper()
	for {
		a := m.expect("REPLCONF")
		if string(a[1]) != "ACK" {
			m.t.Fatalf("expected REPLCONF ACK, got %q", a)
		}
		n, _ := strconv.ParseInt(string(a[2]), 10, 64)
		if n == want {
			return
		}
		if n > want {
			m.t.Fatalf("REPLCONF ACK %d, want %d", n, want)
		}
	}
}

func cmd(args ...string) string { return string(resp.AppendCommand(nil, args...)) }

// TestReplicaProtocol plays the master byte by byte: a diskless transfer
// with keepalive newlines before it, GETACK answered with the exact
// offset, and a link dropped inside MULTI resumed with PSYNC from the
// offset before the MULTI.
func TestReplicaProtocol(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	o := redistest.StartOrdo(t)
	replica := redistest.Dial(t, o.Addr)
	replica.Do("REPLICAOF", "127.0.0.1", port(ln.Addr().String()))
	accept := func() *fakeMaster {
		ln.(*net.TCPListener).SetDeadline(time.Now().Add(20 * time.Second))
		c, err := ln.Accept()
		if err != nil {
			t.Fatalf("the replica did not connect within 20s: %v", err)
		}
		t.Cleanup(func() { c.Close() })
		return &fakeMaster{t: t, conn: c, rd: resp.NewReader(c)}
	}
	m := accept()
	id, off := m.handshake()
	if len(id) != 40 || off != "1" {
		t.Fatalf("first PSYNC %s %s, want our own ID and offset 1", id, off)
	}
	replid := strings.Repeat("ab", 20)
	m.send("+FULLRESYNC " + replid + " 1000\r\n")
	m.send("\n\n")
	var file bytes.Buffer
	w := rdb.NewWriter(&file, false)
	w.SelectDB(0, 1, 0)
	w.Entry([]byte("loaded"), &rdb.Value{Kind: rdb.KindString, Str: []byte("yes")}, -1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	mark := strings.Repeat("m", 40)
	m.send("$EOF:" + mark + "\r\n" + file.String() + mark)

	offset := int64(1000)
	stream := func(s string) {
		m.send(s)
		offset += int64(len(s))
	}
	stream(cmd("SELECT", "2"))
	stream(cmd("SET", "a", "1"))
	getack := cmd("REPLCONF", "GETACK", "*")
	m.send(getack)
	m.ack(offset) // the offset before the GETACK
	offset += int64(len(getack))
	if v := replica.Do("GET", "loaded"); v.Str != "yes" {
		t.Fatalf("key of the transferred RDB: %v", v)
	}
	replica.Do("SELECT", "2")
	if v := replica.Do("GET", "a"); v.Str != "1" {
		t.Fatalf("SET from the stream: %v", v)
	}
	if got := info(replica, "slave_repl_offset"); got != strconv.FormatInt(offset, 10) {
		t.Fatalf("slave_repl_offset %s, want %d", got, offset)
	}
	if got := info(replica, "master_replid"); got != replid {
		t.Fatalf("master_replid %s, want %s", got, replid)
	}

	// A transaction cut by the link: nothing of it applies, and PSYNC
	// asks for it again.
	m.send(cmd("MULTI") + cmd("SET", "b", "2"))
	m.conn.Close()
	m = accept()
	id, off = m.handshake()
	if id != replid || off != strconv.FormatInt(offset+1, 10) {
		t.Fatalf("PSYNC %s %s, want %s %d", id, off, replid, offset+1)
	}
	m.send("+CONTINUE " + replid + "\r\n")
	if v := replica.Do("EXISTS", "b"); v.Int != 0 {
		t.Fatalf("a write of an unfinished transaction was applied: %v", v)
	}
	stream(cmd("MULTI") + cmd("SET", "b", "2") + cmd("EXEC"))
	m.send(getack)
	m.ack(offset)
	if v := replica.Do("GET", "b"); v.Str != "2" {
		t.Fatalf("the resent transaction (the stream kept database 2): %v", v)
	}
}
