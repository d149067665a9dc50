package repl_test

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// info returns one field of INFO replication.
func info(c *redistest.Conn, field string) string {
	v := c.Do("INFO", "replication")
	for _, l := range strings.Split(v.Str, "\r\n") {
		if k, val, ok := strings.Cut(l, ":"); ok && k == field {
			return val
		}
	}
	return ""
}

func infoInt(t *testing.T, c *redistest.Conn, section, field string) int64 {
	t.Helper()
	v := c.Do("INFO", section)
	for _, l := range strings.Split(v.Str, "\r\n") {
		if k, val, ok := strings.Cut(l, ":"); ok && k == field {
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				t.Fatalf("INFO %s %s: %q", section, field, val)
			}
			return n
		}
	}
	t.Fatalf("INFO %s has no %s", section, field)
	return 0
}

func port(addr string) string {
	return addr[strings.LastIndexByte(addr, ':')+1:]
}

// waitSynced waits until the replica's link is up and its applied offset
// equals the master's.
func waitSynced(t *testing.T, master, replica *redistest.Conn) int64 {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var mo, ro, status string
	for time.Now().Before(deadline) {
		mo = info(master, "master_repl_offset")
		status = info(replica, "master_link_status")
		ro = info(replica, "slave_repl_offset")
		if status == "up" && mo == ro && mo != "" {
			n, _ := strconv.ParseInt(mo, 10, 64)
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("replica did not reach the master's offset %s within 20s (link %s, replica offset %s)", mo, status, ro)
	return 0
}

// snapshot reads every key of every database as one canonical line:
// type, content and absolute expiry.
func snapshot(t *testing.T, c *redistest.Conn) map[string]string {
	t.Helper()
	out := map[string]string{}
	for db := 0; db < 16; db++ {
		c.Do("SELECT", strconv.Itoa(db))
		var keys []string
		cursor := "0"
		for {
			v := c.Do("SCAN", cursor, "COUNT", "1000")
			cursor = v.Elems[0].Str
			for _, k := range v.Elems[1].Elems {
				keys = append(keys, k.Str)
			}
			if cursor == "0" {
				break
			}
		}
		seen := map[string]bool{}
		for chunk := 0; chunk < len(keys); chunk += 500 {
			ks := keys[chunk:min(chunk+500, len(keys))]
			for _, k := range ks {
				c.Send("TYPE", k)
			}
			types := make([]string, len(ks))
			for i := range ks {
				v, _, _ := resp.ParseReply(c.ReadRaw())
				types[i] = v.Str
			}
			for i, k := range ks {
				switch types[i] {
				case "string":
					c.Send("GET", k)
				case "hash":
					c.Send("HGETALL", k)
				case "list":
					c.Send("LRANGE", k, "0", "-1")
				case "set":
					c.Send("SMEMBERS", k)
				case "zset":
					c.Send("ZRANGE", k, "0", "-1", "WITHSCORES")
				default:
					c.Send("TYPE", k)
				}
				c.Send("PEXPIRETIME", k)
			}
			for i, k := range ks {
				v, _, _ := resp.ParseReply(c.ReadRaw())
				e, _, _ := resp.ParseReply(c.ReadRaw())
				content := ""
				switch types[i] {
				case "hash":
					var ps []string
					for j := 0; j+1 < len(v.Elems); j += 2 {
						ps = append(ps, v.Elems[j].Str+"="+v.Elems[j+1].Str)
					}
					sort.Strings(ps)
					content = strings.Join(ps, ",")
				default:
					content = redistest.Canonical(v, types[i] == "set")
				}
				name := fmt.Sprintf("%d/%s", db, k)
				if seen[name] {
					continue
				}
				seen[name] = true
				out[name] = fmt.Sprintf("%s %s exp=%d", types[i], content, e.Int)
			}
		}
	}
	c.Do("SELECT", "0")
	return out
}

func compare(t *testing.T, master, replica *redistest.Conn) {
	t.Helper()
	m, r := snapshot(t, master), snapshot(t, replica)
	bad := 0
	for k, v := range m {
		if r[k] != v {
			if bad++; bad <= 5 {
				t.Errorf("key %s: master %.200s, replica %.200s", k, v, r[k])
			}
		}
	}
	for k, v := range r {
		if _, ok := m[k]; !ok {
			if bad++; bad <= 5 {
				t.Errorf("key %s only on the replica: %.200s", k, v)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d keys differ (master %d keys, replica %d)", bad, len(m), len(r))
	}
	if len(m) == 0 {
		t.Fatal("empty datasets: nothing compared")
	}
}

// writeAll writes values of every type, small and big encodings, in
// several databases.
func writeAll(t *testing.T, c *redistest.Conn, prefix string) {
	t.Helper()
	do := func(args ...string) {
		t.Helper()
		if v := c.Do(args...); v.Kind == resp.KindError {
			t.Fatalf("%v: %s", args, v.Str)
		}
	}
	do("SET", prefix+"s", "hello")
	do("SET", prefix+"n", "12345")
	do("SET", prefix+"ttl", "v", "EX", "100000")
	do("SET", prefix+"big", strings.Repeat("x", 50000))
	do("HSET", prefix+"h", "a", "1", "b", "2")
	do("RPUSH", prefix+"l", "a", "b", "c")
	do("SADD", prefix+"si", "1", "2", "3")
	do("SADD", prefix+"ss", "a", "b", "c")
	do("ZADD", prefix+"z", "1", "a", "2.5", "b")
	for i := 0; i < 300; i++ {
		is := strconv.Itoa(i)
		c.Send("HSET", prefix+"H", "f"+is, strings.Repeat("v", i))
		c.Send("RPUSH", prefix+"L", strings.Repeat("e", i%100))
		c.Send("SADD", prefix+"S", "m"+is)
		c.Send("ZADD", prefix+"Z", strconv.FormatFloat(float64(i)/3, 'g', -1, 64), "m"+is)
	}
	for i := 0; i < 4*300; i++ {
		c.ReadRaw()
	}
	do("PEXPIRE", prefix+"H", "90000000")
	do("SELECT", "3")
	do("SET", prefix+"db3", "three")
	do("LPUSH", prefix+"db3l", "x")
	do("SELECT", "0")
	do("MULTI")
	do("INCR", prefix+"n")
	do("HSET", prefix+"h", "c", "3")
	do("LPOP", prefix+"l")
	do("EXEC")
	do("EVAL", "redis.call('SET', KEYS[1], 'fromlua'); redis.call('SADD', KEYS[2], 'x'); return 1", "2", prefix+"lua", prefix+"ss")
	do("SPOP", prefix+"S")
	do("SETEX", prefix+"setex", "100000", "v")
	do("GETEX", prefix+"s", "PX", "100000000")
	do("INCRBYFLOAT", prefix+"f", "1.5")
}

func startPair(t *testing.T, redisArgs ...string) (master, replica *redistest.Conn, r *redistest.Redis, o *redistest.Ordo) {
	t.Helper()
	r = redistest.StartRedis(t, append([]string{"--repl-diskless-sync-delay", "0"}, redisArgs...)...)
	o = redistest.StartOrdo(t)
	return redistest.Dial(t, r.Addr), redistest.Dial(t, o.Addr), r, o
}

func replicaOf(t *testing.T, replica *redistest.Conn, addr string) {
	t.Helper()
	if v := replica.Do("REPLICAOF", "127.0.0.1", port(addr)); v.Str != "OK" {
		t.Fatalf("REPLICAOF: %v", v)
	}
}

func testFullSync(t *testing.T, redisArgs ...string) {
	master, replica, r, _ := startPair(t, redisArgs...)
	writeAll(t, master, "pre:")
	replica.Do("SET", "stale", "gone after the sync")
	watcher := redistest.Dial(t, replica.NetConn().RemoteAddr().String())
	watcher.Do("WATCH", "stale")
	replicaOf(t, replica, r.Addr)
	waitSynced(t, master, replica)
	compare(t, master, replica)
	watcher.Do("MULTI")
	watcher.Do("GET", "stale")
	if v := watcher.Do("EXEC"); v.Kind != resp.KindNull {
		t.Fatalf("EXEC after a full sync replaced a WATCHed key: %v", v)
	}
	writeAll(t, master, "post:")
	waitSynced(t, master, replica)
	compare(t, master, replica)
	if v := replica.Do("GET", "stale"); !v.IsNull() {
		t.Fatalf("a key of the old dataset survived the full sync: %v", v)
	}
	master.Do("FLUSHALL")
	master.Do("SET", "after", "flush")
	waitSynced(t, master, replica)
	compare(t, master, replica)
}

func TestReplicaDisklessSync(t *testing.T) { testFullSync(t, "--repl-diskless-sync", "yes") }

func TestReplicaDiskSync(t *testing.T) { testFullSync(t, "--repl-diskless-sync", "no") }

func TestReplicaReadOnlyAndRole(t *testing.T) {
	master, replica, r, _ := startPair(t)
	master.Do("SET", "k", "v")
	replicaOf(t, replica, r.Addr)
	if v := replica.Do("REPLICAOF", "127.0.0.1", port(r.Addr)); v.Str != "OK Already connected to specified master" {
		t.Fatalf("second REPLICAOF: %v", v)
	}
	off := waitSynced(t, master, replica)
	const ro = "READONLY You can't write against a read only replica."
	if v := replica.Do("SET", "k", "x"); v.Kind != resp.KindError || v.Str != ro {
		t.Fatalf("SET on a replica: %v", v)
	}
	replica.Do("MULTI")
	if v := replica.Do("INCR", "n"); v.Str != ro {
		t.Fatalf("INCR in MULTI on a replica: %v", v)
	}
	if v := replica.Do("EXEC"); !strings.HasPrefix(v.Str, "EXECABORT") {
		t.Fatalf("EXEC after a refused write: %v", v)
	}
	if v := replica.Do("GET", "k"); v.Str != "v" {
		t.Fatalf("GET on a replica: %v", v)
	}
	role := replica.Do("ROLE")
	if len(role.Elems) != 5 || role.Elems[0].Str != "slave" || role.Elems[1].Str != "127.0.0.1" ||
		strconv.FormatInt(role.Elems[2].Int, 10) != port(r.Addr) || role.Elems[3].Str != "connected" || role.Elems[4].Int < off {
		t.Fatalf("ROLE on the replica: %v", role)
	}
	for _, f := range []string{"role:slave", "master_link_status:up", "master_sync_in_progress:0", "slave_read_only:1"} {
		k, want, _ := strings.Cut(f, ":")
		if got := info(replica, k); got != want {
			t.Errorf("INFO replication %s = %q, want %q", k, got, want)
		}
	}
	if got, want := info(replica, "master_replid"), info(master, "master_replid"); got != want {
		t.Errorf("master_replid %q, master's %q", got, want)
	}
	if v := master.Do("INFO", "replication"); !strings.Contains(v.Str, "connected_slaves:1") {
		t.Errorf("the master does not see its replica: %s", v.Str)
	}
	replica.Do("CONFIG", "SET", "replica-read-only", "no")
	if v := replica.Do("SET", "local", "1"); v.Str != "OK" {
		t.Fatalf("SET on a writable replica: %v", v)
	}
	replica.Do("CONFIG", "SET", "replica-read-only", "yes")
	if v := replica.Do("REPLICAOF", "NO", "ONE"); v.Str != "OK" {
		t.Fatalf("REPLICAOF NO ONE: %v", v)
	}
	if v := replica.Do("SET", "k", "x"); v.Str != "OK" {
		t.Fatalf("SET after REPLICAOF NO ONE: %v", v)
	}
	if v := replica.Do("ROLE"); v.Elems[0].Str != "master" {
		t.Fatalf("ROLE after REPLICAOF NO ONE: %v", v)
	}
	if got := info(replica, "master_replid2"); got != info(master, "master_replid") {
		t.Errorf("master_replid2 after NO ONE = %q, want the old master's ID", got)
	}
	// Nothing from the old master is applied any more.
	master.Do("SET", "k", "from master")
	master.Do("SET", "k2", "from master")
	master.Do("WAIT", "1", "200") // the old replica no longer acknowledges
	if v := replica.Do("GET", "k2"); !v.IsNull() {
		t.Fatalf("a write reached the replica after REPLICAOF NO ONE: %v", v)
	}
}

func TestReplicaExpiry(t *testing.T) {
	master, replica, r, _ := startPair(t)
	master.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	replicaOf(t, replica, r.Addr)
	master.Do("SET", "k", "v", "PX", "50")
	master.Do("SET", "keep", "v")
	waitSynced(t, master, replica)
	// Wait until the key's time has passed on the replica (it reports
	// the key as absent), without anything deleting it on the master.
	deadline := time.Now().Add(20 * time.Second)
	for replica.Do("EXISTS", "k").Int != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the replica still reports an expired key after 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if v := replica.Do("GET", "k"); !v.IsNull() {
		t.Fatalf("GET of a logically expired key on a replica: %v", v)
	}
	// The key stays until the master's DEL (DBSIZE counts it, as Redis's).
	if n := replica.Do("DBSIZE").Int; n != 2 {
		t.Fatalf("the replica deleted an expired key itself: DBSIZE %d", n)
	}
	// Lazy expiry on the master propagates DEL (the replica may see the
	// key's millisecond pass before the master does: ask until it
	// agrees).
	for master.Do("EXISTS", "k").Int != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the master still has the expired key after 20s")
		}
		time.Sleep(time.Millisecond)
	}
	waitSynced(t, master, replica)
	if n := replica.Do("DBSIZE").Int; n != 1 {
		t.Fatalf("DBSIZE after the master's DEL: %d", n)
	}
}

func TestReplicaPartialResync(t *testing.T) {
	master, replica, r, _ := startPair(t)
	writeAll(t, master, "a:")
	replicaOf(t, replica, r.Addr)
	waitSynced(t, master, replica)
	full := infoInt(t, master, "stats", "sync_full")
	partial := infoInt(t, master, "stats", "sync_partial_ok")
	id := info(replica, "master_replid")
	for i := 0; i < 3; i++ {
		if i == 2 {
			// From the replica's side this time.
			if n := replica.Do("CLIENT", "KILL", "TYPE", "master").Int; n != 1 {
				t.Fatalf("CLIENT KILL TYPE master on the replica killed %d clients", n)
			}
		} else if n := master.Do("CLIENT", "KILL", "TYPE", "replica").Int; n != 1 {
			t.Fatalf("CLIENT KILL TYPE replica killed %d clients", n)
		}
		master.Do("SET", "during"+strconv.Itoa(i), "x") // may land in the backlog before the reconnect
		master.Do("MULTI")
		master.Do("INCR", "ctr")
		master.Do("RPUSH", "list", "x")
		master.Do("EXEC")
		waitSynced(t, master, replica)
	}
	writeAll(t, master, "b:")
	waitSynced(t, master, replica)
	compare(t, master, replica)
	if got := infoInt(t, master, "stats", "sync_partial_ok"); got != partial+3 {
		t.Errorf("sync_partial_ok went from %d to %d, want +3", partial, got)
	}
	if got := infoInt(t, master, "stats", "sync_full"); got != full {
		t.Errorf("sync_full went from %d to %d: a reconnect did a full sync", full, got)
	}
	if got := info(replica, "master_replid"); got != id {
		t.Errorf("master_replid changed across PSYNC: %s -> %s", id, got)
	}
}

func TestReplicaFullSyncUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("100k keys")
	}
	master, replica, r, _ := startPair(t)
	master.Do("DEBUG", "POPULATE", "100000", "key", "20")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := redistest.Dial(t, r.Addr)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			w.Send("SET", "key:"+strconv.Itoa(i%100000), "w"+strconv.Itoa(i))
			w.Send("INCR", "counter")
			w.Send("HSET", "hash", strconv.Itoa(i%500), strconv.Itoa(i))
			w.ReadRaw()
			w.ReadRaw()
			w.ReadRaw()
		}
	}()
	for i := 0; i < 10; i++ {
		replica.Do("SET", "old:"+strconv.Itoa(i), "x")
	}
	replicaOf(t, replica, r.Addr)
	// Clients of the replica see the old dataset or the new one, never
	// a mix of both, nor a partly loaded one.
	deadline := time.Now().Add(60 * time.Second)
	for info(replica, "master_link_status") != "up" {
		if time.Now().After(deadline) {
			close(stop)
			t.Fatal("the replica's link did not come up within 60s")
		}
		if n := replica.Do("DBSIZE").Int; n != 10 && n < 100000 {
			close(stop)
			t.Fatalf("DBSIZE %d during the full sync: neither the old dataset (10) nor the new (100000+)", n)
		}
	}
	if v := replica.Do("EXISTS", "old:0"); v.Int != 0 {
		t.Fatal("a key of the old dataset survived the full sync")
	}
	// Keep writing for a while after the sync: the stream catches up.
	for master.Do("GET", "counter").Str < "1" {
		time.Sleep(time.Millisecond)
	}
	n := infoInt(t, master, "stats", "total_commands_processed")
	for infoInt(t, master, "stats", "total_commands_processed") < n+3000 {
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	waitSynced(t, master, replica)
	if m, o := master.Do("DBSIZE").Int, replica.Do("DBSIZE").Int; m != o || m < 100000 {
		t.Fatalf("DBSIZE: master %d, replica %d", m, o)
	}
	compare(t, master, replica)
}

func TestReplicaofDirectiveAuthAndWait(t *testing.T) {
	r := redistest.StartRedis(t, "--repl-diskless-sync-delay", "0", "--requirepass", "s3cret")
	master := redistest.Dial(t, r.Addr)
	master.Do("AUTH", "s3cret")
	master.Do("ACL", "SETUSER", "repl", "on", ">rpw", "+@all", "~*", "&*")
	master.Do("SET", "k", "v")
	for _, user := range []string{"", "repl"} {
		t.Run("user="+user, func(t *testing.T) {
			settings := []string{"replicaof", "127.0.0.1 " + port(r.Addr), "masterauth", "s3cret"}
			if user != "" {
				settings = []string{"replicaof", "127.0.0.1 " + port(r.Addr), "masteruser", user, "masterauth", "rpw"}
			}
			o := redistest.StartOrdo(t, settings...)
			replica := redistest.Dial(t, o.Addr)
			waitSynced(t, master, replica)
			if v := replica.Do("GET", "k"); v.Str != "v" {
				t.Fatalf("GET on the replica: %v", v)
			}
			// WAIT counts the replica's REPLCONF ACK answers to GETACK.
			master.Do("INCR", "n")
			if v := master.Do("WAIT", "1", "10000"); v.Int < 1 {
				t.Fatalf("WAIT 1 on the master: %v", v)
			}
		})
	}
}

func TestReplicaEvalReadOnly(t *testing.T) {
	_, replica, r, _ := startPair(t)
	replicaOf(t, replica, r.Addr)
	v := replica.Do("EVAL", "return redis.call('SET', 'x', '1')", "0")
	if v.Kind != resp.KindError || !strings.Contains(v.Str, "READONLY You can't write against a read only replica.") {
		t.Fatalf("a script writing on a read-only replica: %v", v)
	}
	if v := replica.Do("EVAL", "return redis.call('GET', 'x')", "0"); v.Kind == resp.KindError {
		t.Fatalf("a read-only script on a replica: %v", v)
	}
}

// fieldNames lists INFO replication's field names in order, values left out.
func fieldNames(c *redistest.Conn) []string {
	var out []string
	for _, l := range strings.Split(c.Do("INFO", "replication").Str, "\r\n") {
		if k, _, ok := strings.Cut(l, ":"); ok {
			out = append(out, k)
		}
	}
	return out
}

func TestReplicaInfoFieldsAsRedis(t *testing.T) {
	master, replica, r, _ := startPair(t)
	rr := redistest.StartRedis(t)
	redisReplica := redistest.Dial(t, rr.Addr)
	if got, want := strings.Join(fieldNames(replica), " "), strings.Join(fieldNames(redisReplica), " "); got != want {
		t.Errorf("INFO replication of a master:\nordo  %s\nredis %s", got, want)
	}
	master.Do("SET", "k", "v")
	replicaOf(t, replica, r.Addr)
	replicaOf(t, redisReplica, r.Addr)
	waitSynced(t, master, replica)
	waitSynced(t, master, redisReplica)
	if got, want := strings.Join(fieldNames(replica), " "), strings.Join(fieldNames(redisReplica), " "); got != want {
		t.Errorf("INFO replication of a replica:\nordo  %s\nredis %s", got, want)
	}
	for _, f := range []string{"role", "master_host", "master_port", "master_link_status", "slave_repl_offset", "master_replid"} {
		if got, want := info(replica, f), info(redisReplica, f); got != want {
			t.Errorf("%s: ordo %q, redis %q", f, got, want)
		}
	}
	if o, rd := replica.Do("CONFIG", "GET", "replicaof"), redisReplica.Do("CONFIG", "GET", "replicaof"); redistest.Canonical(o, false) != redistest.Canonical(rd, false) {
		t.Errorf("CONFIG GET replicaof: ordo %v, redis %v", o, rd)
	}
	// The offsets (fifth element) may differ by a PING from the master.
	o, rd := replica.Do("ROLE"), redisReplica.Do("ROLE")
	if len(o.Elems) != 5 || len(rd.Elems) != 5 || redistest.Canonical(resp.Value{Kind: resp.KindArray, Elems: o.Elems[:4]}, false) !=
		redistest.Canonical(resp.Value{Kind: resp.KindArray, Elems: rd.Elems[:4]}, false) {
		t.Errorf("ROLE: ordo %v, redis %v", o, rd)
	}
}

func TestReplicaIgnoresMaxmemory(t *testing.T) {
	r := redistest.StartRedis(t, "--repl-diskless-sync-delay", "0")
	o := redistest.StartOrdo(t, "maxmemory", "1mb")
	master, replica := redistest.Dial(t, r.Addr), redistest.Dial(t, o.Addr)
	replicaOf(t, replica, r.Addr)
	waitSynced(t, master, replica)
	big := strings.Repeat("x", 100000)
	for i := 0; i < 30; i++ {
		master.Do("SET", "plain"+strconv.Itoa(i), big)
	}
	master.Do("MULTI")
	for i := 0; i < 10; i++ {
		master.Do("SET", "tx"+strconv.Itoa(i), big)
	}
	master.Do("EXEC")
	waitSynced(t, master, replica)
	compare(t, master, replica)
}

// TestReplicaStaleAsRedis compares an Ordo replica and a redis-server
// replica whose master cannot be reached.
func TestReplicaStaleAsRedis(t *testing.T) {
	rr := redistest.StartRedis(t)
	o := redistest.StartOrdo(t)
	dead := strconv.Itoa(redistest.FreePort(t))
	d := redistest.NewDiffWith(t, rr.Addr, o.Addr)
	d.Do("SET", "k", "v")
	d.Do("REPLICAOF", "127.0.0.1", dead)
	d.Do("GET", "k") // replica-serve-stale-data yes: served
	d.Do("SET", "k", "x")
	d.Do("CONFIG", "SET", "replica-serve-stale-data", "no")
	for _, args := range [][]string{
		{"GET", "k"}, {"SET", "k", "x"}, {"PING"}, {"DBSIZE"}, {"INFO", "keyspace"},
		{"MULTI"}, {"GET", "k"}, {"EXEC"},
		{"CONFIG", "SET", "replica-serve-stale-data", "yes"}, {"GET", "k"},
		{"REPLICAOF", "NO", "ONE"}, {"SET", "k", "x"}, {"GET", "k"},
	} {
		d.Do(args...)
	}
}
