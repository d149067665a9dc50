// Package config reads ordo-server's configuration the way redis-server
// does: an optional redis.conf-style file, then "--name value ..." flags
// that override it. Unknown directives are errors that name the line.
package config

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// Load applies a config file (path may be "" for none) and then the flags
// (arguments after the optional file, e.g. ["--port", "6380"]) to cfg.
func Load(cfg *engine.Config, args []string) error {
	// As in redis-server, a first argument that does not start with '-'
	// is the file ("-help" is a mistaken option, not a file name).
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		f, err := os.Open(args[0])
		if err != nil {
			return fmt.Errorf("config: %w", err)
		}
		if abs, aerr := filepath.Abs(args[0]); aerr == nil {
			cfg.File = abs
		} else {
			cfg.File = args[0]
		}
		err = Read(cfg, f, args[0])
		f.Close()
		if err != nil {
			return err
		}
		args = args[1:]
	}
	return ApplyFlags(cfg, args)
}

// ApplyFlags applies "--name value [value ...]" arguments, as redis-server
// accepts them ("--save ”" sets an empty value).
func ApplyFlags(cfg *engine.Config, args []string) error {
	for i := 0; i < len(args); {
		if !strings.HasPrefix(args[i], "--") {
			return fmt.Errorf("config: unexpected argument %q (options look like --port 6380)", args[i])
		}
		name := strings.TrimPrefix(args[i], "--")
		i++
		var vals []string
		for i < len(args) && !strings.HasPrefix(args[i], "--") {
			vals = append(vals, args[i])
			i++
		}
		if name == "user" {
			if err := cfg.AddUser(strings.Fields(strings.Join(vals, " "))); err != nil {
				return fmt.Errorf("config: --user: %w", err)
			}
			continue
		}
		if err := cfg.Set(name, strings.Join(vals, " "), true); err != nil {
			return fmt.Errorf("config: --%s: %w", name, err)
		}
	}
	return nil
}

// Read applies a redis.conf-style file: one "name value ..." directive a
// line, '#' comments, quoting as in redis.conf.
func Read(cfg *engine.Config, r io.Reader, name string) error {
	sawSave := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		argv, ok := resp.SplitArgs([]byte(line), nil)
		if !ok {
			return fmt.Errorf("config: %s:%d: unbalanced quotes in configuration line", name, n)
		}
		if len(argv) == 0 {
			continue
		}
		key := strings.ToLower(string(argv[0]))
		vals := make([]string, len(argv)-1)
		for i, a := range argv[1:] {
			vals[i] = string(a)
		}
		if key == "user" { // ACL users, as redis.conf's user directive
			if err := cfg.AddUser(vals); err != nil {
				return fmt.Errorf("config: %s:%d: '%s': %w", name, n, line, err)
			}
			continue
		}
		if engine.LookupParam(key) == nil {
			return fmt.Errorf("config: %s:%d: '%s': Bad directive or wrong number of arguments", name, n, line)
		}
		value := strings.Join(vals, " ")
		// Several save lines accumulate, as in redis.conf; the first one
		// replaces the default.
		if key == "save" && value != "" {
			if sawSave {
				if prev := cfg.Get("save"); prev != "" {
					value = prev + " " + value
				}
			}
			sawSave = true
		}
		if err := cfg.Set(key, value, true); err != nil {
			return fmt.Errorf("config: %s:%d: '%s': %w", name, n, line, err)
		}
	}
	return sc.Err()
}
