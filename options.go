package ordo

import (
	"fmt"
	"log/slog"
	"strconv"

	"github.com/ordo-db/ordo/internal/engine"
)

// SyncPolicy is when a change reaches stable storage (redis.conf's
// appendfsync).
type SyncPolicy int

const (
	// SyncEverySec writes every change to the log before Do returns and
	// fsyncs once a second (the default, as Redis's everysec).
	SyncEverySec SyncPolicy = iota
	// SyncAlways returns from Do only once the change is fsynced
	// (concurrent callers share one fsync).
	SyncAlways
	// SyncNo writes before Do returns and lets the OS decide when to fsync.
	SyncNo
)

func (p SyncPolicy) config() (string, error) {
	switch p {
	case SyncEverySec:
		return "everysec", nil
	case SyncAlways:
		return "always", nil
	case SyncNo:
		return "no", nil
	}
	return "", fmt.Errorf("ordo: unknown SyncPolicy %d", int(p))
}

// Options configure Open. A nil *Options, and every zero field, means
// Redis's default.
type Options struct {
	// InMemory keeps the data in memory only: nothing is read from or
	// written to dir (redis.conf: appendonly no).
	InMemory bool
	// Sync is when changes reach stable storage (appendfsync).
	Sync SyncPolicy
	// MaxMemory limits the memory this database's data may use, in bytes;
	// past it, commands that would grow the data fail with Redis's OOM
	// error (maxmemory, policy noeviction). It counts this database only,
	// never the rest of the host program's heap. 0 is no limit.
	MaxMemory int64
	// Databases is the number of databases SELECT can reach (default 16).
	Databases int
	// Logger receives persistence messages (rewrites, recovery from a
	// torn log, write errors). nil is silent.
	Logger *slog.Logger
	// Config sets any other redis.conf parameter by name, as CONFIG SET
	// would ("auto-aof-rewrite-percentage": "50", ...). Open fails on an
	// unknown name or a bad value. The typed fields above take precedence.
	Config map[string]string
}

// engineConfig turns o into the engine's configuration for dir.
func (o *Options) engineConfig(dir string) (*engine.Config, error) {
	cfg := engine.NewConfig()
	if o == nil {
		o = &Options{}
	}
	set := func(k, v string) error {
		if err := cfg.Set(k, v, true); err != nil {
			return fmt.Errorf("ordo: option %s: %w", k, err)
		}
		return nil
	}
	// An embedded database has no save points (no dump.rdb written by
	// itself) unless Config asks for them: its snapshots are its own.
	if err := set("save", ""); err != nil {
		return nil, err
	}
	for k, v := range o.Config {
		if err := set(k, v); err != nil {
			return nil, err
		}
	}
	if err := set("dir", dir); err != nil {
		return nil, err
	}
	if o.InMemory {
		if err := set("appendonly", "no"); err != nil {
			return nil, err
		}
	}
	if o.Sync != SyncEverySec || o.Config["appendfsync"] == "" {
		s, err := o.Sync.config()
		if err != nil {
			return nil, err
		}
		if err := set("appendfsync", s); err != nil {
			return nil, err
		}
	}
	if o.MaxMemory < 0 {
		return nil, fmt.Errorf("ordo: MaxMemory %d is negative", o.MaxMemory)
	}
	if o.MaxMemory > 0 {
		if err := set("maxmemory", strconv.FormatInt(o.MaxMemory, 10)); err != nil {
			return nil, err
		}
	}
	if o.Databases < 0 {
		return nil, fmt.Errorf("ordo: Databases %d is negative", o.Databases)
	}
	if o.Databases > 0 {
		if err := set("databases", strconv.Itoa(o.Databases)); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}
