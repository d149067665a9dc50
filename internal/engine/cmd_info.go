package engine

import (
	crand "crypto/rand"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ordo-db/ordo/internal/sysinfo"
)

// INFO, and the per-engine figures it reports (run id, peak memory).

func registerInfo(t *Table) {
	t.register("info", infoCommand)
}

var infoDefault = []string{"server", "clients", "memory", "persistence", "stats", "replication", "cpu", "modules", "errorstats", "cluster", "keyspace"}

var infoAll = []string{"server", "clients", "memory", "persistence", "stats", "replication", "cpu", "modules", "commandstats", "errorstats", "latencystats", "cluster", "keyspace"}

func infoCommand(c *Ctx) {
	want := map[string]bool{}
	everything := false
	if len(c.Args) == 1 {
		for _, s := range infoDefault {
			want[s] = true
		}
	}
	for _, a := range c.Args[1:] {
		s := strings.ToLower(string(a))
		switch s {
		case "default":
			for _, x := range infoDefault {
				want[x] = true
			}
		case "all":
			for _, x := range infoAll {
				want[x] = true
			}
		case "everything":
			everything = true
			for _, x := range infoAll {
				want[x] = true
			}
		default:
			want[s] = true
		}
	}
	_ = everything
	c.W.Verbatim("txt", c.E.InfoString(want, c))
}

// InfoString renders the INFO sections in want.
func (e *Engine) InfoString(want map[string]bool, c *Ctx) string {
	var b strings.Builder
	first := true
	section := func(name string) bool {
		if !want[strings.ToLower(name)] {
			return false
		}
		if !first {
			b.WriteString("\r\n")
		}
		first = false
		b.WriteString("# " + name + "\r\n")
		return true
	}
	kv := func(k string, v any) {
		b.WriteString(k)
		b.WriteByte(':')
		fmt.Fprint(&b, v)
		b.WriteString("\r\n")
	}
	now := time.Now()
	uptime := int64(now.Sub(e.StartTime) / time.Second)
	clients := e.Clients()
	if section("Server") {
		kv("redis_version", RedisVersion)
		kv("redis_git_sha1", "00000000")
		kv("redis_git_dirty", 0)
		kv("redis_build_id", "0")
		kv("redis_mode", "standalone")
		kv("ordo_version", OrdoVersion)
		kv("os", osString())
		kv("arch_bits", strconv.Itoa(32<<(^uint(0)>>63)))
		kv("monotonic_clock", "POSIX clock_gettime")
		kv("multiplexing_api", "epoll")
		kv("atomicvar_api", "c11-builtin")
		kv("gcc_version", "0.0.0")
		kv("go_version", runtime.Version())
		kv("process_id", os.Getpid())
		kv("process_supervised", "no")
		kv("run_id", e.RunID())
		kv("tcp_port", e.Config.Get("port"))
		kv("server_time_usec", now.UnixMicro())
		kv("uptime_in_seconds", uptime)
		kv("uptime_in_days", uptime/86400)
		kv("hz", e.Config.Get("hz"))
		kv("configured_hz", e.Config.Get("hz"))
		kv("lru_clock", (now.Unix())&(1<<24-1))
		exe, _ := os.Executable()
		kv("executable", exe)
		kv("config_file", e.Config.File)
		kv("io_threads_active", 0)
	}
	if section("Clients") {
		blocked := 0
		for _, cl := range clients {
			if cl.waiter != nil {
				blocked++
			}
		}
		kv("connected_clients", len(clients))
		kv("cluster_connections", 0)
		kv("maxclients", e.Config.Get("maxclients"))
		kv("client_recent_max_input_buffer", 0)
		kv("client_recent_max_output_buffer", 0)
		kv("blocked_clients", blocked)
		kv("tracking_clients", len(e.trk.clients))
		kv("clients_in_timeout_table", 0)
	}
	if section("Memory") {
		used := e.UsedMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		rss := int64(ms.Sys - ms.HeapReleased)
		peak := e.peakMemory(used)
		maxmem := e.Config.Int("maxmemory")
		kv("used_memory", used)
		kv("used_memory_human", bytesToHuman(used))
		kv("used_memory_rss", rss)
		kv("used_memory_rss_human", bytesToHuman(rss))
		kv("used_memory_peak", peak)
		kv("used_memory_peak_human", bytesToHuman(peak))
		kv("used_memory_peak_perc", fmt.Sprintf("%.2f%%", float64(used)*100/float64(max(peak, 1))))
		kv("used_memory_overhead", 0)
		kv("used_memory_startup", 0)
		kv("used_memory_dataset", used)
		kv("used_memory_dataset_perc", "100.00%")
		kv("allocator_allocated", used)
		kv("allocator_active", int64(ms.HeapInuse))
		kv("allocator_resident", rss)
		total := totalSystemMemory()
		kv("total_system_memory", total)
		kv("total_system_memory_human", bytesToHuman(total))
		kv("used_memory_lua", 0)
		kv("used_memory_vm_eval", 0)
		kv("used_memory_lua_human", "0B")
		kv("used_memory_scripts_eval", 0)
		kv("number_of_cached_scripts", 0)
		kv("number_of_functions", 0)
		kv("number_of_libraries", 0)
		kv("used_memory_vm_functions", 0)
		kv("used_memory_vm_total", 0)
		kv("used_memory_vm_total_human", "0B")
		kv("used_memory_functions", 0)
		kv("used_memory_scripts", 0)
		kv("used_memory_scripts_human", "0B")
		kv("maxmemory", maxmem)
		kv("maxmemory_human", bytesToHuman(maxmem))
		kv("maxmemory_policy", e.Config.Get("maxmemory-policy"))
		ratio := float64(rss) / float64(max(used, 1))
		kv("allocator_frag_ratio", "1.00")
		kv("allocator_frag_bytes", 0)
		kv("allocator_rss_ratio", "1.00")
		kv("allocator_rss_bytes", 0)
		kv("rss_overhead_ratio", "1.00")
		kv("rss_overhead_bytes", 0)
		kv("mem_fragmentation_ratio", fmt.Sprintf("%.2f", ratio))
		kv("mem_fragmentation_bytes", rss-used)
		kv("mem_not_counted_for_evict", 0)
		kv("mem_replication_backlog", 0)
		kv("mem_total_replication_buffers", 0)
		kv("mem_clients_slaves", 0)
		kv("mem_clients_normal", 0)
		kv("mem_cluster_links", 0)
		kv("mem_aof_buffer", 0)
		kv("mem_allocator", "go-"+runtime.Version())
		kv("active_defrag_running", 0)
		kv("lazyfree_pending_objects", 0)
		kv("lazyfreed_objects", 0)
	}
	if section("Persistence") {
		if p := e.Persistence; p != nil {
			s := p.InfoPersistence()
			s = strings.ReplaceAll(strings.TrimRight(s, "\r\n"), "\r\n", "\n")
			for _, l := range strings.Split(s, "\n") {
				if l != "" {
					b.WriteString(l + "\r\n")
				}
			}
		} else {
			kv("loading", 0)
			kv("async_loading", 0)
			kv("current_cow_peak", 0)
			kv("current_cow_size", 0)
			kv("current_cow_size_age", 0)
			kv("current_fork_perc", "0.00")
			kv("current_save_keys_processed", 0)
			kv("current_save_keys_total", 0)
			bg := &e.rdbBg
			kv("rdb_changes_since_last_save", e.dirty)
			lastSave, status, cur, inProgress := e.StartTime.Unix(), "ok", int64(-1), 0
			if t := bg.lastSave.Load(); t != 0 {
				lastSave = t
			}
			if bg.failed.Load() {
				status = "err"
			}
			if bg.running.Load() {
				inProgress, cur = 1, time.Now().Unix()-bg.started.Load()
			}
			kv("rdb_bgsave_in_progress", inProgress)
			kv("rdb_last_save_time", lastSave)
			kv("rdb_last_bgsave_status", status)
			kv("rdb_last_bgsave_time_sec", bg.lastSecs.Load())
			kv("rdb_current_bgsave_time_sec", cur)
			kv("rdb_saves", bg.saves.Load())
			kv("rdb_last_cow_size", 0)
			kv("rdb_last_load_keys_expired", 0)
			kv("rdb_last_load_keys_loaded", 0)
			kv("aof_enabled", 0)
			kv("aof_rewrite_in_progress", 0)
			kv("aof_rewrite_scheduled", 0)
			kv("aof_last_rewrite_time_sec", -1)
			kv("aof_current_rewrite_time_sec", -1)
			kv("aof_last_bgrewrite_status", "ok")
			kv("aof_rewrites", 0)
			kv("aof_rewrites_consecutive_failures", 0)
			kv("aof_last_write_status", "ok")
			kv("aof_last_cow_size", 0)
			kv("module_fork_in_progress", 0)
			kv("module_fork_last_cow_size", 0)
		}
	}
	if section("Stats") {
		s := &e.Stats
		kv("total_connections_received", s.Connections.Load())
		kv("total_commands_processed", s.Commands.Load())
		kv("instantaneous_ops_per_sec", 0)
		kv("total_net_input_bytes", s.NetInput.Load())
		kv("total_net_output_bytes", s.NetOutput.Load())
		kv("total_net_repl_input_bytes", 0)
		kv("total_net_repl_output_bytes", 0)
		kv("instantaneous_input_kbps", "0.00")
		kv("instantaneous_output_kbps", "0.00")
		kv("instantaneous_input_repl_kbps", "0.00")
		kv("instantaneous_output_repl_kbps", "0.00")
		kv("rejected_connections", s.RejectedConns.Load())
		var full, pok, perr int64
		if r := e.Replication; r != nil {
			full, pok, perr = r.SyncStats()
		}
		kv("sync_full", full)
		kv("sync_partial_ok", pok)
		kv("sync_partial_err", perr)
		kv("expired_keys", s.ExpiredKeys.Load())
		kv("expired_stale_perc", "0.00")
		kv("expired_time_cap_reached_count", 0)
		kv("expire_cycle_cpu_milliseconds", 0)
		kv("evicted_keys", s.EvictedKeys.Load())
		kv("evicted_clients", 0)
		total, current := e.evict.exceededTimes()
		kv("total_eviction_exceeded_time", total.Milliseconds())
		kv("current_eviction_exceeded_time", current.Milliseconds())
		kv("keyspace_hits", s.KeyspaceHits.Load())
		kv("keyspace_misses", s.KeyspaceMisses.Load())
		nch, npat, nshard := e.PubSubCounts()
		kv("pubsub_channels", nch)
		kv("pubsub_patterns", npat)
		kv("pubsubshard_channels", nshard)
		kv("latest_fork_usec", 0)
		kv("total_forks", 0)
		kv("migrate_cached_sockets", 0)
		kv("slave_expires_tracked_keys", 0)
		kv("active_defrag_hits", 0)
		kv("active_defrag_misses", 0)
		kv("active_defrag_key_hits", 0)
		kv("active_defrag_key_misses", 0)
		kv("total_active_defrag_time", 0)
		kv("current_active_defrag_time", 0)
		kv("tracking_total_keys", len(e.trk.table))
		kv("tracking_total_items", e.trk.items)
		kv("tracking_total_prefixes", len(e.trk.prefixes))
		kv("unexpected_error_replies", 0)
		kv("total_error_replies", s.TotalErrorReplies.Load())
		kv("ordo_command_panics", s.CommandPanics.Load())
		kv("dump_payload_sanitizations", 0)
		kv("total_reads_processed", 0)
		kv("total_writes_processed", 0)
		kv("io_threaded_reads_processed", 0)
		kv("io_threaded_writes_processed", 0)
		kv("reply_buffer_shrinks", 0)
		kv("reply_buffer_expands", 0)
	}
	if e.Replication != nil && section("Replication") {
		for _, l := range strings.Split(strings.TrimRight(e.Replication.InfoReplication(), "\r\n"), "\r\n") {
			b.WriteString(l + "\r\n")
		}
	} else if section("Replication") {
		kv("role", "master")
		kv("connected_slaves", 0)
		kv("master_failover_state", "no-failover")
		kv("master_replid", e.RunID())
		kv("master_replid2", strings.Repeat("0", 40))
		kv("master_repl_offset", 0)
		kv("second_repl_offset", -1)
		kv("repl_backlog_active", 0)
		kv("repl_backlog_size", e.Config.Get("repl-backlog-size"))
		kv("repl_backlog_first_byte_offset", 0)
		kv("repl_backlog_histlen", 0)
	}
	if section("CPU") {
		cpu := sysinfo.CPUTimes()
		tv := func(d time.Duration) string {
			return fmt.Sprintf("%d.%06d", d/time.Second, d%time.Second/time.Microsecond)
		}
		kv("used_cpu_sys", tv(cpu.SelfSys))
		kv("used_cpu_user", tv(cpu.SelfUser))
		kv("used_cpu_sys_children", tv(cpu.ChildSys))
		kv("used_cpu_user_children", tv(cpu.ChildUser))
		kv("used_cpu_sys_main_thread", tv(cpu.SelfSys))
		kv("used_cpu_user_main_thread", tv(cpu.SelfUser))
	}
	section("Modules")
	if section("Commandstats") {
		for _, ln := range e.commandStatsLines() {
			b.WriteString(ln)
			b.WriteString("\r\n")
		}
	}
	if section("Errorstats") {
		codes := make([]string, 0, len(e.errorStats))
		for k := range e.errorStats {
			codes = append(codes, k)
		}
		sort.Strings(codes)
		for _, k := range codes {
			kv("errorstat_"+k, fmt.Sprintf("count=%d", e.errorStats[k]))
		}
	}
	section("Latencystats")
	if section("Cluster") {
		kv("cluster_enabled", 0)
	}
	if section("Keyspace") {
		now := NowMs()
		for _, db := range e.dbs {
			if db.Len() == 0 {
				continue
			}
			kv(fmt.Sprintf("db%d", db.ID), fmt.Sprintf("keys=%d,expires=%d,avg_ttl=%d", db.Len(), db.ExpiresLen(), avgTTL(db, now)))
		}
	}
	return b.String()
}

// avgTTL estimates the average remaining TTL of db's volatile keys from a
// bounded sample, as Redis does.
func avgTTL(db *DB, now int64) int64 {
	if db.expires.Len() == 0 {
		return 0
	}
	var sum, n int64
	cursor := uint64(0)
	for i := 0; i < 8 && n < 100; i++ {
		cursor = db.expires.Scan(cursor, func(_ string, at int64) {
			if at > now {
				sum += at - now
				n++
			}
		})
		if cursor == 0 {
			break
		}
	}
	if n == 0 {
		return 0
	}
	return sum / n
}

// OrdoVersion is reported by INFO as ordo_version.
const OrdoVersion = "0.1.0"

// newRunID is a random 40-hex-digit run id, one per engine, as Redis's.
func newRunID() string {
	var b [20]byte
	if _, err := crand.Read(b[:]); err != nil {
		t := time.Now().UnixNano()
		for i := range b {
			b[i] = byte(t >> (8 * (i % 8)))
		}
	}
	return fmt.Sprintf("%x", b)
}

// RunID is the instance's random run id.
func (e *Engine) RunID() string { return e.runID }

// peakMemory records used as the engine's peak if it is higher.
func (e *Engine) peakMemory(used int64) int64 {
	peakMem := &e.peakMem
	for {
		p := peakMem.Load()
		if used <= p {
			return p
		}
		if peakMem.CompareAndSwap(p, used) {
			return used
		}
	}
}

// osString and totalSystemMemory are INFO's os and total_system_memory;
// the per-platform probes live in internal/sysinfo.
func osString() string { return sysinfo.OS() }

func totalSystemMemory() int64 { return sysinfo.TotalMemory() }

// bytesToHuman formats n as Redis's bytesToHuman does.
func bytesToHuman(n int64) string {
	d := float64(n)
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.2fK", d/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.2fM", d/(1024*1024))
	case n < 1024*1024*1024*1024:
		return fmt.Sprintf("%.2fG", d/(1024*1024*1024))
	case n < 1024*1024*1024*1024*1024:
		return fmt.Sprintf("%.2fT", d/(1024*1024*1024*1024))
	}
	return fmt.Sprintf("%.2fP", d/(1024*1024*1024*1024*1024))
}
