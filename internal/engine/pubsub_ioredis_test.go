package engine_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestIoredisPubSub runs ioredis's pub/sub (test/node/pubsub.js: message,
// pmessage and smessage events, receiver counts, NUMSUB, UNSUBSCRIBE, a
// keyspace notification) against redis-server and ordo-server alike.
func TestIoredisPubSub(t *testing.T) {
	dir := redistest.NodeDir(t)
	for name, addr := range map[string]string{"redis": redistest.StartRedis(t).Addr, "ordo": redistest.StartOrdo(t).Addr} {
		port := addr[strings.LastIndexByte(addr, ':')+1:]
		out, err := exec.Command("node", filepath.Join(dir, "pubsub.js"), port).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "ok" {
			t.Errorf("%s: pubsub.js: %v\n%s", name, err, out)
		}
	}
}
