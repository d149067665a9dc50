// ioredis over TLS with a client certificate: SET then GET; prints the
// value. Usage: node tls.js PORT CA CERT KEY
const fs = require("fs");
const Redis = require("ioredis");
const [port, ca, cert, key] = process.argv.slice(2);
const r = new Redis({
  host: "127.0.0.1", port: Number(port), maxRetriesPerRequest: 0, enableOfflineQueue: true,
  retryStrategy: () => null,
  tls: { ca: fs.readFileSync(ca), cert: fs.readFileSync(cert), key: fs.readFileSync(key) },
});
(async () => {
  await r.set("tls:node", "ok");
  console.log(await r.get("tls:node"));
  r.disconnect();
})().catch((e) => { console.error(String(e)); process.exit(1); });
