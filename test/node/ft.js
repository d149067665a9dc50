// node-redis's search API (client.ft.*) against a server with FT.*:
// creates an index with TEXT/NUMERIC/TAG/GEO fields, writes hashes,
// searches and aggregates, and checks what node-redis parses from the
// replies. Prints "ok" or the first mismatch. Usage: node ft.js PORT
const assert = require("assert");
const {
  createClient, SchemaFieldTypes, AggregateSteps, AggregateGroupByReducers,
} = require("redis");

const port = Number(process.argv[2]);
const client = createClient({ socket: { host: "127.0.0.1", port, reconnectStrategy: false } });
client.on("error", (e) => { console.error(String(e)); process.exit(1); });

(async () => {
  await client.connect();
  assert.strictEqual(await client.ft.create("idx:shop", {
    name: { type: SchemaFieldTypes.TEXT, SORTABLE: true },
    price: { type: SchemaFieldTypes.NUMERIC, SORTABLE: true },
    color: { type: SchemaFieldTypes.TAG, SEPARATOR: "," },
    loc: SchemaFieldTypes.GEO,
  }, { ON: "HASH", PREFIX: "shop:" }), "OK");

  const items = [
    ["shop:1", { name: "red apple", price: "3", color: "red", loc: "2.35,48.85" }],
    ["shop:2", { name: "green apple", price: "5", color: "green", loc: "2.29,48.86" }],
    ["shop:3", { name: "banana", price: "2", color: "yellow", loc: "13.40,52.52" }],
    ["shop:4", { name: "red cherry", price: "12", color: "red,dark", loc: "2.35,48.86" }],
    ["shop:5", { name: "apple pie", price: "25500.12346", color: "brown", loc: "-0.12,51.50" }],
  ];
  for (const [key, doc] of items) {
    assert.strictEqual(await client.hSet(key, doc), 4);
  }

  // A numeric range, sorted, paged, with RETURN: documents in order.
  let r = await client.ft.search("idx:shop", "@price:[2 12]", {
    SORTBY: { BY: "price", DIRECTION: "DESC" }, LIMIT: { from: 0, size: 2 }, RETURN: ["name", "price"],
  });
  assert.strictEqual(r.total, 4);
  assert.deepStrictEqual(r.documents.map((d) => d.id), ["shop:4", "shop:2"]);
  assert.deepStrictEqual({ ...r.documents[0].value }, { name: "red cherry", price: "12" });

  // Text and tag with PARAMS (dialect 2), whole documents.
  r = await client.ft.search("idx:shop", "apple @color:{$c}", { PARAMS: { c: "red" }, DIALECT: 2 });
  assert.strictEqual(r.total, 1);
  assert.strictEqual(r.documents[0].id, "shop:1");
  assert.deepStrictEqual({ ...r.documents[0].value },
    { name: "red apple", price: "3", color: "red", loc: "2.35,48.85" });

  // A parameterised numeric range and a GEO radius; exact decimal text.
  r = await client.ft.search("idx:shop", "@price:[$lo $hi]", {
    PARAMS: { lo: 100, hi: "+inf" }, DIALECT: 2, RETURN: ["price"],
  });
  assert.strictEqual(r.total, 1);
  assert.strictEqual(r.documents[0].value.price, "25500.12346");
  r = await client.ft.search("idx:shop", "@loc:[2.35 48.85 5 km]", { SORTBY: "price", RETURN: [] });
  assert.deepStrictEqual(r.documents.map((d) => d.id), ["shop:1", "shop:2", "shop:4"]);
  assert.strictEqual(r.total, 3);

  // NOCONTENT through searchNoContent: ids only.
  const nc = await client.ft.searchNoContent("idx:shop", "@color:{red}", { SORTBY: "price" });
  assert.strictEqual(nc.total, 2);
  assert.deepStrictEqual(nc.documents, ["shop:1", "shop:4"]);

  // Nothing matches.
  r = await client.ft.search("idx:shop", "@price:[1000 2000]");
  assert.deepStrictEqual(r, { total: 0, documents: [] });

  // FT.AGGREGATE: GROUPBY with REDUCE COUNT and SUM, sorted.
  await client.hSet("shop:7", { name: "red plum", price: "7", color: "red" });
  const a = await client.ft.aggregate("idx:shop", "*", {
    STEPS: [
      {
        type: AggregateSteps.GROUPBY, properties: "@color",
        REDUCE: [
          { type: AggregateGroupByReducers.COUNT, AS: "n" },
          { type: AggregateGroupByReducers.SUM, property: "@price", AS: "total" },
        ],
      },
      { type: AggregateSteps.SORTBY, BY: { BY: "@color", DIRECTION: "ASC" } },
    ],
  });
  assert.strictEqual(a.total, 5);
  assert.deepStrictEqual(a.results.map((x) => ({ ...x })), [
    { color: "brown", n: "1", total: "25500.12346" },
    { color: "green", n: "1", total: "5" },
    { color: "red", n: "2", total: "10" },
    { color: "red,dark", n: "1", total: "12" }, // the hash's value, as RediSearch groups it
    { color: "yellow", n: "1", total: "2" },
  ]);

  // FT.INFO: node-redis reads the reply by position.
  const info = await client.ft.info("idx:shop");
  assert.strictEqual(info.indexName, "idx:shop");
  assert.strictEqual(String(info.numDocs), "6");
  assert.deepStrictEqual(info.attributes.map((x) => [x.identifier, x.type]),
    [["name", "TEXT"], ["price", "NUMERIC"], ["color", "TAG"], ["loc", "GEO"]]);
  assert.deepStrictEqual(info.indexDefinition.key_type, "HASH");
  assert.strictEqual(String(info.percentIndexed), "1");
  assert.strictEqual(info.hashIndexingFailures, 0);
  assert.strictEqual(info.cursorStats.indexCapacity, 128);
  assert.deepStrictEqual(await client.ft._list(), ["idx:shop"]);

  // A write is searchable at once; DEL leaves the index at once.
  await client.hSet("shop:6", { name: "plum", price: "4", color: "blue" });
  await client.del(["shop:3", "shop:7"]);
  r = await client.ft.search("idx:shop", "@price:[2 4]", { SORTBY: "price", RETURN: ["name"] });
  assert.deepStrictEqual(r.documents.map((d) => [d.id, d.value.name]), [["shop:1", "red apple"], ["shop:6", "plum"]]);

  // FT.DROPINDEX with DD deletes the documents too.
  assert.strictEqual(await client.ft.dropIndex("idx:shop", { DD: true }), "OK");
  assert.deepStrictEqual(await client.ft._list(), []);
  assert.strictEqual(await client.exists(["shop:1", "shop:2", "shop:6"]), 0);
  await assert.rejects(client.ft.info("idx:shop"), /Unknown index name/i);

  console.log("ok");
  await client.quit();
})().catch((e) => { console.error(e && e.stack || String(e)); process.exit(1); });
