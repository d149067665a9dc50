package compat

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// redis-py's PubSub API gets the same messages, confirmations and
// keyspace notifications from Ordo as from Redis.
func TestRedisPyPubSub(t *testing.T) {
	py := redistest.RedisPy(t)
	out := map[string]string{}
	for name, addr := range servers(t) {
		port := addr[strings.LastIndexByte(addr, ':')+1:]
		if _, err := strconv.Atoi(port); err != nil {
			t.Fatal(addr)
		}
		cmd := exec.Command(py, "testdata/pubsub.py", port)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		out[name] = string(b)
	}
	if out["redis"] != out["ordo"] {
		t.Fatalf("redis-py output differs:\n--- redis\n%s\n--- ordo\n%s", out["redis"], out["ordo"])
	}
	if !strings.Contains(out["ordo"], "('message', None, b'news', b'49')") {
		t.Fatalf("unexpected output:\n%s", out["ordo"])
	}
}
