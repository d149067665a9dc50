# redis-py's aggregation, cursor, suggestion, alias, synonym, dictionary,
# explain, profile and config API against an Ordo server:
# python3 redispy_ftagg.py PORT
import sys

import redis
from redis.commands.search import reducers
from redis.commands.search.aggregation import AggregateRequest, Asc, Desc
from redis.commands.search.field import NumericField, TagField, TextField
from redis.commands.search.indexDefinition import IndexDefinition, IndexType
from redis.commands.search.query import Query
from redis.commands.search.suggestion import Suggestion

r = redis.Redis(host="127.0.0.1", port=int(sys.argv[1]), decode_responses=True)
for i, (brand, price) in enumerate([("acme", 10), ("acme", 20), ("globex", 5), ("initech", 7.5), ("globex", 1)]):
    r.hset("p:%d" % i, mapping={"name": "item %d" % i, "brand": brand, "price": price})
ft = r.ft("prod")
ft.create_index(
    [TextField("name"), TagField("brand", sortable=True), NumericField("price", sortable=True)],
    definition=IndexDefinition(prefix=["p:"], index_type=IndexType.HASH),
)

req = (
    AggregateRequest("*")
    .group_by("@brand", reducers.count().alias("n"), reducers.sum("@price").alias("total"),
              reducers.avg("@price").alias("avg"), reducers.tolist("@name").alias("names"))
    .sort_by(Desc("@total"), Asc("@brand"))
    .limit(0, 2)
)
res = ft.aggregate(req)
assert res.rows == [
    ["brand", "acme", "n", "2", "total", "30", "avg", "15", "names", ["item 0", "item 1"]],
    ["brand", "initech", "n", "1", "total", "7.5", "avg", "7.5", "names", ["item 3"]],
], res.rows

req = AggregateRequest("@price:[5 +inf]").load("@name").apply(double="@price * 2").filter("@double > 12").sort_by(Asc("@price"))
res = ft.aggregate(req)
assert res.rows == [["name", "item 3", "price", "7.5", "double", "15"], ["name", "item 0", "price", "10", "double", "20"],
                    ["name", "item 1", "price", "20", "double", "40"]], res.rows

# Cursors: two chunks of two, then one, then the cursor is done.
req = AggregateRequest("*").load("@name").sort_by(Asc("@price"), max=5).cursor(count=2, max_idle=5)
res = ft.aggregate(req)
rows = list(res.rows)
assert res.cursor.cid != 0, res.cursor.cid
while res.cursor and res.cursor.cid:
    res = ft.aggregate(res.cursor)
    rows += res.rows
assert [x[1] for x in rows] == ["item 4", "item 2", "item 3", "item 0", "item 1"], rows

# Aliases.
ft.aliasadd("products")
assert r.ft("products").search(Query("@brand:{acme}").no_content()).total == 2
ft.aliasupdate("products")
r.ft("products").aliasdel("products")
try:
    r.ft("products").search("*")
    raise AssertionError("search through a deleted alias answered")
except redis.ResponseError as e:
    assert "no such index" in str(e), e

# FT.TAGVALS, FT.ALTER.
assert sorted(ft.tagvals("brand")) == ["acme", "globex", "initech"]
ft.alter_schema_add([NumericField("stock")])
r.hset("p:0", "stock", 3)
assert ft.search(Query("@stock:[1 5]").no_content()).total == 1

# Suggestions.
ac = r.ft()
assert ac.sugadd("ac", Suggestion("hello world", 1.0), Suggestion("hello there", 2.0, "pl")) == 2
assert ac.suglen("ac") == 2
sugs = ac.sugget("ac", "hel", with_payloads=True)
assert [s.string for s in sugs] == ["hello there", "hello world"], sugs
assert sugs[0].payload == "pl", sugs[0].payload
assert ac.sugdel("ac", "hello world") == 1

# Synonyms, dictionaries, explain, profile, config.
ft.synupdate("g1", False, "item", "thing")
assert ft.syndump() == {"item": ["g1"], "thing": ["g1"]}, ft.syndump()
assert ft.search(Query("thing").no_content()).total == 5
assert ac.dict_add("d", "a", "b") == 2
assert ac.dict_dump("d") == ["a", "b"]
assert ft.explain("@price:[1 2]") == "NUMERIC {1.000000 <= @price <= 2.000000}\n"
res, prof = ft.profile(Query("item"))
assert res.total == 5, res
assert "Total profile time" in prof, prof
assert ac.config_get("TIMEOUT") == {"TIMEOUT": "500"}, ac.config_get("TIMEOUT")
print("ok")
