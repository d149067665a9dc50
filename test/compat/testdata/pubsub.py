"""redis-py's PubSub API against one server (host port on the command
line): subscribe, psubscribe, messages, ping in subscribed mode, keyspace
notifications, unsubscribe. Prints what it received, one line each; the Go
test runs it against redis-server and ordo-server and compares."""
import sys

import redis

port = int(sys.argv[1])
r = redis.Redis(host="127.0.0.1", port=port)
r.config_set("notify-keyspace-events", "KEA")
p = r.pubsub()
p.subscribe("news", "sport")
p.psubscribe("__keyevent@0__:*")
out = []


def take(n):
    for m in p.listen():
        out.append(repr((m["type"], m["pattern"], m["channel"], m["data"])))
        n -= 1
        if n == 0:
            return


take(3)
print("numsub", r.pubsub_numsub("news", "nosuch"))
print("numpat", r.pubsub_numpat())
print("channels", sorted(r.pubsub_channels()))
for i in range(50):
    r.publish("news", str(i))
r.publish("sport", b"bin\x00ary")
r.set("k", "v")
r.hset("h", "f", "v")
r.delete("k")
take(50 + 1 + 3)
p.ping("hi")
take(1)
p.unsubscribe("news")
take(1)
r.publish("news", "late")
r.publish("sport", "after")
take(1)
p.punsubscribe()
p.unsubscribe()
take(2)
p.close()
for line in out:
    print(line)
