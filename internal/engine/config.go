package engine

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
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

// params is the table of known parameters. Defaults are Redis 7.0's
// except where Ordo differs on purpose (bind 127.0.0.1, appendonly yes,
// dir ./data).
var params = []*Param{
	{Name: "bind", Default: "127.0.0.1", Immutable: true, Effective: true},
	{Name: "port", Kind: KindInt, Default: "6379", Min: 0, Max: 65535, Immutable: true, Effective: true},
	{Name: "dir", Default: "./data", Immutable: true, Protected: true, Effective: true},
	{Name: "requirepass", Default: "", Sensitive: true, Effective: true},
	{Name: "databases", Kind: KindInt, Default: "16", Min: 1, Max: 1 << 20, Immutable: true, Effective: true},
	{Name: "maxclients", Kind: KindInt, Default: "10000", Min: 1, Max: 1 << 31, Effective: true},
	{Name: "maxmemory", Kind: KindMemory, Default: "0", Effective: true},
	{Name: "maxmemory-policy", Kind: KindEnum, Default: "noeviction", Effective: true,
		Enum: []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"}},
	{Name: "maxmemory-samples", Kind: KindInt, Default: "5", Min: 1, Max: 64},
	{Name: "appendonly", Kind: KindBool, Default: "yes", Effective: true},
	{Name: "appendfsync", Kind: KindEnum, Default: "everysec", Enum: []string{"always", "everysec", "no"}, Effective: true},
	{Name: "appendfilename", Default: "appendonly.aof", Immutable: true, Protected: true, Effective: true},
	{Name: "appenddirname", Default: "appendonlydir", Immutable: true, Protected: true, Effective: true},
	{Name: "dbfilename", Default: "dump.rdb", Immutable: true, Protected: true, Effective: true},
	{Name: "save", Default: "3600 1 300 100 60 10000", Effective: true},
	{Name: "auto-aof-rewrite-percentage", Kind: KindInt, Default: "100", Min: 0, Max: 1 << 31, Effective: true},
	{Name: "auto-aof-rewrite-min-size", Kind: KindMemory, Default: "64mb", Effective: true},
	{Name: "aof-load-truncated", Kind: KindBool, Default: "yes", Effective: true},
	{Name: "aof-use-rdb-preamble", Kind: KindBool, Default: "yes"},
	{Name: "no-appendfsync-on-rewrite", Kind: KindBool, Default: "no"},
	{Name: "proto-max-bulk-len", Kind: KindMemory, Default: "536870912", Min: 1024 * 1024, Effective: true},
	{Name: "client-query-buffer-limit", Kind: KindMemory, Default: "1073741824", Min: 1024 * 1024},
	{Name: "timeout", Kind: KindInt, Default: "0", Min: 0, Max: 1 << 31, Effective: true},
	{Name: "tcp-keepalive", Kind: KindInt, Default: "300", Min: 0, Max: 1 << 31, Effective: true},
	{Name: "tcp-backlog", Kind: KindInt, Default: "511", Immutable: true},
	{Name: "hz", Kind: KindInt, Default: "10", Min: 0, Max: 500},
	{Name: "dynamic-hz", Kind: KindBool, Default: "yes"},
	{Name: "loglevel", Kind: KindEnum, Default: "notice", Enum: []string{"debug", "verbose", "notice", "warning"}, Effective: true},
	{Name: "logfile", Default: "", Immutable: true, Protected: true, Effective: true},
	{Name: "pidfile", Default: "", Immutable: true, Protected: true},
	{Name: "daemonize", Kind: KindBool, Default: "no", Immutable: true},
	{Name: "protected-mode", Kind: KindBool, Default: "yes"},
	{Name: "busy-reply-threshold", Aliases: []string{"lua-time-limit"}, Kind: KindInt, Default: "5000", Min: 0, Max: 1 << 40, Effective: true},
	{Name: "hash-max-listpack-entries", Aliases: []string{"hash-max-ziplist-entries"}, Kind: KindInt, Default: "128", Min: 0, Max: 1 << 40},
	{Name: "hash-max-listpack-value", Aliases: []string{"hash-max-ziplist-value"}, Kind: KindInt, Default: "64", Min: 0, Max: 1 << 40},
	{Name: "set-max-intset-entries", Kind: KindInt, Default: "512", Min: 0, Max: 1 << 40},
	{Name: "zset-max-listpack-entries", Aliases: []string{"zset-max-ziplist-entries"}, Kind: KindInt, Default: "128", Min: 0, Max: 1 << 40},
	{Name: "zset-max-listpack-value", Aliases: []string{"zset-max-ziplist-value"}, Kind: KindInt, Default: "64", Min: 0, Max: 1 << 40},
	{Name: "list-max-listpack-size", Aliases: []string{"list-max-ziplist-size"}, Kind: KindInt, Default: "-2", Min: -5, Max: 1 << 40},
	{Name: "list-compress-depth", Kind: KindInt, Default: "0", Min: 0, Max: 1 << 40},
	{Name: "stream-node-max-bytes", Kind: KindMemory, Default: "4096"},
	{Name: "stream-node-max-entries", Kind: KindInt, Default: "100", Min: 0, Max: 1 << 40},
	{Name: "activerehashing", Kind: KindBool, Default: "yes"},
	{Name: "lazyfree-lazy-eviction", Kind: KindBool, Default: "no"},
	{Name: "lazyfree-lazy-expire", Kind: KindBool, Default: "no"},
	{Name: "lazyfree-lazy-server-del", Kind: KindBool, Default: "no"},
	{Name: "lazyfree-lazy-user-del", Kind: KindBool, Default: "no"},
	{Name: "lazyfree-lazy-user-flush", Kind: KindBool, Default: "no"},
	{Name: "io-threads", Kind: KindInt, Default: "1", Min: 1, Max: 128, Immutable: true},
	{Name: "notify-keyspace-events", Default: ""},
	{Name: "slowlog-log-slower-than", Kind: KindInt, Default: "10000", Min: -1, Max: 1 << 62},
	{Name: "slowlog-max-len", Kind: KindInt, Default: "128", Min: 0, Max: 1 << 40},
	{Name: "latency-monitor-threshold", Kind: KindInt, Default: "0", Min: 0, Max: 1 << 62},
	{Name: "enable-debug-command", Kind: KindEnum, Default: "local", Enum: []string{"yes", "no", "local"}, Immutable: true, Effective: true},
	{Name: "enable-protected-configs", Kind: KindEnum, Default: "no", Enum: []string{"yes", "no", "local"}, Immutable: true, Effective: true},
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
}

// NewConfig returns the defaults.
func NewConfig() *Config {
	c := &Config{vals: map[string]string{}}
	for _, p := range params {
		v, err := p.normalize(p.Default)
		if err != nil {
			panic("engine: bad default for " + p.Name + ": " + err.Error())
		}
		c.vals[p.Name] = v
	}
	return c
}

// Get returns the value of name.
func (c *Config) Get(name string) string {
	p := LookupParam(name)
	if p == nil {
		return ""
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.vals[p.Name]
}

// Int returns an integer or memory parameter.
func (c *Config) Int(name string) int64 {
	n, _ := strconv.ParseInt(c.Get(name), 10, 64)
	return n
}

// Bool returns a yes/no parameter.
func (c *Config) Bool(name string) bool { return c.Get(name) == "yes" }

// AuthRequired reports whether clients must authenticate.
func (c *Config) AuthRequired() bool { return c.Get("requirepass") != "" }

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
	c.mu.Unlock()
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

func (p *Param) normalize(v string) (string, error) {
	switch p.Kind {
	case KindInt:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", fmt.Errorf("argument couldn't be parsed into an integer")
		}
		if (p.Min != 0 || p.Max != 0) && (n < p.Min || n > p.Max) {
			return "", fmt.Errorf("argument must be between %d and %d inclusive", p.Min, p.Max)
		}
		return strconv.FormatInt(n, 10), nil
	case KindMemory:
		n, ok := ParseMemory(v)
		if !ok {
			return "", fmt.Errorf("argument must be a memory value")
		}
		if p.Min != 0 && n < p.Min {
			return "", fmt.Errorf("argument must be between %d and %d inclusive", p.Min, int64(1)<<62)
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
	return v, nil
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
	n, err := strconv.ParseInt(ls, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n * mul, true
}
