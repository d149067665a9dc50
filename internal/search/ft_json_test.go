package search_test

import "testing"

func TestFTJSON(t *testing.T) {
	c, _ := newClient(t)
	c.do("JSON.SET", "user:1", "$", `{"name":"Ada Lovelace","address":{"city":"London"},"tags":["math","poetry"],"id":9007199254740993,"loc":"-0.1276,51.5072","active":true}`)
	c.want("OK", "FT.CREATE", "users", "ON", "JSON", "PREFIX", "1", "user:", "SCHEMA",
		"$.name", "AS", "name", "TEXT", "SORTABLE",
		"$.address.city", "AS", "city", "TAG",
		"$.tags[*]", "AS", "tags", "TAG",
		`$["id"]`, "AS", "id", "NUMERIC", // redis-om's form
		"$.loc", "AS", "loc", "GEO",
		"$.active", "AS", "active", "TAG")
	c.do("JSON.SET", "user:2", "$", `{"name":"Alan Turing","address":{"city":"Wilmslow"},"tags":["math","computing"],"id":9007199254740992}`)
	c.want(`[1 user:1 [$ {"name":"Ada Lovelace","address":{"city":"London"},"tags":["math","poetry"],"id":9007199254740993,"loc":"-0.1276,51.5072","active":true}]]`,
		"FT.SEARCH", "users", "@city:{london}")
	c.want("[2 user:1 user:2]", "FT.SEARCH", "users", "@tags:{math}", "NOCONTENT", "SORTBY", "name")
	c.want("[1 user:2]", "FT.SEARCH", "users", "@tags:{computing}", "NOCONTENT")
	// Exact numbers: 2^53 and 2^53+1 are distinct.
	c.want("[1 user:1 [id 9007199254740993 n Ada Lovelace]]", "FT.SEARCH", "users", "@id:[9007199254740993 9007199254740993]", "RETURN", "4", "id", "$.name", "AS", "n")
	c.want("[1 user:1]", "FT.SEARCH", "users", "@loc:[-0.12 51.5 10 km]", "NOCONTENT")
	c.want("[1 user:1]", "FT.SEARCH", "users", "@active:{true}", "NOCONTENT")
	c.want("[1 user:2 [city Wilmslow]]", "FT.SEARCH", "users", "turing", "RETURN", "1", "city")
	// Never stale: JSON.SET on a path, JSON.DEL, JSON.ARRAPPEND are seen at once.
	c.do("JSON.SET", "user:2", "$.address.city", `"London"`)
	c.want("[2 user:1 user:2]", "FT.SEARCH", "users", "@city:{london}", "NOCONTENT", "SORTBY", "name")
	c.do("JSON.ARRAPPEND", "user:1", "$.tags", `"chess"`)
	c.want("[1 user:1]", "FT.SEARCH", "users", "@tags:{chess}", "NOCONTENT")
	c.do("JSON.DEL", "user:1", "$.tags")
	c.want("[0]", "FT.SEARCH", "users", "@tags:{chess}", "NOCONTENT")
	c.do("JSON.NUMINCRBY", "user:2", "$.id", "2")
	c.want("[1 user:2]", "FT.SEARCH", "users", "@id:[9007199254740994 9007199254740994]", "NOCONTENT")
	c.do("DEL", "user:1")
	c.want("[1 user:2]", "FT.SEARCH", "users", "*", "NOCONTENT")
	// A value of the wrong type: the document is not indexed.
	c.do("JSON.SET", "user:3", "$", `{"name":42}`)
	c.want("[1 user:2]", "FT.SEARCH", "users", "*", "NOCONTENT")
	// A hash under the prefix is not a JSON document.
	c.do("HSET", "user:4", "name", "hash")
	c.want("[0]", "FT.SEARCH", "users", "hash", "NOCONTENT")
	c.want("!Invalid JSONPath '$.a['", "FT.CREATE", "bad", "ON", "JSON", "SCHEMA", "$.a[", "TEXT")
}
