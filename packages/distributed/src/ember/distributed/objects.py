"""Collectives on picklable Python objects (torch.distributed's `*_object*` functions).

Each object is pickled into a byte tensor; the sizes travel first, then the bytes, through the
tensor collectives of c10d, so these calls keep the group timeout. As in PyTorch, the bytes are
unpickled: use them only among the processes of one job, which trust each other.
"""

from __future__ import annotations

import pickle

import numpy as np

from ember.core.tensor import Tensor
from ember.distributed import c10d

__all__ = ["broadcast_object_list", "all_gather_object", "gather_object", "scatter_object_list",
           "send_object_list", "recv_object_list"]


def _pack(obj) -> np.ndarray:
    return np.frombuffer(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), np.uint8)


def _unpack(buf: np.ndarray):
    return pickle.loads(buf.tobytes())


def _t(a: np.ndarray) -> Tensor:
    return Tensor._wrap(a)


def broadcast_object_list(object_list: list, src: int | None = None, group: c10d.ProcessGroup | None = None,
                          device=None, group_src: int | None = None) -> None:
    """Replace, on every rank, the entries of `object_list` with rank `src`'s (same length everywhere)."""
    pg = c10d._pg(group)
    if not c10d._check_member(pg):
        return
    root = group_src if group_src is not None else c10d._to_group_rank(pg, 0 if src is None else src,
                                                                       "broadcast_object_list")
    mine = pg.rank() == root
    packed = [_pack(o) for o in object_list] if mine else []
    sizes = np.array([p.size for p in packed] if mine else [0] * len(object_list), np.int64)
    c10d.broadcast(_t(sizes), group=pg, group_src=root)
    data = np.concatenate(packed) if mine and packed else np.empty(int(sizes.sum()), np.uint8)
    c10d.broadcast(_t(data), group=pg, group_src=root)
    if not mine:
        off = 0
        for k, n in enumerate(sizes):
            object_list[k] = _unpack(data[off:off + n])
            off += int(n)


def _gather_bytes(pg: c10d.ProcessGroup, obj, root: int | None) -> list[np.ndarray] | None:
    """Every rank's pickled `obj` on every rank (`root` None) or on group rank `root` only."""
    mine = _pack(obj)
    n = pg.size()
    sizes = np.zeros(n, np.int64)
    c10d.all_gather_single(_t(sizes), _t(np.array([mine.size], np.int64)), group=pg)
    width = int(sizes.max())
    padded = np.zeros(width, np.uint8)
    padded[:mine.size] = mine
    if root is None:
        out = np.empty(n * width, np.uint8)
        c10d.all_gather_single(_t(out), _t(padded), group=pg)
    else:
        out = np.empty(n * width if pg.rank() == root else 0, np.uint8)
        bufs = [_t(out[k * width:(k + 1) * width]) for k in range(n)] if pg.rank() == root else None
        c10d.gather(_t(padded), bufs, dst=pg.ranks[root], group=pg)
        if pg.rank() != root:
            return None
    return [out[k * width:k * width + int(sizes[k])] for k in range(n)]


def all_gather_object(object_list: list, obj, group: c10d.ProcessGroup | None = None) -> None:
    """Fill `object_list[r]` with rank r's `obj`, on every rank."""
    pg = c10d._pg(group)
    if not c10d._check_member(pg):
        return
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list must have world_size ({pg.size()}) entries; got "
                         f"{len(object_list)}")
    for k, b in enumerate(_gather_bytes(pg, obj, None)):
        object_list[k] = _unpack(b)


def gather_object(obj, object_gather_list: list | None = None, dst: int | None = None,
                  group: c10d.ProcessGroup | None = None, group_dst: int | None = None) -> None:
    """Collect every rank's `obj` into `object_gather_list` on rank `dst` (None elsewhere)."""
    pg = c10d._pg(group)
    if not c10d._check_member(pg):
        return
    root = group_dst if group_dst is not None else c10d._to_group_rank(pg, 0 if dst is None else dst,
                                                                       "gather_object")
    if pg.rank() == root:
        if object_gather_list is None or len(object_gather_list) != pg.size():
            raise ValueError(f"gather_object: object_gather_list on the destination must have world_size "
                             f"({pg.size()}) entries")
    elif object_gather_list is not None:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    got = _gather_bytes(pg, obj, root)
    if got is not None:
        for k, b in enumerate(got):
            object_gather_list[k] = _unpack(b)


def scatter_object_list(scatter_object_output_list: list, scatter_object_input_list: list | None = None,
                        src: int | None = None, group: c10d.ProcessGroup | None = None,
                        group_src: int | None = None) -> None:
    """Give rank r `scatter_object_input_list[r]` of rank `src`, in `scatter_object_output_list[0]`."""
    pg = c10d._pg(group)
    if not c10d._check_member(pg):
        return
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    root = group_src if group_src is not None else c10d._to_group_rank(pg, 0 if src is None else src,
                                                                       "scatter_object_list")
    n = pg.size()
    mine = pg.rank() == root
    if mine and (scatter_object_input_list is None or len(scatter_object_input_list) != n):
        raise ValueError(f"scatter_object_list: scatter_object_input_list on the source must have world_size ({n}) "
                         "entries")
    packed = [_pack(o) for o in scatter_object_input_list] if mine else []
    width = np.array([max((p.size for p in packed), default=0)], np.int64)
    c10d.broadcast(_t(width), group=pg, group_src=root)
    w = int(width[0])
    size = np.zeros(1, np.int64)
    c10d.scatter(_t(size), [_t(np.array([p.size], np.int64)) for p in packed] if mine else None,
                 src=pg.ranks[root], group=pg)
    buf = np.zeros(w, np.uint8)
    rows = None
    if mine:
        rows = []
        for p in packed:
            r = np.zeros(w, np.uint8)
            r[:p.size] = p
            rows.append(_t(r))
    c10d.scatter(_t(buf), rows, src=pg.ranks[root], group=pg)
    scatter_object_output_list[0] = _unpack(buf[:int(size[0])])


def send_object_list(object_list: list, dst: int | None = None, group: c10d.ProcessGroup | None = None,
                     device=None, group_dst: int | None = None) -> None:
    """Send the objects of `object_list` to rank `dst` (which calls `recv_object_list`)."""
    pg = c10d._pg(group)
    peer = pg.ranks[group_dst] if group_dst is not None else dst
    if peer is None:
        raise ValueError("send_object_list: give `dst` or `group_dst`")
    packed = [_pack(o) for o in object_list]
    c10d.send(_t(np.array([p.size for p in packed], np.int64)), peer, group=group)
    c10d.send(_t(np.concatenate(packed) if packed else np.empty(0, np.uint8)), peer, group=group)


def recv_object_list(object_list: list, src: int | None = None, group: c10d.ProcessGroup | None = None,
                     device=None, group_src: int | None = None) -> int:
    """Receive as many objects as `object_list` holds from rank `src` (any when None) into it;
    returns the sender's global rank."""
    pg = c10d._pg(group)
    peer = pg.ranks[group_src] if group_src is not None else src
    sizes = np.zeros(len(object_list), np.int64)
    sender = c10d.recv(_t(sizes), peer, group=group)
    data = np.empty(int(sizes.sum()), np.uint8)
    c10d.recv(_t(data), sender, group=group)
    off = 0
    for k, n in enumerate(sizes):
        object_list[k] = _unpack(data[off:off + n])
        off += int(n)
    return sender
