package engine_test

// JSON.* tests. Redis has no JSON module here, so these are assertions
// against RedisJSON 2.x's documented behaviour; each group cites where
// the expected reply comes from:
//   [docs]  the redis.io command pages (redis.io/commands/json.<cmd>)
//   [test]  RedisJSON's tests/pytest/test.py
//   [code]  RedisJSON's redis_json/src (commands.rs, key_value.rs,
//           ivalue_manager.rs, manager.rs, formatter.rs, redisjson.rs)

import (
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

type jt struct {
	t *testing.T
	c *redistest.Conn
	o *redistest.Ordo
}

func newJT(t *testing.T) *jt {
	o := redistest.StartOrdo(t)
	return &jt{t: t, c: redistest.Dial(t, o.Addr), o: o}
}

// is checks the reply as interactive redis-cli renders it (lines joined
// by "\n", without the final newline).
func (j *jt) is(want string, args ...string) {
	j.t.Helper()
	got := strings.TrimSuffix(redistest.RenderCLI(j.c.Do(args...)), "\n")
	if got != want {
		j.t.Errorf("%q:\n got: %s\nwant: %s", args, got, want)
	}
}

// bulk checks that the reply is a bulk string equal to want.
func (j *jt) bulk(want string, args ...string) {
	j.t.Helper()
	v := j.c.Do(args...)
	if v.Kind != resp.KindBulk || v.Str != want {
		j.t.Errorf("%q:\n got: %s\nwant bulk: %s", args, strings.TrimSuffix(redistest.RenderCLI(v), "\n"), want)
	}
}

func (j *jt) ok(args ...string) { j.t.Helper(); j.is("OK", args...) }

// The seed document 004's session (shared/seeds/004, "Document Key/Value
// Store") and the redis.io JSON.SET / JSON.GET pages.
func TestJSONSeedAndBasics(t *testing.T) {
	j := newJT(t)
	j.ok("JSON.SET", "scalar", ".", `"Hello JSON!"`)
	j.ok("JSON.SET", "object", ".", `{"foo": "bar", "ans": 42}`)
	j.bulk(`{"foo":"bar","ans":42}`, "JSON.GET", "object")
	j.bulk(`42`, "JSON.GET", "object", ".ans")
	j.bulk(`"Hello JSON!"`, "JSON.GET", "scalar")
	j.is("ReJSON-RL", "TYPE", "object")
	j.is(`"raw"`, "OBJECT", "ENCODING", "object")
	j.is("(nil)", "JSON.GET", "missing")
	// [docs json.get] several paths give an object keyed by path.
	j.ok("JSON.SET", "doc", "$", `{"a":2, "b": 3, "nested": {"a": 4, "b": null}}`)
	j.bulk(`[3,null]`, "JSON.GET", "doc", "$..b")
	// RedisJSON builds this object in a HashMap (key order unspecified);
	// Ordo keeps the order of the arguments.
	j.bulk(`{"..a":[2,4],"$..b":[3,null]}`, "JSON.GET", "doc", "..a", "$..b")
	// All legacy paths: values, not lists.
	j.bulk(`{"a":2,".nested.a":4}`, "JSON.GET", "doc", "a", ".nested.a")
	// [code key_value.rs get_first] a missing legacy path is an error naming
	// the JSONPath it stands for; in a multi-path GET the path as given.
	j.is(`(error) ERR Path '$.nope' does not exist`, "JSON.GET", "doc", ".nope")
	j.is(`(error) ERR Path 'nope' does not exist`, "JSON.GET", "doc", "a", "nope")
	j.bulk(`[]`, "JSON.GET", "doc", "$.nope")
	j.c.Do("SET", "str", "x")
	j.is("(error) WRONGTYPE Operation against a key holding the wrong kind of value", "JSON.GET", "str")
	j.is("(error) WRONGTYPE Operation against a key holding the wrong kind of value", "JSON.SET", "str", "$", "1")
	j.is("(error) ERR wrong number of arguments for 'json.get' command", "JSON.GET")
	j.is("(error) ERR wrong number of arguments for 'json.set' command", "JSON.SET", "k", "$")
	j.is("(error) ERR wrong number of arguments for 'json.get' command", "JSON.GET", "doc", "INDENT")
}

// [test testSetBehaviorModifyingSubcommands, testSetAddNewImmediateChild,
// testIssue_597, testArrayCRUD; code commands.rs json_set, key_value.rs
// find_paths/find_add_paths]
func TestJSONSetNXXXAndCreation(t *testing.T) {
	j := newJT(t)
	j.is("(nil)", "JSON.SET", "test", ".", "{}", "XX")
	j.ok("JSON.SET", "test", ".", "{}", "NX")
	j.is("(nil)", "JSON.SET", "test", ".", "{}", "NX")
	j.ok("JSON.SET", "test", ".", "{}", "XX")
	j.is("(nil)", "JSON.SET", "test", ".foo", "[]", "XX")
	j.ok("JSON.SET", "test", ".foo", "[]", "NX")
	j.is("(nil)", "JSON.SET", "test", ".foo", "[]", "NX")
	j.ok("JSON.SET", "test", ".foo", "[1]", "XX")
	j.bulk(`{"foo":[1]}`, "JSON.GET", "test")
	j.is("(error) ERR syntax error", "JSON.SET", "test", ".foo", "[]", "NN")
	j.is("(error) ERR syntax error", "JSON.SET", "test", ".foo", "[]", "XX", "NX")
	j.is("(error) ERR syntax error", "JSON.SET", "test", ".foo", "[]", "")
	// Only the last member of a path can be created, under an existing object.
	j.ok("JSON.SET", "test", "$.a", `{"b":1}`)
	j.ok("JSON.SET", "test", "$.a.c", `"new"`)
	j.is("(nil)", "JSON.SET", "test", "$.x.y", "1")
	j.is("(nil)", "JSON.SET", "test", ".foo.bar", "1") // parent is an array
	j.bulk(`{"foo":[1],"a":{"b":1,"c":"new"}}`, "JSON.GET", "test")
	// Arrays: replace in range, error out of range (also for NX).
	j.ok("JSON.SET", "test", ".foo[0]", "2")
	j.ok("JSON.SET", "test", ".foo[-1]", "3")
	j.is("(error) ERR array index out of range", "JSON.SET", "test", ".foo[1]", "0")
	j.is("(error) ERR array index out of range", "JSON.SET", "test", ".foo[1]", "0", "NX")
	j.is("(nil)", "JSON.SET", "test", ".foo[0]", "0", "NX")
	j.bulk(`[3]`, "JSON.GET", "test", ".foo")
	// A new key must be created at the root.
	j.is("(error) ERR new objects must be created at the root", "JSON.SET", "nokey", ".a", "1")
	j.is("(error) ERR new objects must be created at the root", "JSON.SET", "nokey", "$.a", "1")
	j.is("(nil)", "JSON.SET", "nokey", "$", "1", "XX")
	j.is("(integer) 0", "EXISTS", "nokey")
	// Wildcards update every match; creating needs a static path.
	j.ok("JSON.SET", "w", "$", `{"a":{"x":1},"b":{"x":2},"c":3}`)
	j.ok("JSON.SET", "w", "$..x", "0")
	j.bulk(`{"a":{"x":0},"b":{"x":0},"c":3}`, "JSON.GET", "w")
	j.is("(error) Err wrong static path", "JSON.SET", "w", "$..y", "1")
	// Bracket notation [test testSetWithBracketNotation].
	j.ok("JSON.SET", "x", ".", "{}")
	j.ok("JSON.SET", "x", `.["f1"]`, "{}")
	j.ok("JSON.SET", "x", `.["f1"].f2`, "[0,0,0]")
	j.ok("JSON.SET", "x", `.["f1"].f2[1]`, "{}")
	j.ok("JSON.SET", "x", `.["f1"].f2[1]["f.]$.f"]`, "{}")
	j.ok("JSON.SET", "x", `.["f1"]["f2"][1]["f.]$.f"]`, "1")
	j.is("(nil)", "JSON.SET", "x", `.["f3"].f2`, "1")
	j.bulk(`{"f1":{"f2":[0,{"f.]$.f":1},0]}}`, "JSON.GET", "x")
}

// Parse errors are serde_json's messages, replied without an error code
// [code error.rs From<serde_json::Error>; error.rs test_from_serde_json_error].
func TestJSONParseErrors(t *testing.T) {
	j := newJT(t)
	j.is("(error) EOF while parsing an object at line 1 column 1", "JSON.SET", "k", "$", "{")
	j.is("(error) expected value at line 1 column 1", "JSON.SET", "k", "$", "}")
	j.is("(error) EOF while parsing a value at line 1 column 0", "JSON.SET", "k", "$", "")
	j.is("(error) trailing characters at line 1 column 3", "JSON.SET", "k", "$", "1 2")
	j.is("(error) EOF while parsing a list at line 1 column 1", "JSON.SET", "k", "$", "[")
	j.is("(integer) 0", "EXISTS", "k")
	// Valid documents of every type round-trip [test testSetRootWithJSONValuesShouldSucceed].
	for _, v := range []string{`"string"`, "1", "-2", "3.14", "null", "true", "false", "[]", "{}"} {
		j.ok("JSON.SET", "k", ".", v)
		j.bulk(v, "JSON.GET", "k")
	}
}

// Numbers print as RedisJSON prints them: integers as integers, floats
// with serde_json/ryu's shortest form [test testNumCommandOverflow,
// testDoubleParse, testNumIncrCommand].
func TestJSONNumberFormatting(t *testing.T) {
	j := newJT(t)
	for in, out := range map[string]string{
		"42": "42", "-7": "-7", "3.5": "3.5", "1.0": "1.0", "1e2": "100.0", "1E+2": "100.0",
		"1.6350000000001313e+308": "1.6350000000001313e308", "1512060373.222988": "1512060373.222988",
		"0.0001": "0.0001", "1e-7": "1e-7", "1e16": "1e16", "1e15": "1000000000000000.0",
		"18446744073709551615": "18446744073709551615", "-0.0": "-0.0", "123456789012345678901": "1.2345678901234568e20",
		`"a\/b\u00e9\n"`: `"a/bé\n"`, `"\u0001"`: `"\u0001"`,
	} {
		j.ok("JSON.SET", "n", "$", in)
		j.bulk(out, "JSON.GET", "n")
	}
}

// [test testGetFormatting; code formatter.rs]
func TestJSONGetFormatting(t *testing.T) {
	j := newJT(t)
	j.ok("JSON.SET", "obj", "$", `{"obj":{"f":"v"}}`)
	j.ok("JSON.SET", "arr", "$", `{"arr":[0,1]}`)
	for _, space := range []string{"", " ", "\t"} {
		for _, indent := range []string{"", " ", "\t", "  "} {
			for _, nl := range []string{"", "\n", "\r\n"} {
				r := strings.NewReplacer("{newline}", nl, "{indent}", indent, "{space}", space)
				j.bulk(r.Replace(`{{newline}{indent}"obj":{space}{{newline}{indent}{indent}"f":{space}"v"{newline}{indent}}{newline}}`),
					"JSON.GET", "obj", "INDENT", indent, "NEWLINE", nl, "SPACE", space)
				j.bulk(r.Replace(`{{newline}{indent}"arr":{space}[{newline}{indent}{indent}0,{newline}{indent}{indent}1{newline}{indent}]{newline}}`),
					"JSON.GET", "arr", "INDENT", indent, "NEWLINE", nl, "SPACE", space)
			}
		}
	}
	// Empty containers stay on one line; the match list is formatted too.
	j.ok("JSON.SET", "e", "$", `{"a":[],"b":{}}`)
	j.bulk("[\n-{\n--\"a\": [],\n--\"b\": {}\n-}\n]", "JSON.GET", "e", "indent", "-", "newline", "\n", "space", " ", "$")
}

// [docs json.del; test testDelCommand, testObjectCRUD]
func TestJSONDel(t *testing.T) {
	j := newJT(t)
	j.ok("JSON.SET", "doc", "$", `{"a": 1, "nested": {"a": 2, "b": 3}}`)
	j.is("(integer) 2", "JSON.DEL", "doc", "$..a")
	j.bulk(`[{"nested":{"b":3}}]`, "JSON.GET", "doc", "$")
	j.is("(integer) 0", "JSON.DEL", "doc", ".nope")
	j.is("(integer) 1", "JSON.FORGET", "doc", "nested.b")
	j.bulk(`{"nested":{}}`, "JSON.GET", "doc")
	j.is("(integer) 1", "JSON.DEL", "doc")
	j.is("(integer) 0", "EXISTS", "doc")
	j.is("(integer) 0", "JSON.DEL", "doc")
	// Several array elements: higher indexes go first so all are removed.
	j.ok("JSON.SET", "arr", "$", `[1,2,3,4,5]`)
	j.is("(integer) 3", "JSON.DEL", "arr", "$[0,2,4]")
	j.bulk(`[2,4]`, "JSON.GET", "arr")
	j.is("(integer) 1", "JSON.DEL", "arr", "[-1]")
	j.bulk(`[2]`, "JSON.GET", "arr")
	// A match inside another match is removed with it, counted once.
	j.ok("JSON.SET", "n", "$", `{"a":{"a":{"a":1}}}`)
	j.is("(integer) 1", "JSON.DEL", "n", "$..a")
	j.bulk(`{}`, "JSON.GET", "n")
	j.is("(error) ERR wrong number of arguments for 'json.del' command", "JSON.DEL", "n", "a", "b")
}

// [docs json.type; test testTypeCommand; code json_type_legacy/impl]
func TestJSONType(t *testing.T) {
	j := newJT(t)
	j.ok("JSON.SET", "doc", "$", `{"a":2, "nested": {"a": true}, "foo": "bar", "n": null, "f": 1.5, "o": {}, "l": []}`)
	j.is("1) \"integer\"\n2) \"boolean\"", "JSON.TYPE", "doc", "$..a")
	j.is("(empty array)", "JSON.TYPE", "doc", "$..dummy")
	j.is(`"object"`, "JSON.TYPE", "doc")
	for k, v := range map[string]string{"a": "integer", ".foo": "string", "n": "null", "f": "number", "o": "object", "l": "array"} {
		j.is(`"`+v+`"`, "JSON.TYPE", "doc", k)
	}
	j.is("(nil)", "JSON.TYPE", "doc", ".nope")
	j.is("(nil)", "JSON.TYPE", "nokey")
	j.is("(nil)", "JSON.TYPE", "nokey", "$")
}

// [docs json.numincrby: `JSON.NUMINCRBY doc $.a 2` -> "[null]",
// `$..a 2` -> "[null,4,7,null]"; test testNumIncrCommand, testNumCommandOverflow]
func TestJSONNumIncrBy(t *testing.T) {
	j := newJT(t)
	j.ok("JSON.SET", "doc", ".", `{"a":"b","b":[{"a":2}, {"a":5}, {"a":"c"}]}`)
	j.bulk(`[null]`, "JSON.NUMINCRBY", "doc", "$.a", "2")
	j.bulk(`[null,4,7,null]`, "JSON.NUMINCRBY", "doc", "$..a", "2")
	j.bulk(`[null,8,14,null]`, "JSON.NUMMULTBY", "doc", "$..a", "2")
	j.ok("JSON.SET", "test", ".", `{ "foo": 0, "bar": "baz" }`)
	j.bulk("1", "JSON.NUMINCRBY", "test", ".foo", "1")
	j.bulk("1", "JSON.GET", "test", ".foo")
	j.bulk("3", "JSON.NUMINCRBY", "test", ".foo", "2")
	j.bulk("3.5", "JSON.NUMINCRBY", "test", ".foo", "0.5")
	j.bulk("4.5", "JSON.NUMINCRBY", "test", "foo", "1")
	j.ok("JSON.SET", "num", ".", "0")
	j.bulk("1", "JSON.NUMINCRBY", "num", ".", "1")
	j.bulk("2.5", "JSON.NUMINCRBY", "num", ".", "1.5")
	j.ok("JSON.SET", "num", ".", "1")
	j.bulk("2.0", "JSON.NUMINCRBY", "num", ".", "1.0") // a float operand makes a float
	j.is(`(error) ERR Path '$.bar' does not exist or does not contains a number`, "JSON.NUMINCRBY", "test", ".bar", "1")
	j.is(`(error) ERR Path '$.fuzz' does not exist or does not contains a number`, "JSON.NUMINCRBY", "test", ".fuzz", "1")
	j.is("(error) ERR could not perform this operation on a key that doesn't exist", "JSON.NUMINCRBY", "nokey", ".", "1")
	j.is("(error) expected value at line 1 column 1", "JSON.NUMINCRBY", "test", ".foo", "x")
	j.is("(error) bad input number", "JSON.NUMINCRBY", "test", ".foo", `"1"`)
	j.ok("JSON.SET", "big", ".", "1.6350000000001313e+308")
	j.is("(error) result is not a number", "JSON.NUMINCRBY", "big", ".", "1.6350000000001313e+308")
	j.is("(error) result is not a number", "JSON.NUMMULTBY", "big", ".", "2")
	j.bulk("1.6350000000001313e308", "JSON.GET", "big", ".")
}

// JSON.NUMINCRBY logs its effect (JSON.SET of the new value at each
// location), so replaying the log gives the same document.
func TestJSONNumIncrByPropagation(t *testing.T) {
	o := redistest.StartOrdo(t)
	var logged []string
	o.Engine.Lock()
	o.Engine.Propagate = func(db int, args [][]byte) {
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = string(a)
		}
		logged = append(logged, strings.Join(parts, " "))
	}
	o.Engine.Unlock()
	c := redistest.Dial(t, o.Addr)
	c.Do("JSON.SET", "d", "$", `{"a":1,"b":[{"a":2.5}],"q\"k":{"a":"x"}}`)
	c.Do("JSON.NUMINCRBY", "d", "$..a", "1")
	c.Do("JSON.NUMINCRBY", "d", "$.zz", "1") // no match: nothing logged
	o.Engine.Lock()
	got := append([]string(nil), logged...)
	o.Engine.Unlock()
	want := []string{
		`JSON.SET d $ {"a":1,"b":[{"a":2.5}],"q\"k":{"a":"x"}}`,
		`JSON.SET d $["a"] 2`,
		`JSON.SET d $["b"][0]["a"] 3.5`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("propagated:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Replaying the effects on a copy of the original gives the same document.
	c.Do("JSON.SET", "r", "$", `{"a":1,"b":[{"a":2.5}],"q\"k":{"a":"x"}}`)
	c.Do("JSON.SET", "r", `$["a"]`, "2")
	c.Do("JSON.SET", "r", `$["b"][0]["a"]`, "3.5")
	a, b := c.Do("JSON.GET", "d"), c.Do("JSON.GET", "r")
	if a.Str != b.Str {
		t.Fatalf("replay differs: %s vs %s", a.Str, b.Str)
	}
}

func TestJSONResp3(t *testing.T) {
	j := newJT(t)
	j.ok("JSON.SET", "doc", "$", `{"a":1,"b":{"a":2.5},"c":"x","t":true}`)
	j.c.Do("HELLO", "3")
	// [code commands.rs json_num_op: RESP3 replies integers and doubles]
	j.is("1) (integer) 2\n2) (double) 3.5", "JSON.NUMINCRBY", "doc", "$..a", "1")
	// [code json_type: RESP3 wraps the reply in an array]
	j.is("1) \"object\"", "JSON.TYPE", "doc")
	// JSON.GET replies the same JSON text (FORMAT STRING is the default).
	j.bulk(`[2]`, "JSON.GET", "doc", "$.a")
	j.is("1) (false)", "JSON.TOGGLE", "doc", "$.t")
	j.is("(nil)", "JSON.GET", "nokey")
}

// [docs json.strappend, json.strlen; test testStrCommands, testLenCommands]
func TestJSONStrings(t *testing.T) {
	j := newJT(t)
	j.ok("JSON.SET", "test", ".", `"foo"`)
	j.is(`"string"`, "JSON.TYPE", "test", ".")
	j.is("(integer) 3", "JSON.STRLEN", "test", ".")
	j.is("(integer) 6", "JSON.STRAPPEND", "test", ".", `"bar"`)
	j.bulk(`"foobar"`, "JSON.GET", "test", ".")
	j.is("(integer) 9", "JSON.STRAPPEND", "test", `"baz"`) // path defaults to the root
	j.ok("JSON.SET", "doc", "$", `{"a":"foo", "nested": {"a": "hello"}, "nested2": {"a": 31}}`)
	j.is("1) (integer) 6\n2) (integer) 8\n3) (nil)", "JSON.STRAPPEND", "doc", "$..a", `"baz"`)
	j.bulk(`{"a":"foobaz","nested":{"a":"hellobaz"},"nested2":{"a":31}}`, "JSON.GET", "doc")
	j.is("1) (integer) 6\n2) (integer) 8\n3) (nil)", "JSON.STRLEN", "doc", "$..a")
	j.is("(integer) 6", "JSON.STRLEN", "doc", ".a")
	j.is("(integer) 9", "JSON.STRAPPEND", "doc", "..a", `"!"`) // legacy: the last string's length
	j.is("(error) WRONGTYPE wrong type of path value - expected string but found integer", "JSON.STRLEN", "doc", ".nested2.a")
	j.is("(error) ERR Path '$.nope' does not exist", "JSON.STRLEN", "doc", ".nope")
	j.is("(error) ERR Path '$.nested2' does not exist or not a string", "JSON.STRAPPEND", "doc", ".nested2", `"x"`)
	j.is("(error) WRONGTYPE wrong type of path value - expected string but found 1", "JSON.STRAPPEND", "doc", ".a", "1")
	j.is("(nil)", "JSON.STRLEN", "nokey", ".a")
	j.is("(error) ERR could not perform this operation on a key that doesn't exist", "JSON.STRLEN", "nokey", "$.a")
	j.is("(error) ERR could not perform this operation on a key that doesn't exist", "JSON.STRAPPEND", "nokey", `"x"`)
	// Length in bytes, as RedisJSON (Rust str::len).
	j.ok("JSON.SET", "u", "$", `"é"`)
	j.is("(integer) 2", "JSON.STRLEN", "u")
}

// [docs json.arrappend/arrinsert/arrlen/arrpop/arrtrim/arrindex;
// test testArrayCRUD, testArrInsertCommand, testArrPopCommand,
// testArrTrimCommand, testArrIndexCommand, testLenCommands]
func TestJSONArrays(t *testing.T) {
	j := newJT(t)
	j.ok("JSON.SET", "test", ".", "[]")
	j.is("(integer) 0", "JSON.ARRLEN", "test", ".")
	j.is("(integer) 1", "JSON.ARRAPPEND", "test", ".", "1")
	j.is("(integer) 2", "JSON.ARRINSERT", "test", ".", "0", "-1")
	j.is("(integer) 3", "JSON.ARRINSERT", "test", ".", "-1", "0")
	j.is("(integer) 5", "JSON.ARRINSERT", "test", ".", "-3", "-3", "-2")
	j.is("(integer) 7", "JSON.ARRAPPEND", "test", ".", "2", "3")
	j.bulk(`[-3,-2,-1,0,1,2,3]`, "JSON.GET", "test", ".")
	j.is("(error) ERR index out of bounds", "JSON.ARRINSERT", "test", ".", "-10", "10")
	j.is("(error) ERR index out of bounds", "JSON.ARRINSERT", "test", ".", "10", "10")
	j.is("(error) Couldn't parse as integer", "JSON.ARRINSERT", "test", ".", "x", "10")
	j.is("(error) expected value at line 1 column 1", "JSON.ARRAPPEND", "test", ".", "x")
	j.bulk(`[-3,-2,-1,0,1,2,3]`, "JSON.GET", "test", ".")

	j.ok("JSON.SET", "p", ".", "[1,2,3,4,5,6,7,8,9]")
	for _, c := range [][]string{{"9"}, {"8", "."}, {"7", ".", "-1"}, {"5", ".", "-2"}, {"1", ".", "0"},
		{"4", ".", "2"}, {"6", ".", "99"}, {"2", ".", "-99"}, {"3"}} {
		j.bulk(c[0], append([]string{"JSON.ARRPOP", "p"}, c[1:]...)...)
	}
	j.is("(nil)", "JSON.ARRPOP", "p")
	j.is("(nil)", "JSON.ARRPOP", "p", ".", "2")
	j.ok("JSON.SET", "one", ".", "1")
	j.is("(error) ERR Path '$' does not exist or not an array", "JSON.ARRPOP", "one")

	j.ok("JSON.SET", "t", ".", `{ "arr": [0, 1, 2, 3, 2, 1, 0] }`)
	j.is("(integer) 5", "JSON.ARRTRIM", "t", ".arr", "1", "-2")
	j.bulk(`[1,2,3,2,1]`, "JSON.GET", "t", ".arr")
	j.is("(integer) 5", "JSON.ARRTRIM", "t", ".arr", "0", "99")
	j.is("(integer) 3", "JSON.ARRTRIM", "t", ".arr", "0", "2")
	j.is("(integer) 0", "JSON.ARRTRIM", "t", ".arr", "99", "2")
	j.bulk(`[]`, "JSON.GET", "t", ".arr")

	j.ok("JSON.SET", "i", ".", `{ "arr": [0, 1, 2, 3, 2, 1, 0] }`)
	j.is("(integer) 0", "JSON.ARRINDEX", "i", ".arr", "0")
	j.is("(integer) -1", "JSON.ARRINDEX", "i", ".arr", "4")
	j.is("(integer) 6", "JSON.ARRINDEX", "i", ".arr", "0", "1")
	j.is("(integer) 6", "JSON.ARRINDEX", "i", ".arr", "0", "-1")
	j.is("(integer) -1", "JSON.ARRINDEX", "i", ".arr", "0", "5", "-1")
	j.is("(integer) -1", "JSON.ARRINDEX", "i", ".arr", "2", "-2", "6")
	j.is("1) (integer) 1", "JSON.ARRINDEX", "i", "$.arr", "1")
	j.is("1) (integer) -1", "JSON.ARRINDEX", "i", "$.arr", "3", "0", "2")

	// JSONPath: one reply per match, nil for non-arrays [docs json.arrappend].
	j.ok("JSON.SET", "doc", "$", `{"a":[1], "nested": {"a": [1,2]}, "nested2": {"a": 42}}`)
	j.is("1) (integer) 3\n2) (integer) 4\n3) (nil)", "JSON.ARRAPPEND", "doc", "$..a", "3", "4")
	j.is("1) (integer) 3\n2) (integer) 4\n3) (nil)", "JSON.ARRLEN", "doc", "$..a")
	j.is("1) (integer) 4\n2) (integer) 5\n3) (nil)", "JSON.ARRINSERT", "doc", "$..a", "0", `"x"`)
	j.is("1) \"4\"\n2) \"4\"\n3) (nil)", "JSON.ARRPOP", "doc", "$..a")
	j.is("1) (integer) 1\n2) (integer) 1\n3) (nil)", "JSON.ARRTRIM", "doc", "$..a", "0", "0")
	j.bulk(`{"a":["x"],"nested":{"a":["x"]},"nested2":{"a":42}}`, "JSON.GET", "doc")
	j.is("(error) ERR Path '.nested2.a' does not exist or not an array", "JSON.ARRAPPEND", "doc", ".nested2.a", "1")
	j.is("(error) ERR Path '.nested2.a' does not exist or not an array", "JSON.ARRLEN", "doc", ".nested2.a")
	j.is("(error) ERR Path '.nope' does not exist or not an array", "JSON.ARRLEN", "doc", ".nope")
	j.is("(nil)", "JSON.ARRLEN", "nokey", ".bar")
	j.is("(error) ERR could not perform this operation on a key that doesn't exist", "JSON.ARRAPPEND", "nokey", ".", "1")
	j.is("(error) ERR could not perform this operation on a key that doesn't exist", "JSON.ARRLEN", "nokey", "$")
}

// [docs json.objkeys, json.objlen; test testObjKeysCommand, testLenCommands]
func TestJSONObjects(t *testing.T) {
	j := newJT(t)
	j.ok("JSON.SET", "doc", "$", `{"a":[3], "nested": {"a": {"b":2, "c": 1}}}`)
	j.is("1) (nil)\n2) 1) \"b\"\n   2) \"c\"", "JSON.OBJKEYS", "doc", "$..a")
	j.is("1) \"a\"\n2) \"nested\"", "JSON.OBJKEYS", "doc")
	j.is("1) \"b\"\n2) \"c\"", "JSON.OBJKEYS", "doc", ".nested.a")
	j.is("(error) ERR Path '$.a' does not exist or not an object", "JSON.OBJKEYS", "doc", ".a")
	j.is("(nil)", "JSON.OBJKEYS", "doc", ".nope")
	j.is("1) (nil)\n2) (integer) 2", "JSON.OBJLEN", "doc", "$..a")
	j.is("(integer) 2", "JSON.OBJLEN", "doc", ".")
	j.is("(integer) 2", "JSON.OBJLEN", "doc", ".nested.a")
	j.is("(error) WRONGTYPE wrong type of path value - expected object but found array", "JSON.OBJLEN", "doc", ".a")
	j.is("(nil)", "JSON.OBJLEN", "doc", ".nope")
	j.is("(nil)", "JSON.OBJKEYS", "nokey")
	j.is("(nil)", "JSON.OBJLEN", "nokey")
	j.is("(error) ERR could not perform this operation on a key that doesn't exist", "JSON.OBJKEYS", "nokey", "$")
}

// [test testClear, testClearScalar, testToggleCommand; docs json.toggle]
func TestJSONClearToggle(t *testing.T) {
	j := newJT(t)
	j.ok("JSON.SET", "test", ".", `{"n":42,"s":"42","arr":[{"n":44},"s",{"n":{"a":1,"b":2}},{"n2":{"x":3.02,"n":["to","be","cleared",4],"y":4.91}},null]}`)
	j.bulk(`[42,44,{"a":1,"b":2},["to","be","cleared",4]]`, "JSON.GET", "test", "$..n")
	j.is("(integer) 1", "JSON.CLEAR", "test", "$.arr[2].n")
	j.is("(integer) 1", "JSON.CLEAR", "test", "$.arr[3].n2.n")
	j.is("(integer) 0", "JSON.CLEAR", "test", "$.arr[4]")
	j.bulk(`[42,44,{},[]]`, "JSON.GET", "test", "$..n")
	j.is("(integer) 2", "JSON.CLEAR", "test", "$..n")
	j.bulk(`[0,0,{},[]]`, "JSON.GET", "test", "$..n")
	j.is("(integer) 1", "JSON.CLEAR", "test")
	j.bulk(`[{}]`, "JSON.GET", "test", "$")
	j.is("(error) ERR could not perform this operation on a key that doesn't exist", "JSON.CLEAR", "nokey", "$")

	j.ok("JSON.SET", "t", ".", `{"foo":true}`)
	j.bulk("false", "JSON.TOGGLE", "t", ".foo")
	j.bulk("true", "JSON.TOGGLE", "t", ".foo")
	j.ok("JSON.SET", "t", ".", `{"foo":"bar"}`)
	j.is("(error) ERR Path '$.bar' does not exist or not a bool", "JSON.TOGGLE", "t", ".bar")
	j.is("(error) ERR Path '$.foo' does not exist or not a bool", "JSON.TOGGLE", "t", ".foo")
	j.ok("JSON.SET", "doc", "$", `{"bool": true}`)
	j.is("1) (integer) 0", "JSON.TOGGLE", "doc", "$.bool")
	j.bulk(`[{"bool":false}]`, "JSON.GET", "doc", "$")
	j.is("1) (integer) 1", "JSON.TOGGLE", "doc", "$.bool")
	j.is("(error) ERR wrong number of arguments for 'json.toggle' command", "JSON.TOGGLE", "doc")
}

// [code commands.rs json_mget; test testMgetCommand; docs json.mget]
func TestJSONMGet(t *testing.T) {
	j := newJT(t)
	j.ok("JSON.SET", "doc1", "$", `{"a":1, "b": 2, "nested": {"a": 3}, "c": null}`)
	j.ok("JSON.SET", "doc2", "$", `{"a":4, "b": 5, "nested": {"a": 6}, "c": null}`)
	j.c.Do("SET", "str", "x")
	j.is("1) \"[1,3]\"\n2) \"[4,6]\"\n3) (nil)\n4) (nil)", "JSON.MGET", "doc1", "doc2", "nokey", "str", "$..a")
	j.is("1) \"1\"\n2) \"4\"", "JSON.MGET", "doc1", "doc2", ".a")
	j.is("1) (nil)\n2) (nil)", "JSON.MGET", "doc1", "doc2", ".nope")
	j.is("(error) ERR wrong number of arguments for 'json.mget' command", "JSON.MGET", "doc1")
	info := j.c.Do("COMMAND", "INFO", "json.mget").Elems[0].Elems
	if info[0].Str != "json.mget" || info[1].Int != -3 || info[3].Int != 1 || info[4].Int != -2 || info[5].Int != 1 {
		t.Errorf("COMMAND INFO json.mget: %s", redistest.RenderCLI(resp.Value{Kind: resp.KindArray, Elems: info}))
	}
	j.is("1) \"a\"\n2) \"b\"", "COMMAND", "GETKEYS", "JSON.MGET", "a", "b", "$")
}

// JSONPath features [docs redis.io JSONPath page; code json_path.rs].
func TestJSONPaths(t *testing.T) {
	j := newJT(t)
	j.ok("JSON.SET", "k", "$", `[1,2,3]`)
	j.bulk(`[1,2,3]`, "JSON.GET", "k", "$[*]")
	j.bulk(`2`, "JSON.GET", "k", "[1]")
	j.bulk(`[2]`, "JSON.GET", "k", "$.[1]")
	j.bulk(`[3]`, "JSON.GET", "k", "$[-1]")
	j.bulk(`[1]`, "JSON.GET", "k", "$[-10]") // json_path clamps negative indexes at 0
	j.bulk(`[2,3]`, "JSON.GET", "k", "$[1:]")
	j.bulk(`[1,3]`, "JSON.GET", "k", "$[0:3:2]")
	j.bulk(`[1,2]`, "JSON.GET", "k", "$[:-1]")
	j.ok("JSON.SET", "k", "$", `{"a":[1,2,3],"b":["c","d","e"],"c":"k"}`)
	j.bulk(`[1,3,"c","e"]`, "JSON.GET", "k", "$.*[0,2]")
	j.bulk(`1`, "JSON.GET", "k", ".*[0,2]") // legacy: the first match [test testMultiPathResults]
	j.bulk(`["k"]`, "JSON.GET", "k", `$["c"]`)
	j.bulk(`["k",[1,2,3]]`, "JSON.GET", "k", `$['c','a']`)
	j.ok("JSON.SET", "store", "$", `{"books":[{"t":"a","price":8},{"t":"b","price":12.5},{"t":"c","price":20,"tag":"x"}]}`)
	j.bulk(`["b","c"]`, "JSON.GET", "store", "$.books[?(@.price>10)].t")
	j.bulk(`["a"]`, "JSON.GET", "store", `$.books[?(@.price<10 || @.t=="zz")].t`)
	j.bulk(`["c"]`, "JSON.GET", "store", `$.books[?(@.price>10 && @.tag)].t`)
	j.bulk(`["a","b"]`, "JSON.GET", "store", `$.books[?(@.t =~ "^[ab]$")].t`)
	j.bulk(`["c"]`, "JSON.GET", "store", `$..[?(@.tag=='x')].t`)
	j.bulk(`[8,12.5,20]`, "JSON.GET", "store", `$..price`)
	// json_path's compilation error; its list of expected tokens comes from
	// pest and is only approximated.
	if v := j.c.Do("JSON.GET", "k", "$.a["); v.Kind != resp.KindError || !strings.HasPrefix(v.Str, `Error occurred on position 4, "$.a[ <<<<----", expected one of the following:`) {
		t.Errorf("path error: %v", v)
	}
}

// TYPE, COPY, DEL, RENAME and MEMORY USAGE on JSON keys; the AOF rewrite
// form (JSON.SET key $ doc) recreates the document.
func TestJSONKeyspace(t *testing.T) {
	j := newJT(t)
	j.ok("JSON.SET", "a", "$", `{"x":[1,{"y":"z"}]}`)
	j.is("(integer) 1", "COPY", "a", "b")
	j.ok("JSON.SET", "b", "$.x[1].y", `"changed"`)
	j.bulk(`{"x":[1,{"y":"z"}]}`, "JSON.GET", "a")
	j.bulk(`{"x":[1,{"y":"changed"}]}`, "JSON.GET", "b")
	j.ok("RENAME", "b", "c")
	j.is("ReJSON-RL", "TYPE", "c")
	if v := j.c.Do("MEMORY", "USAGE", "a"); v.Kind != resp.KindInt || v.Int <= 0 {
		t.Errorf("MEMORY USAGE: %v", v)
	}
	j.is("(integer) 1", "EXPIRE", "a", "100")
	j.ok("JSON.SET", "a", "$", "1") // in place: the TTL stays, as in RedisJSON
	if v := j.c.Do("TTL", "a"); v.Int <= 0 {
		t.Errorf("TTL after JSON.SET: %v", v)
	}
	// Rewrite emits JSON.SET key $ <doc>.
	j.o.Engine.Lock()
	var emitted []string
	for _, db := range j.o.Engine.DBs() {
		db.Each(0, func(key string, v engine.Value, _ int64) bool {
			if ty, ok := v.Obj().(interface {
				Rewrite(string, func([][]byte))
			}); ok {
				ty.Rewrite(key, func(args [][]byte) {
					parts := make([]string, len(args))
					for i, a := range args {
						parts[i] = string(a)
					}
					emitted = append(emitted, strings.Join(parts, " "))
				})
			}
			return true
		})
	}
	j.o.Engine.Unlock()
	if strings.Join(emitted, "|") != `JSON.SET c $ {"x":[1,{"y":"changed"}]}|JSON.SET a $ 1` &&
		strings.Join(emitted, "|") != `JSON.SET a $ 1|JSON.SET c $ {"x":[1,{"y":"changed"}]}` {
		t.Errorf("rewrite: %q", emitted)
	}
}
