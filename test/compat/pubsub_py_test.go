package compat

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// redisPy finds a python3 that imports redis-py (Debian's python3-redis,
// installed by scripts/test), failing in CI and skipping elsewhere.
func redisPy(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import redis").Run() == nil {
			return py
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("redis-py is not installed; scripts/test must install it (apt-get install -y python3-redis)")
	}
	t.Skip("redis-py not installed (apt-get install -y python3-redis)")
	return ""
}

// redis-py's PubSub API gets the same messages, confirmations and
// keyspace notifications from Ordo as from Redis.
func TestRedisPyPubSub(t *testing.T) {
	py := redisPy(t)
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
