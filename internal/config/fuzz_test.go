package config

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
)

// FuzzRead: no config file makes the reader panic; a refused file names
// the file and the line.
func FuzzRead(f *testing.F) {
	f.Add([]byte("port 7000\nsave \"\"\n# comment\nappendonly no\n"))
	f.Add([]byte("user alice on >pw ~* +@all\n"))
	f.Add([]byte("maxmemory 1gb\nbind \"127.0.0.1\" -::1\n"))
	f.Add([]byte("dir '/tmp\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := engine.NewConfig()
		// Keep the fuzzer out of the filesystem: dir and includes are paths.
		if bytes.Contains(bytes.ToLower(data), []byte("dir")) || bytes.Contains(bytes.ToLower(data), []byte("include")) {
			return
		}
		if err := Read(cfg, bytes.NewReader(data), "fuzz.conf"); err != nil && !strings.Contains(err.Error(), "fuzz.conf") {
			t.Fatalf("error without the file name: %v", err)
		}
	})
}
