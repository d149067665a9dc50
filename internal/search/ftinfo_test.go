package search_test

import (
	"strconv"
	"testing"
)

// info returns FT.INFO's top-level key/value pairs as strings.
func info(t *testing.T, c *client, idx string) map[string]string {
	t.Helper()
	v := c.c.Do("FT.INFO", idx)
	out := map[string]string{}
	for i := 0; i+1 < len(v.Elems); i += 2 {
		e := v.Elems[i+1]
		out[v.Elems[i].Str] = flat(e)
	}
	return out
}

// TestFTInfoSizes: FT.INFO reports the memory of the index's structures
// (RediSearch reports its own; Ordo reported 0 before): every size is
// positive once documents are indexed, grows with them, and the postings'
// sizes fall back when they are deleted; the averages follow the counts.
func TestFTInfoSizes(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA",
		"name", "TEXT", "price", "NUMERIC", "color", "TAG")
	sizes := []string{"inverted_sz_mb", "offset_vectors_sz_mb", "doc_table_size_mb", "sortable_values_size_mb", "key_table_size_mb", "total_inverted_index_blocks"}
	num := func(m map[string]string, k string) float64 {
		f, err := strconv.ParseFloat(m[k], 64)
		if err != nil {
			t.Fatalf("%s: %q", k, m[k])
		}
		return f
	}
	load := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c.do("HSET", "d:"+strconv.Itoa(i), "name", "w"+strconv.Itoa(i%97)+" common", "price", strconv.Itoa(i), "color", "c"+strconv.Itoa(i%5))
		}
	}
	load(0, 100)
	small := info(t, c, "idx")
	for _, k := range sizes {
		if num(small, k) <= 0 {
			t.Errorf("100 documents: %s = %s", k, small[k])
		}
	}
	// 100 documents: 2 terms, 1 number and 1 tag each; one position a term.
	if small["num_records"] != "400" || small["records_per_doc_avg"] != "4" || small["offsets_per_term_avg"] != "1" {
		t.Errorf("records %s, per doc %s, offsets per term %s", small["num_records"], small["records_per_doc_avg"], small["offsets_per_term_avg"])
	}
	load(100, 5000)
	big := info(t, c, "idx")
	for _, k := range []string{"inverted_sz_mb", "offset_vectors_sz_mb", "doc_table_size_mb", "sortable_values_size_mb", "key_table_size_mb"} {
		if num(big, k) <= num(small, k) {
			t.Errorf("5000 documents: %s = %s, with 100: %s", k, big[k], small[k])
		}
	}
	for i := 0; i < 5000; i++ {
		c.do("DEL", "d:"+strconv.Itoa(i))
	}
	none := info(t, c, "idx")
	if none["num_docs"] != "0" || none["num_records"] != "0" || num(none, "offset_vectors_sz_mb") != 0 {
		t.Errorf("after deleting every document: %v", none)
	}
	if num(none, "inverted_sz_mb") >= num(big, "inverted_sz_mb")/4 {
		t.Errorf("inverted_sz_mb %s after deleting every document, %s before", none["inverted_sz_mb"], big["inverted_sz_mb"])
	}
}
