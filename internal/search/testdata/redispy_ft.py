# redis-py's search API against an Ordo server: python3 redispy_ft.py PORT
import sys

import redis
from redis.commands.search.field import GeoField, NumericField, TagField, TextField
from redis.commands.search.indexDefinition import IndexDefinition, IndexType
from redis.commands.search.query import GeoFilter, NumericFilter, Query

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

# Full text and GEO: stems, phrases, SLOP/INORDER, scorers, GEOFILTER.
r.hset("place:1", mapping={"name": "Running shoes shop", "body": "we sell shoes", "loc": "-0.1757,51.5156"})
r.hset("place:2", mapping={"name": "Shop of runners", "body": "shoes for running", "loc": "2.3522,48.8566"})
pl = r.ft("places")
pl.create_index(
    [TextField("name", weight=5.0), TextField("body"), GeoField("loc")],
    definition=IndexDefinition(prefix=["place:"]),
)
res = pl.search(Query("run").no_content())
assert sorted(d.id for d in res.docs) == ["place:1", "place:2"], res
res = pl.search(Query("run").verbatim().no_content())
assert res.total == 0, res
res = pl.search(Query('"running shoes"').no_content())
assert [d.id for d in res.docs] == ["place:1"], res
res = pl.search(Query("shoes running").slop(0).in_order().no_content())
assert [d.id for d in res.docs] == ["place:2"], res  # "for" is a stop word: no position
res = pl.search(Query("shoes running").slop(1).no_content())
assert sorted(d.id for d in res.docs) == ["place:1", "place:2"], res
res = pl.search(Query("shoes").with_scores().scorer("BM25").limit_fields("body").no_content())
assert res.total == 2 and all(d.score > 0 for d in res.docs), res
res = pl.search(Query("shop").add_filter(GeoFilter("loc", -0.17, 51.51, 10, "km")).no_content())
assert [d.id for d in res.docs] == ["place:1"], res
res = pl.search(Query("@loc:[$lon $lat 1000 km]").dialect(2).no_content(), query_params={"lon": 2.35, "lat": 48.85})
assert sorted(d.id for d in res.docs) == ["place:1", "place:2"], res
res = pl.search(Query("shop").limit_ids("place:2").return_field("name", as_field="n"))
assert [(d.id, d.n) for d in res.docs] == [("place:2", "Shop of runners")], res

# HIGHLIGHT and SUMMARIZE (redis-py sends SUMMARIZE, then HIGHLIGHT).
res = pl.search(Query("running").highlight(fields=["name"], tags=["[", "]"]).return_fields("name", "body"))
assert [(d.id, d.name, d.body) for d in res.docs] == [("place:1", "[Running] shoes shop", "we sell shoes"),
                                                      ("place:2", "Shop of runners", "shoes for running")], res  # runners stems to runner
res = pl.search(Query("shoes").summarize(fields=["body"], context_len=1, sep="|").highlight().limit_ids("place:2"))
assert res.docs[0].body == "<b>shoes</b> |", res
print("ok")
