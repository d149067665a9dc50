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

// TestFTInfoPositions checks the FT.INFO keys node-redis 4 reads by
// position (its INFO transformReply indexes the flat reply), so a reply
// without them does not crash it.
func TestFTInfoPositions(t *testing.T) {
	c, _ := newClient(t)
	c.do("HSET", "p:1", "t", "hello world", "n", "1")
	c.want("OK", "FT.CREATE", "i", "PREFIX", "1", "p:", "SCHEMA", "t", "TEXT", "n", "NUMERIC")
	v := c.c.Do("FT.INFO", "i")
	at := map[int]string{0: "index_name", 8: "num_docs", 10: "max_doc_id", 12: "num_terms", 14: "num_records",
		16: "inverted_sz_mb", 18: "vector_index_sz_mb", 20: "total_inverted_index_blocks",
		22: "offset_vectors_sz_mb", 24: "doc_table_size_mb", 26: "sortable_values_size_mb",
		28: "key_table_size_mb", 30: "records_per_doc_avg", 32: "bytes_per_record_avg",
		34: "offsets_per_term_avg", 36: "offset_bits_per_record_avg", 38: "hash_indexing_failures",
		40: "indexing", 42: "percent_indexed", 44: "gc_stats", 46: "cursor_stats"}
	for i, k := range at {
		if i >= len(v.Elems) || v.Elems[i].Str != k {
			t.Errorf("FT.INFO element %d: want %q in %s", i, k, v)
		}
	}
	if len(v.Elems) < 48 || len(v.Elems[45].Elems) != 14 || len(v.Elems[47].Elems) != 8 {
		t.Fatalf("gc_stats / cursor_stats: %s", v)
	}
	if got := v.Elems[9].Str + " " + v.Elems[31].Str; got != "1 3" {
		t.Errorf("num_docs, records_per_doc_avg: got %q, want \"1 3\"", got)
	}
}
