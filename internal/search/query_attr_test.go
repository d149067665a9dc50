package search_test

import "testing"

// Query attributes, ported from RediSearch's tests/pytests/test.py
// (testAttributes, testIssue_884, the explain cases of testExplain).
func TestFTQueryAttributes(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc", "SCHEMA", "title", "TEXT", "body", "TEXT")
	c.do("HSET", "doc1", "title", "t1 t2", "body", "t3 t4 t5")
	c.do("HSET", "doc2", "body", "t1 t2", "title", "t3 t5")
	c.want("[2 doc2 doc1]", "FT.SEARCH", "idx", "(@title:(t1 t2) => {$weight: 0.2}) |(@body:(t1 t2) => {$weight: 0.5})", "nocontent")
	c.want("[2 doc1 doc2]", "FT.SEARCH", "idx", "(@title:(t1 t2) => {$weight: 2.5}) |(@body:(t1 t2) => {$weight: 0.5})", "nocontent")
	c.want("[2 doc2 doc1]", "FT.SEARCH", "idx", "(t3 t5) => {$slop: 4}", "nocontent", "scorer", "TFIDF")
	c.want("[1 doc2]", "FT.SEARCH", "idx", "(t5 t3) => {$slop: 0}", "nocontent")
	c.want("[0]", "FT.SEARCH", "idx", "(t5 t3) => {$slop: 0; $inorder:true}", "nocontent")
	// The node's attributes override the query's SLOP/INORDER.
	c.want("[2 doc2 doc1]", "FT.SEARCH", "idx", "(t5 t3) => {$slop: 4}", "nocontent", "SLOP", "0")
	c.want("[1 doc2]", "FT.SEARCH", "idx", "(t5 t3) => {$inorder: false}", "nocontent", "SLOP", "0", "INORDER")
	// A weight scales the score.
	c.want("[1 doc1 1]", "FT.SEARCH", "idx", "@title:t1", "nocontent", "withscores", "scorer", "DISMAX")
	c.want("[1 doc1 1.5]", "FT.SEARCH", "idx", "@title:t1=>{$weight:1.5}", "nocontent", "withscores", "scorer", "DISMAX")
	c.want("[1 doc1 2]", "FT.SEARCH", "idx", "@title:t1=>{$weight:$w}", "nocontent", "withscores", "scorer", "DISMAX", "PARAMS", "2", "w", "2", "DIALECT", "2")
	c.want("!Invalid value (x) for `weight`", "FT.SEARCH", "idx", "t1=>{$weight:x}")
	c.want("!Invalid attribute foo", "FT.SEARCH", "idx", "t1=>{$foo:1}")
	c.want("!field does not support phonetics", "FT.SEARCH", "idx", "t1=>{$phonetic:true}")

	c.want("INTERSECT {\n  @title:t1\n  @title:t2\n} => { $weight: 2; $slop: 100; $inorder: false; }\n",
		"FT.EXPLAIN", "idx", "@title:(t1 t2)=>{$weight: 2; $slop:100}")
	c.want("INTERSECT {\n  t1\n  t2\n} => { $weight: 5; $inorder: true; }\n", "FT.EXPLAIN", "idx", "(t1 t2)=>{$weight: 5; $inorder: true;}")
	c.want("t1 => {$weight: 0.5;}\n", "FT.EXPLAIN", "idx", "t1=>{$weight: 0.5}")

	// testIssue_884: a phrase-like group in order with no slop.
	c.want("OK", "FT.CREATE", "i884", "ON", "HASH", "PREFIX", "1", "c", "STOPWORDS", "0", "SCHEMA", "title", "text", "weight",
		"50", "subtitle", "text", "weight", "10", "author", "text", "weight", "10", "description", "text", "weight", "20")
	c.do("HSET", "c4", "title", "mohsin conversation the conversation tahir")
	c.do("HSET", "c3", "title", "Fareham Civilization Church - Sermons and conversations mohsin conversation the")
	c.do("HSET", "c2", "title", "conversation the conversation - a drama about conversation, the science of conversation.")
	c.do("HSET", "c1", "title", "mohsin conversation with the mohsin")
	// (RediSearch's test checks the two documents in any order.)
	if got := c.do("FT.SEARCH", "i884", "@title:(conversation) (@title:(conversation the conversation))=>{$inorder: true;$slop: 0}", "NOCONTENT"); got != "[2 c2 c4]" && got != "[2 c4 c2]" {
		t.Errorf("issue 884: %s", got)
	}

	// $phonetic: false turns a PHONETIC field's sound-alike matching off.
	c.want("OK", "FT.CREATE", "ph", "ON", "HASH", "PREFIX", "1", "p:", "SCHEMA", "name", "TEXT", "PHONETIC", "dm:en")
	c.do("HSET", "p:1", "name", "Jon Smith")
	c.do("HSET", "p:2", "name", "John Smyth")
	c.want("[2 p:1 p:2]", "FT.SEARCH", "ph", "@name:jon", "NOCONTENT")
	c.want("[1 p:1]", "FT.SEARCH", "ph", "@name:jon=>{$phonetic:false}", "NOCONTENT")
	c.want("[2 p:1 p:2]", "FT.SEARCH", "ph", "@name:(jon)=>{$phonetic:true}", "NOCONTENT")
}
