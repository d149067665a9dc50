# redis-py's search API against an Ordo server: python3 redispy_ft.py PORT
import sys

import redis
from redis.commands.search.field import NumericField, TagField, TextField
from redis.commands.search.indexDefinition import IndexDefinition, IndexType
from redis.commands.search.query import NumericFilter, Query

r = redis.Redis(host="127.0.0.1", port=int(sys.argv[1]), decode_responses=True)
r.hset("doc:1", mapping={"title": "hello world", "price": "10", "tags": "a,b"})
r.hset("doc:2", mapping={"title": "hello there", "price": "9007199254740993", "tags": "c"})
ft = r.ft("idx")
ft.create_index(
    [TextField("title", sortable=True), NumericField("price", sortable=True), TagField("tags")],
    definition=IndexDefinition(prefix=["doc:"], index_type=IndexType.HASH),
)

res = ft.search(Query("hello").sort_by("price", asc=False))
assert res.total == 2, res
assert [d.id for d in res.docs] == ["doc:2", "doc:1"], res
assert res.docs[1].title == "hello world", res

res = ft.search(Query("@tags:{b}").no_content())
assert res.total == 1 and res.docs[0].id == "doc:1", res

res = ft.search(Query("@price:[$lo +inf]").dialect(2).return_fields("price"), query_params={"lo": "9007199254740993"})
assert res.total == 1 and res.docs[0].price == "9007199254740993", res

res = ft.search(Query("*").add_filter(NumericFilter("price", 0, 100)).paging(0, 5))
assert res.total == 1 and res.docs[0].id == "doc:1", res

r.delete("doc:1")
assert ft.search(Query("world")).total == 0

info = ft.info()
assert info["index_name"] == "idx", info
assert int(info["num_docs"]) == 1, info

assert "idx" in r.execute_command("FT._LIST")
ft.dropindex(delete_documents=True)
assert r.exists("doc:2") == 0
try:
    ft.info()
    raise AssertionError("FT.INFO of a dropped index answered")
except redis.ResponseError as e:
    assert str(e) == "Unknown Index name", e
print("ok")
