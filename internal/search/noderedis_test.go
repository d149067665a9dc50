package search_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestNodeRedisFT runs node-redis's search API (client.ft.*, the npm
// package redis pinned in test/node) against Ordo: FT.CREATE with TEXT,
// NUMERIC, TAG and GEO fields, FT.SEARCH with SORTBY, LIMIT, RETURN and
// PARAMS, FT.AGGREGATE with GROUPBY/REDUCE, FT.INFO, FT.DROPINDEX DD; the
// script asserts the documents, totals and values node-redis parses.
func TestNodeRedisFT(t *testing.T) {
	dir := redistest.NodeDir(t)
	_, o := newClient(t)
	port := o.Addr[strings.LastIndexByte(o.Addr, ':')+1:]
	out, err := exec.Command("node", filepath.Join(dir, "ft.js"), port).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("ft.js: %v\n%s", err, out)
	}
}
