"""Key-value stores as programs use them directly: HashStore, PrefixStore namespaces, a FileStore two handles
share, a TCPStore master with a client, and the errors and timeouts of each."""

import datetime
import tempfile

import torch.distributed as d


def attempt(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, isinstance(e, RuntimeError), str(e))


s = d.HashStore()
s.set("a", "1")
print(s.get("a"), s.add("c", 5), s.add("c", 2), s.get("c"), s.num_keys(), s.check(["a"]), s.check(["zz"]))
print(s.compare_set("a", "1", "2"), s.get("a"), s.compare_set("a", "x", "3"), s.compare_set("new", "", "v"),
      s.get("new"), s.compare_set("missing2", "x", "y"))
print(s.delete_key("a"), s.delete_key("a"), s.num_keys())
s.set_timeout(datetime.timedelta(seconds=0.2))
attempt(lambda: s.get("missing"))
attempt(lambda: s.wait(["missing"]))
print(s.timeout, d.HashStore().timeout, isinstance(s, d.Store))

p = d.PrefixStore("pre", s)
p.set("k", b"v")
print(p.get("k"), s.get("pre/k"), p.num_keys(), p.underlying_store is s)
s.append("ap", "x")
s.append("ap", "y")
print(s.get("ap"), s.multi_get(["ap", "c"]))
s.multi_set(["m1", "m2"], ["1", b"2"])
print(s.get("m2"))
s.set("i", "notint")
attempt(lambda: s.add("i", 1))

f = tempfile.mktemp()
fs = d.FileStore(f, 1)
print(fs.num_keys())
fs.set("x", "y")
print(fs.get("x"), fs.add("n", 3), fs.num_keys())
fs2 = d.FileStore(f, 1)
print(fs2.get("x"), fs2.num_keys(), fs2.delete_key("x"), fs.num_keys(), fs.check(["x"]), fs.check(["n"]))
fs.set_timeout(datetime.timedelta(seconds=0.3))
attempt(lambda: fs.get("nope"))

t = d.TCPStore("127.0.0.1", 0, 1, True, timeout=datetime.timedelta(seconds=1))
print(t.port > 0, t.host, t.num_keys())
t.set("k", "v")
print(t.get("k"), t.add("n", 1), t.num_keys(), t.compare_set("k", "v", "w"), t.check(["k", "n"]))
c = d.TCPStore("127.0.0.1", t.port, 1, False, timeout=datetime.timedelta(seconds=1))
print(c.get("k"), c.add("n", 5), t.get("n"))
attempt(lambda: c.get("nope"))
attempt(lambda: d.TCPStore("127.0.0.1", 1, None, False, timeout=datetime.timedelta(seconds=0.5)))
print(d.TCPStore("127.0.0.1", 0, None, True).num_keys())
