"""The key-value stores across threads and processes (the single-process semantics are compared with
PyTorch's output in tests/api_programs/c10d_stores.py)."""

import datetime
import subprocess
import sys
import threading
import time

import pytest

import ember.distributed as dist


def test_a_hash_store_get_wakes_when_another_thread_sets_the_key():
    s = dist.HashStore()
    threading.Timer(0.05, lambda: s.set("late", "here")).start()
    t0 = time.monotonic()
    assert s.get("late") == b"here" and time.monotonic() - t0 < 5


def test_a_file_store_is_shared_with_another_process(tmp_path):
    path = str(tmp_path / "store")
    s = dist.FileStore(path, 2)
    s.set_timeout(datetime.timedelta(seconds=20))
    child = (f"import ember.distributed as d; s = d.FileStore({path!r}, 2); print(s.get('ping').decode()); "
             "s.set('pong', 'from child'); print(s.add('count', 10))")
    p = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    s.add("count", 1)
    s.set("ping", "from parent")
    assert s.get("pong") == b"from child"
    out, _ = p.communicate(timeout=60)
    assert out.split() == ["from", "parent", "11"] and s.get("count") == b"11"
    assert s.num_keys() == 5  # refcount/, ping, pong, count, and cleanup/ from the child's exit (as PyTorch's)
    with open(path, "rb") as f:  # PyTorch's records: a 4-byte little-endian length, then the bytes
        assert f.read(13) == b"\x09\x00\x00\x00refcount/"


def test_a_tcp_store_master_waits_for_its_workers_and_serves_another_process():
    master = dist.TCPStore("127.0.0.1", 0, 2, True, timeout=datetime.timedelta(seconds=1), wait_for_workers=False)
    child = (f"import datetime, ember.distributed as d; s = d.TCPStore('127.0.0.1', {master.port}, 2, False, "
             "timeout=datetime.timedelta(seconds=30)); s.set('from_child', b'\\x00\\xff'); print(s.get('from_master'))")
    p = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    master.set("from_master", "hello")
    master.set_timeout(datetime.timedelta(seconds=30))
    assert master.get("from_child") == b"\x00\xff"
    out, _ = p.communicate(timeout=60)
    assert out.strip() == "b'hello'" and master.get("init/") == b"2"


def test_a_tcp_store_master_times_out_waiting_for_missing_workers():
    # PyTorch's words, its seconds rounded up
    says = r"^Timed out after 1 seconds waiting for clients. 1/3 clients joined.$"
    with pytest.raises(dist.DistStoreError, match=says):
        dist.TCPStore("127.0.0.1", 0, 3, True, timeout=datetime.timedelta(seconds=0.3))


def test_store_values_must_be_str_or_bytes():
    with pytest.raises(TypeError, match="a store value must be str or bytes; got float"):
        dist.HashStore().set("k", 1.5)


def test_a_file_store_file_goes_with_its_last_handle_once_world_size_closed(tmp_path):
    # PyTorch's destructor: count the closed handles, drop the refcount, remove at refcount 0 and world_size closed
    path = tmp_path / "f"
    a, b = dist.FileStore(str(path), 1), dist.FileStore(str(path), 1)
    del a
    assert path.exists()  # another handle is still open
    del b
    assert not path.exists()
    c = dist.FileStore(str(tmp_path / "g"), 2)
    c.set("k", "v")
    del c  # one of two workers closed: the file stays for the second
    d = dist.FileStore(str(tmp_path / "g"), 2)
    assert d.get("k") == b"v" and d.num_keys() == 3  # refcount/, cleanup/, k
    del d
    assert not (tmp_path / "g").exists()
    e = dist.FileStore(str(tmp_path / "h"))  # world_size -1: never removed
    del e
    assert (tmp_path / "h").exists()
