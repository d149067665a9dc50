package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// ParamKind is how a configuration value is parsed and printed.
type ParamKind int

// Parameter kinds.
const (
	KindString ParamKind = iota
	KindInt
	KindBool   // yes/no
	KindMemory // 100mb, 1gb, or bytes; printed in bytes
	KindEnum
)

// Param is one configuration parameter, named as in redis.conf.
type Param struct {
	Name      string
	Aliases   []string
	Kind      ParamKind
	Default   string
	Enum      []string
	Min, Max  int64
	Immutable bool // set only at start-up (flags or config file)
	Protected bool // paths: CONFIG SET refuses them at runtime
	Sensitive bool
	// Effective is false for parameters Ordo accepts and reports but that
	// do not change its behaviour (encoding thresholds, io-threads, ...),
	// kept so that tools which set them keep working.
	Effective bool
}

// Integer limits of Redis's config table.
const (
	intMax   = 2147483647
	intMin   = -2147483648
	uintMax  = 4294967295
	longMax  = 9223372036854775807
	noLimits = 0
)

// params is the table of known parameters, with Redis 7.0's names,
// aliases, ranges and defaults, except where Ordo differs on purpose
// (bind 127.0.0.1, appendonly yes, dir ./data; port and bind cannot be
// changed at runtime because Ordo does not rebind its listeners).
var params = []*Param{
	// Parameters that change Ordo's behaviour.
	{Name: "bind", Default: "127.0.0.1", Immutable: true, Effective: true},
	{Name: "port", Kind: KindInt, Default: "6379", Min: 0, Max: 65535, Immutable: true, Effective: true},
	{Name: "dir", Default: "./data", Protected: true, Effective: true},
	{Name: "requirepass", Default: "", Sensitive: true, Effective: true},
	{Name: "databases", Kind: KindInt, Default: "16", Min: 1, Max: intMax, Immutable: true, Effective: true},
	{Name: "maxclients", Kind: KindInt, Default: "10000", Min: 1, Max: uintMax, Effective: true},
	{Name: "maxmemory", Kind: KindMemory, Default: "0", Effective: true},
	{Name: "maxmemory-policy", Kind: KindEnum, Default: "noeviction", Effective: true,
		Enum: []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"}},
	{Name: "appendonly", Kind: KindBool, Default: "yes", Effective: true},
	{Name: "appendfsync", Kind: KindEnum, Default: "everysec", Enum: []string{"everysec", "always", "no"}, Effective: true},
	{Name: "appendfilename", Default: "appendonly.aof", Immutable: true, Effective: true},
	{Name: "appenddirname", Default: "appendonlydir", Immutable: true, Effective: true},
	{Name: "dbfilename", Default: "dump.rdb", Protected: true, Effective: true},
	{Name: "save", Default: "3600 1 300 100 60 10000", Effective: true},
	{Name: "auto-aof-rewrite-percentage", Kind: KindInt, Default: "100", Min: 0, Max: intMax, Effective: true},
	{Name: "auto-aof-rewrite-min-size", Kind: KindMemory, Default: "64mb", Min: 0, Max: longMax, Effective: true},
	{Name: "aof-load-truncated", Kind: KindBool, Default: "yes", Effective: true},
	{Name: "aof-load-corrupt-tail", Kind: KindBool, Default: "no", Effective: true}, // Ordo: load the valid prefix of a corrupt AOF
	{Name: "proto-max-bulk-len", Kind: KindMemory, Default: "536870912", Min: 1024 * 1024, Max: longMax, Effective: true},
	{Name: "timeout", Kind: KindInt, Default: "0", Min: 0, Max: intMax, Effective: true},
	{Name: "tcp-keepalive", Kind: KindInt, Default: "300", Min: 0, Max: intMax, Effective: true},
	{Name: "loglevel", Kind: KindEnum, Default: "notice", Enum: []string{"debug", "verbose", "notice", "warning"}, Effective: true},
	{Name: "logfile", Default: "", Immutable: true, Effective: true},
	{Name: "busy-reply-threshold", Aliases: []string{"lua-time-limit"}, Kind: KindInt, Default: "5000", Min: 0, Max: longMax, Effective: true},
	{Name: "enable-debug-command", Kind: KindEnum, Default: "local", Enum: []string{"no", "yes", "local"}, Immutable: true, Effective: true},
	{Name: "enable-protected-configs", Kind: KindEnum, Default: "no", Enum: []string{"no", "yes", "local"}, Immutable: true, Effective: true},
	{Name: "slowlog-log-slower-than", Kind: KindInt, Default: "10000", Min: -1, Max: longMax, Effective: true},
	{Name: "slowlog-max-len", Kind: KindInt, Default: "128", Min: 0, Max: longMax, Effective: true},
	{Name: "hz", Kind: KindInt, Default: "10", Min: 0, Max: intMax, Effective: true},
	// TLS (internal/server/tls.go), with Redis 7.0's names and defaults.
	// tls-port, like port, is set at start-up only.
	{Name: "tls-port", Kind: KindInt, Default: "0", Min: 0, Max: 65535, Immutable: true, Effective: true},
	{Name: "tls-cert-file", Default: "", Effective: true},
	{Name: "tls-key-file", Default: "", Effective: true},
	{Name: "tls-key-file-pass", Default: "", Sensitive: true, Effective: true},
	{Name: "tls-client-cert-file", Default: "", Effective: true},
	{Name: "tls-client-key-file", Default: "", Effective: true},
	{Name: "tls-client-key-file-pass", Default: "", Sensitive: true, Effective: true},
	{Name: "tls-dh-params-file", Default: "", Effective: true},
	{Name: "tls-ca-cert-file", Default: "", Effective: true},
	{Name: "tls-ca-cert-dir", Default: "", Effective: true},
	{Name: "tls-auth-clients", Kind: KindEnum, Default: "yes", Enum: []string{"no", "yes", "optional"}, Effective: true},
	{Name: "tls-protocols", Default: "", Effective: true},
	{Name: "tls-ciphers", Default: "", Effective: true},
	{Name: "tls-ciphersuites", Default: "", Effective: true},
	{Name: "tls-prefer-server-ciphers", Kind: KindBool, Default: "no", Effective: true},
	{Name: "tls-session-caching", Kind: KindBool, Default: "yes", Effective: true},
	{Name: "tls-session-cache-size", Kind: KindInt, Default: "20480", Min: 0, Max: intMax, Effective: true},
	{Name: "tls-session-cache-timeout", Kind: KindInt, Default: "300", Min: 0, Max: intMax, Effective: true},
	{Name: "tls-replication", Kind: KindBool, Default: "no", Effective: true},
	{Name: "tls-cluster", Kind: KindBool, Default: "no", Effective: true},

	// Accepted and reported so that tools which read or set them keep
	// working; they do not change Ordo's behaviour.
	{Name: "maxmemory-samples", Kind: KindInt, Default: "5", Min: 1, Max: intMax, Effective: true},
	{Name: "maxmemory-eviction-tenacity", Kind: KindInt, Default: "10", Min: 0, Max: 100},
	{Name: "maxmemory-clients", Kind: KindMemory, Default: "0"},
	{Name: "aof-use-rdb-preamble", Kind: KindBool, Default: "yes"},
	{Name: "aof-rewrite-incremental-fsync", Kind: KindBool, Default: "yes"},
	{Name: "aof-timestamp-enabled", Kind: KindBool, Default: "no"},
	{Name: "aof-disable-auto-gc", Kind: KindBool, Default: "no"},
	{Name: "no-appendfsync-on-rewrite", Kind: KindBool, Default: "no"},
	{Name: "client-query-buffer-limit", Kind: KindMemory, Default: "1073741824", Min: 1024 * 1024, Max: longMax},
	{Name: "client-output-buffer-limit", Default: "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
	{Name: "tcp-backlog", Kind: KindInt, Default: "511", Min: 0, Max: intMax, Immutable: true},
	{Name: "dynamic-hz", Kind: KindBool, Default: "yes"},
	{Name: "pidfile", Default: "", Immutable: true},
	{Name: "daemonize", Kind: KindBool, Default: "no", Immutable: true},
	{Name: "supervised", Kind: KindEnum, Default: "no", Enum: []string{"upstart", "systemd", "auto", "no"}, Immutable: true},
	{Name: "protected-mode", Kind: KindBool, Default: "yes"},
	{Name: "hash-max-listpack-entries", Aliases: []string{"hash-max-ziplist-entries"}, Kind: KindInt, Default: "512", Min: 0, Max: longMax},
	{Name: "hash-max-listpack-value", Aliases: []string{"hash-max-ziplist-value"}, Kind: KindMemory, Default: "64", Min: 0, Max: longMax},
	{Name: "set-max-intset-entries", Kind: KindInt, Default: "512", Min: 0, Max: longMax},
	{Name: "zset-max-listpack-entries", Aliases: []string{"zset-max-ziplist-entries"}, Kind: KindInt, Default: "128", Min: 0, Max: longMax},
	{Name: "zset-max-listpack-value", Aliases: []string{"zset-max-ziplist-value"}, Kind: KindMemory, Default: "64", Min: 0, Max: longMax},
	{Name: "list-max-listpack-size", Aliases: []string{"list-max-ziplist-size"}, Kind: KindInt, Default: "-2", Min: intMin, Max: intMax},
	{Name: "list-compress-depth", Kind: KindInt, Default: "0", Min: 0, Max: intMax},
	{Name: "hll-sparse-max-bytes", Kind: KindMemory, Default: "3000", Min: 0, Max: longMax},
	{Name: "stream-node-max-bytes", Kind: KindMemory, Default: "4096", Min: 0, Max: longMax},
	{Name: "stream-node-max-entries", Kind: KindInt, Default: "100", Min: 0, Max: longMax},
	{Name: "activerehashing", Kind: KindBool, Default: "yes"},
	{Name: "activedefrag", Kind: KindBool, Default: "no"},
	{Name: "active-defrag-cycle-min", Kind: KindInt, Default: "1", Min: 1, Max: 99},
	{Name: "active-defrag-cycle-max", Kind: KindInt, Default: "25", Min: 1, Max: 99},
	{Name: "active-defrag-threshold-lower", Kind: KindInt, Default: "10", Min: 0, Max: 1000},
	{Name: "active-defrag-threshold-upper", Kind: KindInt, Default: "100", Min: 0, Max: 1000},
	{Name: "active-defrag-ignore-bytes", Kind: KindMemory, Default: "104857600", Min: 1, Max: longMax},
	{Name: "active-defrag-max-scan-fields", Kind: KindInt, Default: "1000", Min: 1, Max: longMax},
	{Name: "active-expire-effort", Kind: KindInt, Default: "1", Min: 1, Max: 10},
	{Name: "lazyfree-lazy-eviction", Kind: KindBool, Default: "no"},
	{Name: "lazyfree-lazy-expire", Kind: KindBool, Default: "no"},
	{Name: "lazyfree-lazy-server-del", Kind: KindBool, Default: "no"},
	{Name: "lazyfree-lazy-user-del", Kind: KindBool, Default: "no"},
	{Name: "lazyfree-lazy-user-flush", Kind: KindBool, Default: "no"},
	{Name: "io-threads", Kind: KindInt, Default: "1", Min: 1, Max: 128, Immutable: true},
	{Name: "io-threads-do-reads", Kind: KindBool, Default: "no", Immutable: true},
	{Name: "notify-keyspace-events", Default: ""},
	{Name: "latency-monitor-threshold", Kind: KindInt, Default: "0", Min: 0, Max: longMax},
	{Name: "latency-tracking", Kind: KindBool, Default: "yes"},
	{Name: "lfu-log-factor", Kind: KindInt, Default: "10", Min: 0, Max: intMax, Effective: true},
	{Name: "lfu-decay-time", Kind: KindInt, Default: "1", Min: 0, Max: intMax, Effective: true},
	{Name: "stop-writes-on-bgsave-error", Kind: KindBool, Default: "yes"},
	{Name: "rdbcompression", Kind: KindBool, Default: "yes"},
	{Name: "rdbchecksum", Kind: KindBool, Default: "yes", Immutable: true},
	{Name: "rdb-del-sync-files", Kind: KindBool, Default: "no"},
	{Name: "rdb-save-incremental-fsync", Kind: KindBool, Default: "yes"},
	{Name: "replicaof", Aliases: []string{"slaveof"}, Default: "", Immutable: true},
	{Name: "masterauth", Default: "", Sensitive: true},
	{Name: "masteruser", Default: "", Sensitive: true},
	{Name: "replica-read-only", Aliases: []string{"slave-read-only"}, Kind: KindBool, Default: "yes"},
	{Name: "replica-serve-stale-data", Aliases: []string{"slave-serve-stale-data"}, Kind: KindBool, Default: "yes"},
	{Name: "replica-lazy-flush", Aliases: []string{"slave-lazy-flush"}, Kind: KindBool, Default: "no"},
	{Name: "replica-ignore-maxmemory", Aliases: []string{"slave-ignore-maxmemory"}, Kind: KindBool, Default: "yes"},
	{Name: "replica-priority", Aliases: []string{"slave-priority"}, Kind: KindInt, Default: "100", Min: 0, Max: intMax},
	{Name: "replica-announce-ip", Aliases: []string{"slave-announce-ip"}, Default: ""},
	{Name: "replica-announce-port", Aliases: []string{"slave-announce-port"}, Kind: KindInt, Default: "0", Min: 0, Max: 65535},
	{Name: "min-replicas-to-write", Aliases: []string{"min-slaves-to-write"}, Kind: KindInt, Default: "0", Min: 0, Max: intMax},
	{Name: "min-replicas-max-lag", Aliases: []string{"min-slaves-max-lag"}, Kind: KindInt, Default: "10", Min: 0, Max: intMax},
	{Name: "repl-ping-replica-period", Aliases: []string{"repl-ping-slave-period"}, Kind: KindInt, Default: "10", Min: 1, Max: intMax},
	{Name: "repl-timeout", Kind: KindInt, Default: "60", Min: 1, Max: intMax},
	{Name: "repl-backlog-size", Kind: KindMemory, Default: "1048576", Min: 1, Max: longMax},
	{Name: "repl-backlog-ttl", Kind: KindInt, Default: "3600", Min: 0, Max: longMax},
	{Name: "repl-diskless-sync", Kind: KindBool, Default: "yes"},
	{Name: "repl-diskless-sync-delay", Kind: KindInt, Default: "5", Min: 0, Max: intMax},
	{Name: "repl-disable-tcp-nodelay", Kind: KindBool, Default: "no"},
	{Name: "cluster-enabled", Kind: KindBool, Default: "no", Immutable: true},
	{Name: "acllog-max-len", Kind: KindInt, Default: "128", Min: 0, Max: longMax},
	{Name: "aclfile", Default: "", Immutable: true},
	{Name: "unixsocket", Default: "", Immutable: true},
	{Name: "tracking-table-max-keys", Kind: KindInt, Default: "1000000", Min: 0, Max: longMax},
	{Name: "shutdown-timeout", Kind: KindInt, Default: "10", Min: 0, Max: intMax},
	{Name: "shutdown-on-sigint", Default: "default"},
	{Name: "shutdown-on-sigterm", Default: "default"},
	{Name: "crash-log-enabled", Kind: KindBool, Default: "yes"},
	{Name: "always-show-logo", Kind: KindBool, Default: "no", Immutable: true},
	{Name: "set-proc-title", Kind: KindBool, Default: "yes", Immutable: true},
	{Name: "syslog-enabled", Kind: KindBool, Default: "no", Immutable: true},
	{Name: "syslog-ident", Default: "redis", Immutable: true},
	{Name: "jemalloc-bg-thread", Kind: KindBool, Default: "yes"},
	{Name: "appendfsync-group-commit", Kind: KindBool, Default: "yes"},
}

var paramByName = func() map[string]*Param {
	m := map[string]*Param{}
	for _, p := range params {
		m[p.Name] = p
		for _, a := range p.Aliases {
			m[a] = p
		}
	}
	return m
}()

// LookupParam returns the parameter called name (or one of its aliases).
func LookupParam(name string) *Param { return paramByName[strings.ToLower(name)] }

// Params returns all parameters, sorted by name.
func Params() []*Param {
	out := append([]*Param(nil), params...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Config holds the current value of every parameter, normalized as
// CONFIG GET prints it. It is safe for concurrent use.
type Config struct {
	mu   sync.RWMutex
	vals map[string]string
	// snap is an immutable copy of vals (plus the integers parsed),
	// republished after every change: commands read configuration on hot
	// paths (maxmemory on every write, encoding thresholds), so reads take
	// no lock and parse nothing.
	snap atomic.Pointer[configSnap]

	// File is the configuration file the server was started with ("" if
	// none): CONFIG REWRITE writes it. Set by internal/config.
	File string

	onChange map[string][]func(value string) error

	// users are the "user name rules..." directives of the config file
	// and flags, loaded when the engine starts (acl.go).
	users [][]string
	// userLines, set by the engine, gives ACL LIST's lines for CONFIG
	// REWRITE (run under the engine lock).
	userLines func() []string
}

// NewConfig returns the defaults.
func NewConfig() *Config {
	c := &Config{vals: map[string]string{}, onChange: map[string][]func(string) error{}}
	for _, p := range params {
		v, err := p.normalize(p.Default)
		if err != nil {
			panic("engine: bad default for " + p.Name + ": " + err.Error())
		}
		c.vals[p.Name] = v
	}
	c.publish()
	return c
}

type configSnap struct {
	vals map[string]string
	ints map[string]int64
	lfu  bool // maxmemory-policy is an LFU one

	// Parameters every command reads (call, recordCall), without a map
	// lookup by name each time.
	maxmemory, minReplicas, minReplicasLag, slowlogSlower, slowlogMax int64
	// stream-node-max-bytes and -entries, read by every XADD.
	streamNodeBytes, streamNodeEntries int64
	// The limits the write commands of the bench's rows read each time
	// (SETBIT, PFADD, SADD, HSET, ZADD): a map lookup by name was 1-3%
	// of such a request's server CPU.
	protoMaxBulkLen, hllSparseMaxBytes, setMaxIntsetEntries    int64
	hashMaxEntries, hashMaxValue, zsetMaxEntries, zsetMaxValue int64
}

// publish republishes the snapshot; the caller holds mu (or owns c).
func (c *Config) publish() {
	s := &configSnap{vals: make(map[string]string, len(c.vals)), ints: map[string]int64{}}
	for k, v := range c.vals {
		s.vals[k] = v
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			s.ints[k] = n
		}
	}
	s.lfu = strings.HasSuffix(s.vals["maxmemory-policy"], "-lfu")
	s.maxmemory, s.minReplicas, s.minReplicasLag = s.ints["maxmemory"], s.ints["min-replicas-to-write"], s.ints["min-replicas-max-lag"]
	s.slowlogSlower, s.slowlogMax = s.ints["slowlog-log-slower-than"], s.ints["slowlog-max-len"]
	s.streamNodeBytes, s.streamNodeEntries = s.ints["stream-node-max-bytes"], s.ints["stream-node-max-entries"]
	s.protoMaxBulkLen, s.hllSparseMaxBytes = s.ints["proto-max-bulk-len"], s.ints["hll-sparse-max-bytes"]
	s.setMaxIntsetEntries = s.ints["set-max-intset-entries"]
	s.hashMaxEntries, s.hashMaxValue = s.ints["hash-max-listpack-entries"], s.ints["hash-max-listpack-value"]
	s.zsetMaxEntries, s.zsetMaxValue = s.ints["zset-max-listpack-entries"], s.ints["zset-max-listpack-value"]
	c.snap.Store(s)
}

// hot returns the current snapshot, for the parameters read per command.
func (c *Config) hot() *configSnap { return c.snap.Load() }

// LFU reports whether maxmemory-policy is an LFU policy (keys then count
// accesses rather than record the time of the last one).
func (c *Config) LFU() bool { return c.snap.Load().lfu }

// streamNodeLimits returns stream-node-max-bytes and
// stream-node-max-entries.
func (c *Config) streamNodeLimits() (maxBytes, maxEntries int64) {
	s := c.snap.Load()
	return s.streamNodeBytes, s.streamNodeEntries
}

// Get returns the value of name (canonical names are the fast path).
func (c *Config) Get(name string) string {
	s := c.snap.Load()
	if v, ok := s.vals[name]; ok {
		return v
	}
	p := LookupParam(name)
	if p == nil {
		return ""
	}
	return s.vals[p.Name]
}

// Int returns an integer or memory parameter.
func (c *Config) Int(name string) int64 {
	s := c.snap.Load()
	if n, ok := s.ints[name]; ok {
		return n
	}
	n, _ := strconv.ParseInt(c.Get(name), 10, 64)
	return n
}

// Bool returns a yes/no parameter.
func (c *Config) Bool(name string) bool { return c.Get(name) == "yes" }

// AuthRequired reports whether clients must authenticate.
func (c *Config) AuthRequired() bool { return c.Get("requirepass") != "" }

// OnChange registers fn to run when CONFIG SET changes name at runtime
// (not at start-up). If fn fails, the whole CONFIG SET is undone and its
// error is reported, as Redis does when applying a value fails.
func (c *Config) OnChange(name string, fn func(value string) error) {
	p := LookupParam(name)
	if p == nil {
		panic("engine: OnChange for unknown parameter " + name)
	}
	c.mu.Lock()
	c.onChange[p.Name] = append(c.onChange[p.Name], fn)
	c.mu.Unlock()
}

// Set sets name to value after validating it; startup allows immutable
// and protected parameters (flags and config file).
func (c *Config) Set(name, value string, startup bool) error {
	p := LookupParam(name)
	if p == nil {
		return fmt.Errorf("unknown option '%s'", name)
	}
	if !startup && p.Immutable {
		return fmt.Errorf("can't set immutable config")
	}
	if !startup && p.Protected && c.Get("enable-protected-configs") != "yes" {
		return fmt.Errorf("can't set protected config")
	}
	v, err := p.normalize(value)
	if err != nil {
		return err
	}
	if p.Name == "dir" {
		if abs, err := filepath.Abs(v); err == nil {
			v = abs
		}
	}
	c.mu.Lock()
	c.vals[p.Name] = v
	c.publish()
	c.mu.Unlock()
	return nil
}

// SetError is a failed CONFIG SET: Arg is the argument it names, Msg the
// reason; Unknown marks an unknown parameter (a different Redis message).
type SetError struct {
	Arg, Msg string
	Unknown  bool
}

// Reply is the error reply Redis 7.0 gives for e.
func (e *SetError) Reply() string {
	if e.Unknown {
		return "ERR Unknown option or number of arguments for CONFIG SET - '" + e.Arg + "'"
	}
	return "ERR CONFIG SET failed (possibly related to argument '" + e.Arg + "') - " + e.Msg
}

func (e *SetError) Error() string { return e.Reply() }

// SetMany is CONFIG SET: it sets name/value pairs all or nothing. local
// tells whether the request comes from a loopback connection (for
// enable-protected-configs local).
func (c *Config) SetMany(pairs []string, local bool) *SetError {
	n := len(pairs) / 2
	ps := make([]*Param, n)
	for i := 0; i < n; i++ {
		name := pairs[2*i]
		p := LookupParam(name)
		if p == nil {
			return &SetError{Arg: name, Unknown: true}
		}
		if p.Immutable {
			return &SetError{Arg: name, Msg: "can't set immutable config"}
		}
		if p.Protected {
			switch c.Get("enable-protected-configs") {
			case "yes":
			case "local":
				if !local {
					return &SetError{Arg: name, Msg: "can't set protected config"}
				}
			default:
				return &SetError{Arg: name, Msg: "can't set protected config"}
			}
		}
		for j := 0; j < i; j++ {
			if strings.EqualFold(pairs[2*j], name) { // an alias and its name may both appear
				return &SetError{Arg: name, Msg: "duplicate parameter"}
			}
		}
		ps[i] = p
	}
	vals := make([]string, n)
	for i, p := range ps {
		v, err := p.normalize(pairs[2*i+1])
		if err != nil {
			return &SetError{Arg: pairs[2*i], Msg: err.Error()}
		}
		if p.Name == "dir" {
			if st, err := os.Stat(v); err != nil || !st.IsDir() {
				msg := "No such file or directory"
				if err == nil {
					msg = "Not a directory"
				}
				return &SetError{Arg: pairs[2*i], Msg: msg}
			}
			if abs, err := filepath.Abs(v); err == nil {
				v = abs
			}
		}
		vals[i] = v
	}
	c.mu.Lock()
	old := make([]string, n)
	for i, p := range ps {
		old[i] = c.vals[p.Name]
		c.vals[p.Name] = vals[i]
	}
	c.publish()
	var hooks []func() error
	var hookArg []string
	for i, p := range ps {
		for _, fn := range c.onChange[p.Name] {
			v := vals[i]
			hooks = append(hooks, func() error { return fn(v) })
			hookArg = append(hookArg, pairs[2*i])
		}
	}
	c.mu.Unlock()
	for i, h := range hooks {
		if err := h(); err != nil {
			c.mu.Lock()
			for j := len(ps) - 1; j >= 0; j-- {
				c.vals[ps[j].Name] = old[j]
			}
			c.publish()
			c.mu.Unlock()
			return &SetError{Arg: hookArg[i], Msg: err.Error()}
		}
	}
	return nil
}

// Snapshot returns a copy of all values by canonical name.
func (c *Config) Snapshot() map[string]string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	m := make(map[string]string, len(c.vals))
	for k, v := range c.vals {
		m[k] = v
	}
	return m
}

func (p *Param) hasRange() bool { return p.Min != 0 || p.Max != 0 }

func (p *Param) normalize(v string) (string, error) {
	switch p.Kind {
	case KindInt:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", fmt.Errorf("argument couldn't be parsed into an integer")
		}
		if p.hasRange() && (n < p.Min || n > p.Max) {
			return "", fmt.Errorf("argument must be between %d and %d inclusive", p.Min, p.Max)
		}
		if p.Name == "hz" && n > 500 { // Redis clamps to CONFIG_MAX_HZ
			n = 500
		}
		return strconv.FormatInt(n, 10), nil
	case KindMemory:
		n, ok := ParseMemory(v)
		if !ok {
			return "", fmt.Errorf("argument must be a memory value")
		}
		if p.hasRange() && (n < p.Min || n > p.Max) {
			return "", fmt.Errorf("argument must be between %d and %d inclusive", p.Min, p.Max)
		}
		return strconv.FormatInt(n, 10), nil
	case KindBool:
		switch strings.ToLower(v) {
		case "yes":
			return "yes", nil
		case "no":
			return "no", nil
		}
		return "", fmt.Errorf("argument must be 'yes' or 'no'")
	case KindEnum:
		lv := strings.ToLower(v)
		for _, e := range p.Enum {
			if e == lv {
				return e, nil
			}
		}
		return "", fmt.Errorf("argument(s) must be one of the following: %s", strings.Join(p.Enum, ", "))
	}
	switch p.Name {
	case "save":
		return normalizeSave(v)
	case "notify-keyspace-events":
		return normalizeKeyspaceEvents(v)
	}
	return v, nil
}

// normalizeSave validates "seconds changes [seconds changes ...]".
func normalizeSave(v string) (string, error) {
	f := strings.Fields(v)
	if len(f)%2 != 0 {
		return "", fmt.Errorf("Invalid save parameters")
	}
	for _, x := range f {
		if _, err := strconv.ParseInt(x, 10, 64); err != nil {
			return "", fmt.Errorf("Invalid save parameters")
		}
	}
	out := make([]string, len(f))
	for i, x := range f {
		n, _ := strconv.ParseInt(x, 10, 64)
		out[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(out, " "), nil
}

// parseKeyspaceEvents turns a notify-keyspace-events value into class
// flags, ignoring unknown characters (the value was validated).
func parseKeyspaceEvents(v string) int {
	flags := 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case 'A':
			flags |= nkAll
		case 'g':
			flags |= nkGeneric
		case '$':
			flags |= nkString
		case 'l':
			flags |= nkList
		case 's':
			flags |= nkSet
		case 'h':
			flags |= nkHash
		case 'z':
			flags |= nkZset
		case 'x':
			flags |= nkExpired
		case 'e':
			flags |= nkEvicted
		case 'K':
			flags |= nkKeyspace
		case 'E':
			flags |= nkKeyevent
		case 't':
			flags |= nkStream
		case 'm':
			flags |= nkKeyMiss
		case 'd':
			flags |= nkModule
		case 'n':
			flags |= nkNew
		}
	}
	return flags
}

// Keyspace event classes, as Redis's notify.c spells them.
const (
	nkGeneric = 1 << iota
	nkString
	nkList
	nkSet
	nkHash
	nkZset
	nkExpired
	nkEvicted
	nkStream
	nkModule
	nkKeyspace
	nkKeyevent
	nkKeyMiss
	nkNew
	nkAll = nkGeneric | nkString | nkList | nkSet | nkHash | nkZset | nkExpired | nkEvicted | nkStream | nkModule
)

// normalizeKeyspaceEvents parses and re-prints notify-keyspace-events as
// Redis does ("KEA" becomes "AKE").
func normalizeKeyspaceEvents(v string) (string, error) {
	for i := 0; i < len(v); i++ {
		if !strings.ContainsRune("Ag$lshzxeKEtmdn", rune(v[i])) {
			return "", fmt.Errorf("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")
		}
	}
	flags := parseKeyspaceEvents(v)
	var b strings.Builder
	if flags&nkAll == nkAll {
		b.WriteByte('A')
	} else {
		for _, x := range []struct {
			f int
			c byte
		}{{nkGeneric, 'g'}, {nkString, '$'}, {nkList, 'l'}, {nkSet, 's'}, {nkHash, 'h'}, {nkZset, 'z'},
			{nkExpired, 'x'}, {nkEvicted, 'e'}, {nkStream, 't'}, {nkModule, 'd'}, {nkNew, 'n'}} {
			if flags&x.f != 0 {
				b.WriteByte(x.c)
			}
		}
	}
	if flags&nkKeyspace != 0 {
		b.WriteByte('K')
	}
	if flags&nkKeyevent != 0 {
		b.WriteByte('E')
	}
	if flags&nkKeyMiss != 0 {
		b.WriteByte('m')
	}
	if flags&nkAll == nkAll && flags&nkNew != 0 {
		b.WriteByte('n') // kept, but not shown (displayValue)
	}
	return b.String(), nil
}

// displayValue is what CONFIG GET shows for a stored value: Redis 7.0
// prints notify-keyspace-events without its 'n' when 'A' is set (its
// keyspaceEventsFlagsToString), though the class stays enabled, so the
// stored value keeps the 'n'.
func displayValue(name, v string) string {
	if name == "notify-keyspace-events" && strings.HasPrefix(v, "A") {
		return strings.Replace(v, "n", "", 1)
	}
	return v
}

// ParseMemory parses "100", "100k", "100kb", "2gb" ... as redis.conf does
// (k=1000, kb=1024, m=1000^2, mb=1024^2, g, gb).
func ParseMemory(s string) (int64, bool) {
	ls := strings.ToLower(s)
	mul := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"kb", 1024}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000000}, {"g", 1000000000}, {"b", 1}} {
		if strings.HasSuffix(ls, u.suf) {
			ls, mul = strings.TrimSuffix(ls, u.suf), u.m
			break
		}
	}
	if ls == "" || ls[0] == '+' || ls[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseInt(ls, 10, 64)
	if err != nil || n < 0 || (mul > 1 && n > (1<<63-1)/mul) {
		return 0, false
	}
	return n * mul, true
}

// Rewrite is CONFIG REWRITE: it rewrites c.File so that it reflects the
// current configuration, keeping comments and the order of the lines it
// already has, replacing the directives it knows, removing duplicates of
// them, and appending the parameters that differ from their defaults.
func (c *Config) Rewrite() error {
	if c.File == "" {
		return fmt.Errorf("The server is running without a config file")
	}
	old, err := os.ReadFile(c.File)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	vals := c.Snapshot()
	done := map[string]bool{}
	var out []string
	// Users are rewritten as Redis does: in place of the first user line,
	// or appended; not at all (and the old lines dropped) with an aclfile.
	var users []string
	if c.userLines != nil && vals["aclfile"] == "" {
		users = c.userLines()
	}
	const marker = "# Generated by CONFIG REWRITE"
	for _, line := range strings.Split(strings.TrimRight(string(old), "\n"), "\n") {
		t := strings.TrimSpace(line)
		if t == marker {
			continue
		}
		if t == "" || t[0] == '#' {
			out = append(out, line)
			continue
		}
		name := strings.ToLower(strings.Fields(t)[0])
		if name == "user" && c.userLines != nil {
			if !done["user"] {
				out = append(out, users...)
				done["user"] = true
			}
			continue
		}
		p := LookupParam(name)
		if p == nil {
			out = append(out, line)
			continue
		}
		if done[p.Name] {
			continue
		}
		done[p.Name] = true
		out = append(out, rewriteLines(p.Name, vals[p.Name])...)
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	var extra []string
	for _, p := range Params() {
		if done[p.Name] || p.Name == "appendfsync-group-commit" {
			continue
		}
		def, _ := p.normalize(p.Default)
		if p.Name == "dir" {
			def, _ = filepath.Abs(def)
		}
		if vals[p.Name] != def {
			extra = append(extra, rewriteLines(p.Name, vals[p.Name])...)
		}
	}
	if !done["user"] {
		extra = append(extra, users...)
	}
	if len(extra) > 0 {
		out = append(out, marker)
		out = append(out, extra...)
	}
	text := strings.Join(out, "\n") + "\n"
	tmp := c.File + ".tmp-rewrite"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, c.File)
}

// rewriteLines renders one directive as redis.conf lines.
func rewriteLines(name, v string) []string {
	if name == "save" {
		f := strings.Fields(v)
		if len(f) == 0 {
			return []string{`save ""`}
		}
		var lines []string
		for i := 0; i+1 < len(f); i += 2 {
			lines = append(lines, "save "+f[i]+" "+f[i+1])
		}
		return lines
	}
	if name == "bind" || name == "client-output-buffer-limit" || name == "replicaof" {
		if v == "" {
			return nil
		}
		return []string{name + " " + v}
	}
	return []string{name + " " + quoteConf(v)}
}

// quoteConf quotes a value for redis.conf when it needs it.
func quoteConf(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\r\n\"'\\#") {
		ok := true
		for i := 0; i < len(v); i++ {
			if v[i] < '!' || v[i] > '~' {
				ok = false
				break
			}
		}
		if ok {
			return v
		}
	}
	return strconv.Quote(v)
}
