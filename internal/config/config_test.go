package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
)

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ordo.conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadFileAndFlags(t *testing.T) {
	path := writeFile(t, `# a comment
   # an indented comment

port 7000
MAXMEMORY 100mb
requirepass "se cret\x41"
hash-max-ziplist-entries 100
save 900 1
save 300 10
maxmemory-policy ALLKEYS-LRU
appendonly no
timeout 5
`)
	cfg := engine.NewConfig()
	if err := Load(cfg, []string{path, "--timeout", "9", "--hz", "20"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"port":                      "7000",
		"maxmemory":                 "104857600",
		"requirepass":               "se cretA",
		"hash-max-listpack-entries": "100",
		"hash-max-ziplist-entries":  "100",
		"save":                      "900 1 300 10",
		"maxmemory-policy":          "allkeys-lru",
		"appendonly":                "no",
		"timeout":                   "9", // the flag overrides the file
		"hz":                        "20",
	} {
		if got := cfg.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	abs, _ := filepath.Abs(path)
	if cfg.File != abs {
		t.Errorf("File = %q, want %q", cfg.File, abs)
	}
}

func TestLoadFlagsOnly(t *testing.T) {
	cfg := engine.NewConfig()
	if err := Load(cfg, []string{"--port", "6390", "--save", "", "--bind", "127.0.0.1", "::1"}); err != nil {
		t.Fatal(err)
	}
	if cfg.Get("port") != "6390" || cfg.Get("save") != "" || cfg.Get("bind") != "127.0.0.1 ::1" {
		t.Errorf("port=%q save=%q bind=%q", cfg.Get("port"), cfg.Get("save"), cfg.Get("bind"))
	}
	if cfg.File != "" {
		t.Errorf("File = %q without a config file", cfg.File)
	}
	if cfg.Get("save") != "" {
		t.Error("--save '' must disable snapshots")
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string
	}{
		{"port 7000\nnosuch-directive 1\n", ":2: 'nosuch-directive 1': Bad directive or wrong number of arguments"},
		{"# c\n\nmaxmemory lots\n", ":3: 'maxmemory lots': argument must be a memory value"},
		{"appendonly maybe\n", ":1: 'appendonly maybe': argument must be 'yes' or 'no'"},
		{"port 99999\n", ":1: 'port 99999': argument must be between 0 and 65535 inclusive"},
		{"requirepass \"unbalanced\n", ":1: unbalanced quotes in configuration line"},
		{"maxmemory-policy foo\n", "argument(s) must be one of the following: volatile-lru"},
	} {
		path := writeFile(t, tc.text)
		err := Load(engine.NewConfig(), []string{path})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.text, err, tc.want)
		}
	}
	if err := Load(engine.NewConfig(), []string{"--nosuch", "1"}); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown flag: %v", err)
	}
	if err := Load(engine.NewConfig(), []string{"/nonexistent/ordo.conf"}); err == nil {
		t.Error("missing config file accepted")
	}
}

// CONFIG REWRITE keeps comments and unknown-to-it lines, rewrites known
// directives in place and appends changed parameters; loading the
// result gives the same configuration back.
func TestRewriteRoundTrip(t *testing.T) {
	path := writeFile(t, "# header\nport 7000\nmaxmemory 100mb\nsave 900 1\nsave 300 10\n")
	cfg := engine.NewConfig()
	if err := Load(cfg, []string{path}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.SetMany([]string{"maxmemory", "2gb", "requirepass", "p w\"x", "save", "60 5"}, true); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Rewrite(); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(text), "# header\nport 7000\nmaxmemory 2147483648\nsave 60 5\n") {
		t.Errorf("rewritten file:\n%s", text)
	}
	cfg2 := engine.NewConfig()
	if err := Load(cfg2, []string{path}); err != nil {
		t.Fatalf("reloading the rewritten file: %v\n%s", err, text)
	}
	for _, name := range []string{"port", "maxmemory", "requirepass", "save"} {
		if cfg.Get(name) != cfg2.Get(name) {
			t.Errorf("%s: %q after reload, was %q", name, cfg2.Get(name), cfg.Get(name))
		}
	}
}

// A failing OnChange hook undoes the whole CONFIG SET.
func TestSetManyRollback(t *testing.T) {
	cfg := engine.NewConfig()
	var applied []string
	cfg.OnChange("appendonly", func(v string) error {
		applied = append(applied, v)
		if v == "yes" {
			return errors.New("can't open the append-only file")
		}
		return nil
	})
	cfg.Set("appendonly", "no", true)
	err := cfg.SetMany([]string{"maxmemory", "1mb", "appendonly", "yes"}, true)
	if err == nil || err.Reply() != "ERR CONFIG SET failed (possibly related to argument 'appendonly') - can't open the append-only file" {
		t.Fatalf("SetMany: %v", err)
	}
	if cfg.Get("maxmemory") != "0" || cfg.Get("appendonly") != "no" {
		t.Errorf("not rolled back: maxmemory=%s appendonly=%s", cfg.Get("maxmemory"), cfg.Get("appendonly"))
	}
	if err := cfg.SetMany([]string{"appendonly", "no"}, true); err != nil || len(applied) != 2 {
		t.Errorf("SetMany: %v, hook calls %v", err, applied)
	}
	// Startup settings (flags, file) do not run the hooks.
	cfg.Set("appendonly", "yes", true)
	if len(applied) != 2 {
		t.Errorf("hook ran at startup: %v", applied)
	}
	// Names are validated before values, as Redis does.
	if err := cfg.SetMany([]string{"maxmemory", "x", "nosuch", "1"}, true); err == nil || !err.Unknown {
		t.Errorf("unknown name after a bad value: %v", err)
	}
}

// As in redis-server, only a first argument without a leading '-' is a
// config file: "-x" is reported as an option, not opened.
func TestLoadDashIsNotAFile(t *testing.T) {
	for _, arg := range []string{"-x", "-help"} {
		err := Load(engine.NewConfig(), []string{arg})
		if err == nil || strings.Contains(err.Error(), "open") || !strings.Contains(err.Error(), "unexpected argument") {
			t.Errorf("Load(%q) = %v, want an unexpected-argument error", arg, err)
		}
	}
}
