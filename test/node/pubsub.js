// ioredis's pub/sub against a server: SUBSCRIBE and PSUBSCRIBE with the
// message and pmessage events, PUBLISH's receiver counts, PUBSUB NUMSUB,
// UNSUBSCRIBE (nothing delivered afterwards), SSUBSCRIBE/SPUBLISH, and a
// keyspace notification; messages must arrive in order. Prints "ok" or
// the first mismatch. Usage: node pubsub.js PORT
const assert = require("assert");
const Redis = require("ioredis");

const port = Number(process.argv[2]);
const opts = { host: "127.0.0.1", port, lazyConnect: true, retryStrategy: () => null };
const sub = new Redis(opts);
const pub = new Redis(opts);
const fail = (e) => { console.error(String(e && e.stack || e)); process.exit(1); };
sub.on("error", fail);
pub.on("error", fail);

(async () => {
  await sub.connect();
  await pub.connect();
  const got = [];
  sub.on("message", (ch, msg) => got.push(["message", ch, msg]));
  sub.on("pmessage", (pat, ch, msg) => got.push(["pmessage", pat, ch, msg]));
  sub.on("smessage", (ch, msg) => got.push(["smessage", ch, msg]));
  assert.strictEqual(await sub.subscribe("news", "sport"), 2);
  assert.strictEqual(await sub.psubscribe("ev.*"), 3);
  assert.deepStrictEqual(await pub.pubsub("NUMSUB", "news", "nobody"), ["news", 1, "nobody", 0]);
  assert.strictEqual(await pub.publish("news", "n1"), 1);
  assert.strictEqual(await pub.publish("ev.a", "e1"), 1);
  assert.strictEqual(await pub.publish("sport", "s1"), 1);
  assert.strictEqual(await pub.publish("nobody", "x"), 0);
  await pub.config("SET", "notify-keyspace-events", "E$");
  assert.strictEqual(await sub.psubscribe("__keyevent@0__:set"), 4);
  await pub.set("k", "v");
  await sub.unsubscribe("news");
  assert.strictEqual(await pub.publish("news", "after"), 0);
  assert.strictEqual(await sub.ssubscribe("shard"), 1);
  assert.strictEqual(await pub.spublish("shard", "sh1"), 1);
  await pub.ping(); // everything published above has been delivered by now
  await new Promise((r) => setTimeout(r, 100));
  assert.deepStrictEqual(got, [
    ["message", "news", "n1"],
    ["pmessage", "ev.*", "ev.a", "e1"],
    ["message", "sport", "s1"],
    ["pmessage", "__keyevent@0__:set", "__keyevent@0__:set", "k"],
    ["smessage", "shard", "sh1"],
  ]);
  await pub.config("SET", "notify-keyspace-events", "");
  sub.disconnect();
  pub.disconnect();
  console.log("ok");
})().catch(fail);
