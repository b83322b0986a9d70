"""torch.distributed's key-value stores: `HashStore` (one process), `FileStore` (processes sharing a
file), `TCPStore` (processes reaching one server over TCP) and `PrefixStore` (a namespace in another).

ember's process groups rendezvous through MPI and need no store; these serve the programs that use a
store directly (exchanging addresses, counters, barriers of their own). Keys are strings, values bytes
(a `str` value is stored UTF-8 encoded); `get`/`wait` block until the keys exist or the store's
timeout passes. A TCPStore's wire format is length-prefixed bytes, never pickle: a store's peer cannot
make this process run code. A FileStore's file holds PyTorch's records (a 4-byte little-endian length,
then the bytes; key and value alternate; the last record of a key wins; user keys are prefixed "/").
"""

from __future__ import annotations

import datetime
import fcntl
import math
import os
import socket
import socketserver
import struct
import threading
import time

from ember.distributed.c10d import DistError

__all__ = ["Store", "HashStore", "FileStore", "TCPStore", "PrefixStore", "DistStoreError", "DistNetworkError"]

_DEFAULT_TIMEOUT = datetime.timedelta(seconds=300)


class DistStoreError(DistError):
    """A store operation failed or timed out (torch.distributed.DistStoreError)."""


class DistNetworkError(DistError):
    """A store could not reach its server (torch.distributed.DistNetworkError)."""


def _bytes(v) -> bytes:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    if isinstance(v, str):
        return v.encode()
    if isinstance(v, list) and all(isinstance(x, int) for x in v):
        return bytes(v)
    raise TypeError(f"a store value must be str or bytes; got {type(v).__name__}")


def _key(k) -> str:
    if not isinstance(k, str):
        raise TypeError(f"a store key must be str; got {type(k).__name__}")
    return k


def _apply(d: dict, op: str, args: list) -> object:
    """One atomic operation on a store's table (key -> bytes); the single definition every store runs."""
    if op == "set":
        d[args[0]] = args[1]
        return None
    if op == "get":
        return d.get(args[0])
    if op == "add":
        cur = d.get(args[0], b"0")
        try:
            v = int(cur) + args[1]
        except ValueError:
            raise ValueError("stoll") from None  # PyTorch's word: C++'s string-to-integer parse failed
        d[args[0]] = str(v).encode()
        return v
    if op == "compare_set":
        k, expected, desired = args
        cur = d.get(k)
        if cur is None:
            if expected == b"":
                d[k] = desired
                return desired
            return expected
        if cur == expected:
            d[k] = desired
            return desired
        return cur
    if op == "append":
        d[args[0]] = d.get(args[0], b"") + args[1]
        return None
    if op == "delete_key":
        return d.pop(args[0], None) is not None
    if op == "num_keys":
        return len(d)
    if op == "check":
        return all(k in d for k in args)
    raise ValueError(f"unknown store operation {op!r}")


class Store:
    """torch.distributed.Store: the interface of every store."""

    def __init__(self, timeout: datetime.timedelta = _DEFAULT_TIMEOUT) -> None:
        self._timeout = timeout

    # each store runs `_apply` atomically on its table
    def _op(self, op: str, *args) -> object:
        raise NotImplementedError

    def _missing(self, keys: list[str], timeout: datetime.timedelta) -> DistError:
        return DistStoreError("Wait timeout")

    @property
    def timeout(self) -> datetime.timedelta:
        return self._timeout

    def set_timeout(self, timeout: datetime.timedelta) -> None:
        self._timeout = timeout

    def set(self, key: str, value) -> None:
        self._op("set", _key(key), _bytes(value))

    def get(self, key: str) -> bytes:
        """The value of `key`, waiting for it up to the store's timeout."""
        self.wait([key])
        v = self._op("get", _key(key))
        if v is None:  # deleted between the wait and the read
            raise self._missing([key], self._timeout)
        return v

    def add(self, key: str, amount: int) -> int:
        """Add `amount` to the integer at `key` (0 when absent); the new value."""
        return self._op("add", _key(key), int(amount))

    def compare_set(self, key: str, expected_value, desired_value) -> bytes:
        """Set `key` to `desired_value` if it holds `expected_value` (or is absent and `expected_value` is
        empty); the value it holds afterwards (`expected_value` for an absent key that was not set)."""
        return self._op("compare_set", _key(key), _bytes(expected_value), _bytes(desired_value))

    def append(self, key: str, value) -> None:
        self._op("append", _key(key), _bytes(value))

    def multi_get(self, keys: list[str]) -> list[bytes]:
        return [self.get(k) for k in keys]

    def multi_set(self, keys: list[str], values: list) -> None:
        for k, v in zip(keys, values, strict=True):
            self.set(k, v)

    def delete_key(self, key: str) -> bool:
        return self._op("delete_key", _key(key))

    def num_keys(self) -> int:
        return self._op("num_keys")

    def check(self, keys: list[str]) -> bool:
        """Whether every key of `keys` is set (without waiting)."""
        return self._op("check", *map(_key, keys))

    def has_extended_api(self) -> bool:
        return True

    def wait(self, keys: list[str], timeout: datetime.timedelta | None = None) -> None:
        """Block until every key of `keys` is set.

        Raises:
            DistStoreError: (RuntimeError for a FileStore, as PyTorch's) the timeout passed first.
        """
        keys = [_key(k) for k in keys]
        limit = self._timeout if timeout is None else timeout
        deadline = time.monotonic() + limit.total_seconds()
        pause = 0.0005
        while not self._op("check", *keys):
            if time.monotonic() >= deadline:
                raise self._missing(keys, limit)
            time.sleep(pause)
            pause = min(pause * 2, 0.05)


class HashStore(Store):
    """A store in this process's memory, shared by its threads."""

    def __init__(self) -> None:
        super().__init__()
        self._table: dict[str, bytes] = {}
        self._cond = threading.Condition()

    def _op(self, op: str, *args) -> object:
        with self._cond:
            out = _apply(self._table, op, list(args))
            self._cond.notify_all()
            return out

    def wait(self, keys: list[str], timeout: datetime.timedelta | None = None) -> None:
        keys = [_key(k) for k in keys]
        limit = self._timeout if timeout is None else timeout
        with self._cond:
            if not self._cond.wait_for(lambda: all(k in self._table for k in keys), limit.total_seconds()):
                raise self._missing(keys, limit)


class FileStore(Store):
    """A store in a file that processes on one machine (or a shared file system) open together."""

    def __init__(self, file_name: str, world_size: int = -1) -> None:
        super().__init__()
        self.path = os.fspath(file_name)
        self.world_size = world_size
        self._file_op("add", "refcount/", 1)  # PyTorch's own key: counted by num_keys, as there

    def __del__(self) -> None:
        """PyTorch's cleanup: the handle that leaves no other open, once `world_size` (>= 0) handles have
        closed, removes the file (best effort: one already gone, or removed by someone else, is left be)."""
        if not os.path.exists(getattr(self, "path", "")):
            return
        try:
            closed = self._file_op("add", "cleanup/", 1)
            if self._file_op("add", "refcount/", -1) == 0 and 0 <= self.world_size <= closed:
                os.remove(self.path)
        except Exception:  # noqa: BLE001 - best effort, as PyTorch's; late at interpreter exit even `open` is gone
            pass

    def _op(self, op: str, *args) -> object:
        user = {"set", "get", "add", "compare_set", "append", "delete_key"}
        if op in user and args:
            args = ("/" + args[0], *args[1:])
        elif op == "check":
            args = tuple("/" + k for k in args)
        return self._file_op(op, *args)

    def _file_op(self, op: str, *args) -> object:
        """`op` on the file's table, under an exclusive lock; keys as stored (user keys already under "/")."""
        with open(self.path, "a+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            f.seek(0)
            table = _read_records(f.read())
            before = dict(table)
            out = _apply(table, op, list(args))
            if op == "delete_key" and out:
                f.truncate(0)
                f.write(b"".join(_record(k, v) for k, v in table.items()))
            else:
                f.write(b"".join(_record(k, v) for k, v in table.items() if before.get(k) != v))
            f.flush()
        return out

    def _missing(self, keys: list[str], timeout: datetime.timedelta) -> DistError:
        ms = int(timeout.total_seconds() * 1000)
        return RuntimeError(f"Timeout waiting for key: {keys[0]} after {ms} ms")


def _record(k: str, v: bytes) -> bytes:
    kb = k.encode()
    return struct.pack("<I", len(kb)) + kb + struct.pack("<I", len(v)) + v


def _read_records(data: bytes) -> dict[str, bytes]:
    """The table a FileStore's records describe (a torn last record, from a writer that died, is ignored)."""
    table, pos, n = {}, 0, len(data)
    while pos + 4 <= n:
        (lk,) = struct.unpack_from("<I", data, pos)
        if pos + 4 + lk + 4 > n:
            break
        k = data[pos + 4:pos + 4 + lk].decode()
        pos += 4 + lk
        (lv,) = struct.unpack_from("<I", data, pos)
        if pos + 4 + lv > n:
            break
        table[k] = data[pos + 4:pos + 4 + lv]
        pos += 4 + lv
    return table


class PrefixStore(Store):
    """Every key of `store` under `prefix + "/"`: one store, several namespaces."""

    def __init__(self, prefix: str, store: Store) -> None:
        super().__init__(store.timeout)
        self.prefix = prefix
        self.underlying_store = store

    def _op(self, op: str, *args) -> object:
        if op == "check":
            args = tuple(f"{self.prefix}/{k}" for k in args)
        elif op != "num_keys":
            args = (f"{self.prefix}/{args[0]}", *args[1:])
        return self.underlying_store._op(op, *args)

    def _missing(self, keys: list[str], timeout: datetime.timedelta) -> DistError:
        return self.underlying_store._missing([f"{self.prefix}/{k}" for k in keys], timeout)

    def wait(self, keys: list[str], timeout: datetime.timedelta | None = None) -> None:
        self.underlying_store.wait([f"{self.prefix}/{_key(k)}" for k in keys],
                                   self._timeout if timeout is None else timeout)


# ---------------------------------------------------------------------------------------------- TCPStore


def _send(sock: socket.socket, parts: list[bytes]) -> None:
    sock.sendall(struct.pack("<I", len(parts)) + b"".join(struct.pack("<I", len(p)) + p for p in parts))


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("the store's peer closed the connection")
        buf += chunk
    return bytes(buf)


def _recv(sock: socket.socket) -> list[bytes]:
    (count,) = struct.unpack("<I", _recv_exact(sock, 4))
    parts = []
    for _ in range(count):
        (n,) = struct.unpack("<I", _recv_exact(sock, 4))
        parts.append(_recv_exact(sock, n))
    return parts


def _encode(v) -> bytes:
    """A result on the wire: b"N" None, b"B" bool, b"I" int, b"V" bytes."""
    if v is None:
        return b"N"
    if isinstance(v, bool):
        return b"B1" if v else b"B0"
    if isinstance(v, int):
        return b"I" + str(v).encode()
    return b"V" + v


def _decode(b: bytes):
    tag, body = b[:1], b[1:]
    return None if tag == b"N" else body == b"1" if tag == b"B" else int(body) if tag == b"I" else body


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        table, lock = self.server.table, self.server.lock
        while True:
            try:
                parts = _recv(self.request)
            except (ConnectionError, OSError, struct.error):
                return
            op, raw = parts[0].decode(), parts[1:]
            args = [a.decode() for a in raw] if op == "check" else [raw[0].decode(), *raw[1:]] if raw else []
            if op == "add":
                args[1] = int(args[1])
            try:
                with lock:
                    out = [b"ok", _encode(_apply(table, op, args))]
            except ValueError as e:
                out = [b"ValueError", str(e).encode()]
            _send(self.request, out)


class TCPStore(Store):
    """A store served by the process created with `is_master=True` at `host_name:port`, reached by the
    others over TCP (`port=0` on the master picks a free port: read `.port`).

    Raises:
        DistNetworkError: a client could not connect within `timeout`.
        DistStoreError: the master waited `timeout` for `world_size` stores to connect.
    """

    def __init__(self, host_name: str, port: int, world_size: int | None = None, is_master: bool = False,
                 timeout: datetime.timedelta = _DEFAULT_TIMEOUT, wait_for_workers: bool = True,
                 multi_tenant: bool = False, master_listen_fd: int | None = None, use_libuv: bool = True) -> None:
        super().__init__(timeout)
        self.host = host_name
        self.world_size = world_size
        self.libuvBackend = use_libuv
        self._server = None
        self._lock = threading.Lock()
        if is_master:
            self._server = _Server((host_name, port), _Handler)
            self._server.table, self._server.lock = {}, threading.Lock()
            threading.Thread(target=self._server.serve_forever, name="TCPStore", daemon=True).start()
            port = self._server.server_address[1]
        self.port = port
        self._sock = self._connect(host_name, port, timeout)
        if world_size is not None:
            self._op("add", "init/", 1)
            if is_master and wait_for_workers:
                deadline = time.monotonic() + timeout.total_seconds()
                while int(self._op("get", "init/")) < world_size:
                    if time.monotonic() >= deadline:
                        joined = int(self._op("get", "init/"))
                        raise DistStoreError(f"Timed out after {math.ceil(timeout.total_seconds())} seconds waiting "
                                             f"for clients. {joined}/{world_size} clients joined.")
                    time.sleep(0.01)

    @staticmethod
    def _connect(host: str, port: int, timeout: datetime.timedelta) -> socket.socket:
        deadline = time.monotonic() + timeout.total_seconds()
        while True:
            try:
                sock = socket.create_connection((host, port), timeout=max(0.05, deadline - time.monotonic()))
                sock.settimeout(None)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return sock
            except OSError:
                if time.monotonic() >= deadline:
                    ms = int(timeout.total_seconds() * 1000)
                    raise DistNetworkError(f"The client socket has timed out after {ms}ms while trying to connect "
                                           f"to ({host}, {port}).") from None
                time.sleep(0.01)

    def _op(self, op: str, *args) -> object:
        parts = [op.encode(), *(a if isinstance(a, bytes) else str(a).encode() for a in args)]
        with self._lock:
            _send(self._sock, parts)
            status, payload = _recv(self._sock)
        if status != b"ok":
            raise ValueError(payload.decode())
        return _decode(payload)

    def _missing(self, keys: list[str], timeout: datetime.timedelta) -> DistError:
        ms = int(timeout.total_seconds() * 1000)
        return DistStoreError(f"wait timeout after {ms}ms, keys: {', '.join('/' + k for k in keys)}")
