package server

import (
	"fmt"
	"net/http"
	_ "net/http/pprof" // served only when ORDO_PPROF is set
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/ordo-db/ordo/internal/aof"
	"github.com/ordo-db/ordo/internal/config"
	"github.com/ordo-db/ordo/internal/engine"
)

// Main runs ordo-server with redis-server-style arguments until SIGTERM,
// SIGINT or SHUTDOWN.
func Main(args []string) error {
	if len(args) == 1 && (args[0] == "-v" || args[0] == "--version") {
		fmt.Printf("Ordo server v=%s (compatible with Redis %s)\n", Version, engine.RedisVersion)
		return nil
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Println("Usage: ordo-server [/path/to/ordo.conf] [--option value ...]\n" +
			"Options are redis-server's: --port 6379 --bind 127.0.0.1 --dir ./data --requirepass pw\n" +
			"--appendonly yes|no --appendfsync always|everysec|no --maxmemory 1gb --databases 16 ...")
		return nil
	}
	cfg := engine.NewConfig()
	if err := config.Load(cfg, args); err != nil {
		return err
	}
	if err := cfg.Set("dir", cfg.Get("dir"), true); err != nil { // make absolute
		return err
	}
	if err := os.MkdirAll(cfg.Get("dir"), 0o755); err != nil {
		return fmt.Errorf("dir: %w", err)
	}
	if addr := os.Getenv("ORDO_PPROF"); addr != "" {
		// Profiling on demand: ORDO_PPROF=127.0.0.1:6060 serves net/http/pprof.
		go func() {
			if err := http.ListenAndServe(addr, nil); err != nil {
				fmt.Fprintln(os.Stderr, "pprof:", err)
			}
		}()
	}
	e := NewEngine(cfg)
	defer e.Close()
	s := New(e)
	// Load the data before listening; a clean exit writes a snapshot
	// (SHUTDOWN NOSAVE only makes the log durable).
	p, err := aof.Open(e, s.Logf)
	if err != nil {
		return err
	}
	snapshot := atomic.Bool{}
	snapshot.Store(true)
	defer func() {
		if err := p.Close(snapshot.Load()); err != nil {
			s.Logf("Error closing the append only file: %v", err)
		}
	}()
	if err := s.Listen(); err != nil {
		return err
	}
	e.Shutdown = func(c *engine.Ctx, save bool) error {
		snapshot.Store(save)
		go s.Close()
		return nil
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		select {
		case got := <-sig:
			s.Logf("Received %v, shutting down.", got)
			s.Close()
		case <-s.Done():
		}
	}()
	s.Logf("Ordo %s ready to accept connections on %v", Version, s.Addrs())
	s.Serve()
	<-s.Done()
	s.Logf("Ordo is now ready to exit, bye bye...")
	return nil
}

// Version is Ordo's own version.
const Version = "0.1.0"
