"""All-to-all exchanges, list-form reduce-scatter, batched point-to-point and group-rank helpers,
with torch.distributed's names. Each is one nonblocking MPI call on the group's communicator, so it
keeps the timeout and abort behaviour of NOTE [ Collectives, buffers and deadlines ] in c10d."""

from __future__ import annotations

import datetime
from collections.abc import Sequence

import numpy as np

from ember.core.tensor import Tensor, describe
from ember.distributed import c10d

__all__ = ["all_to_all_single", "all_to_all", "reduce_scatter", "P2POp", "batch_isend_irecv", "get_global_rank",
           "get_group_rank", "get_process_group_ranks", "monitored_barrier"]


def _splits(sizes, total: int, n: int, what: str, name: str) -> list[int]:
    """Rows per rank along dim 0: `sizes` as given (checked), else `total` split evenly."""
    if sizes is None or len(sizes) == 0:
        if total % n:
            raise ValueError(f"{what}: dim 0 of the {name} ({total}) must be divisible by the world size ({n}) "
                             f"when no {name}_split_sizes are given")
        return [total // n] * n
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or any(s < 0 for s in sizes):
        raise ValueError(f"{what}: {name}_split_sizes must have world_size ({n}) non-negative entries; got {sizes}")
    if sum(sizes) != total:
        raise ValueError(f"{what}: {name}_split_sizes sum to {sum(sizes)} but dim 0 of the {name} has {total} rows")
    return sizes


def _offsets(counts: list[int]) -> list[int]:
    """Where each rank's bytes start in a packed buffer."""
    return [int(x) for x in np.cumsum([0] + counts[:-1])]


def all_to_all_single(output: Tensor, input: Tensor, output_split_sizes: Sequence[int] | None = None,
                      input_split_sizes: Sequence[int] | None = None, group: c10d.ProcessGroup | None = None,
                      async_op: bool = False) -> c10d.Work | None:
    """Split `input` along dim 0 into one chunk per rank, send chunk r to rank r, and concatenate
    the chunks received (in rank order) into `output`. Split sizes count rows of dim 0; without
    them both tensors split evenly.

    Example (on 2 ranks, rank r holds `[2r, 2r + 1]`): `all_to_all_single(out, inp)` leaves
    `out == [r, 2 + r]`.
    """
    pg = c10d._pg(group)
    if not c10d._check_member(pg):
        return None
    n = pg.size()
    if not isinstance(output, Tensor) or not isinstance(input, Tensor):
        raise TypeError(f"all_to_all_single: expected tensors; got {describe(output)} and {describe(input)}")
    if output.dtype != input.dtype:
        raise ValueError(f"all_to_all_single: output and input must have one dtype; got {output.dtype} and "
                         f"{input.dtype}")
    if output.dim() == 0 or input.dim() == 0:
        raise ValueError("all_to_all_single: tensors must have at least one dimension")
    if tuple(output.shape[1:]) != tuple(input.shape[1:]):
        raise ValueError(f"all_to_all_single: output and input must agree past dim 0; got {tuple(output.shape)} "
                         f"and {tuple(input.shape)}")
    send_rows = _splits(input_split_sizes, input.shape[0], n, "all_to_all_single", "input")
    recv_rows = _splits(output_split_sizes, output.shape[0], n, "all_to_all_single", "output")
    o = c10d._Buf(output, write=True)
    i = c10d._Buf(input, write=False)
    row = int(np.prod(input.shape[1:], dtype=np.int64)) * input.element_size()  # bytes per row of dim 0
    send_counts = [r * row for r in send_rows]
    recv_counts = [r * row for r in recv_rows]
    send = [i.arr.reshape(-1).view(np.uint8), (send_counts, _offsets(send_counts)),
            c10d._mpi().BYTE]
    recv = [o.arr.reshape(-1).view(np.uint8), (recv_counts, _offsets(recv_counts)),
            c10d._mpi().BYTE]
    req = pg._comm.Ialltoallv(send, recv)
    return c10d._issue(pg, [req], [o, i], async_op, "all_to_all_single")


def all_to_all(output_tensor_list: list[Tensor], input_tensor_list: list[Tensor],
               group: c10d.ProcessGroup | None = None, async_op: bool = False) -> c10d.Work | None:
    """Send `input_tensor_list[r]` to rank r and receive rank r's tensor for this rank into
    `output_tensor_list[r]`; tensors may differ in shape between ranks but share one dtype."""
    pg = c10d._pg(group)
    if not c10d._check_member(pg):
        return None
    n = pg.size()
    if len(output_tensor_list) != n or len(input_tensor_list) != n:
        raise ValueError(f"all_to_all: both lists must have world_size ({n}) tensors; got {len(output_tensor_list)} "
                         f"and {len(input_tensor_list)}")
    dtypes = {t.dtype for t in list(output_tensor_list) + list(input_tensor_list)}
    if len(dtypes) != 1:
        raise ValueError(f"all_to_all: every tensor must have one dtype; got {sorted(map(str, dtypes))}")
    ins = [np.ascontiguousarray(t.detach().cpu()._np()).reshape(-1).view(np.uint8) for t in input_tensor_list]
    send_counts = [a.size for a in ins]
    send = np.concatenate(ins) if ins else np.empty(0, np.uint8)
    recv_counts = [t.numel() * t.element_size() for t in output_tensor_list]
    recv = np.empty(sum(recv_counts), np.uint8)
    displ = _offsets(recv_counts)
    req = pg._comm.Ialltoallv([send, (send_counts, _offsets(send_counts)), c10d._mpi().BYTE],
                              [recv, (recv_counts, displ), c10d._mpi().BYTE])

    def scatter_out() -> None:
        for t, off, cnt in zip(output_tensor_list, displ, recv_counts):
            c10d._write(t, recv[off:off + cnt].view(t.dtype.np).reshape(tuple(t.shape)))

    w = c10d._issue(pg, [req], [], True, "all_to_all", scatter_out)
    w._keep = send  # MPI reads it until the request completes
    return w if async_op else w.wait() and None


def reduce_scatter(output: Tensor, input_list: list[Tensor], op: c10d.ReduceOp = c10d.ReduceOp.SUM,
                   group: c10d.ProcessGroup | None = None, async_op: bool = False) -> c10d.Work | None:
    """Reduce `input_list[r]` across the ranks with `op` and write it into rank r's `output`."""
    pg = c10d._pg(group)
    if not c10d._check_member(pg):
        return None
    n = pg.size()
    c10d._same_dtype([output, *input_list])
    if len(input_list) != n:
        if c10d._gloo(pg):
            raise RuntimeError("invalid input tensor list size, must be world size")
        raise ValueError(f"reduce_scatter: input_list must have world_size ({n}) tensors; got {len(input_list)}")
    for t in input_list:
        c10d._same_shape(t, output, "reduce_scatter")
    flat = Tensor._wrap(np.stack([np.ascontiguousarray(t.detach().cpu()._np()) for t in input_list]))
    return c10d.reduce_scatter_single(output, flat, op, group, async_op)


class P2POp:
    """One send or receive of `batch_isend_irecv`: `P2POp(dist.isend, tensor, peer)`."""

    def __init__(self, op, tensor: Tensor, peer: int | None = None, group: c10d.ProcessGroup | None = None,
                 tag: int = 0, group_peer: int | None = None) -> None:
        if op not in (c10d.isend, c10d.irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        if peer is None and group_peer is None:
            raise ValueError("P2POp: give `peer` (a global rank) or `group_peer`")
        self.op = op
        self.tensor = tensor
        self.group = group
        self.peer = peer if peer is not None else c10d._pg(group).ranks[group_peer]
        self.tag = tag


def batch_isend_irecv(p2p_op_list: list[P2POp]) -> list[c10d.Work]:
    """Start every send and receive of the list at once; returns their Work handles (wait on all)."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    works = []
    for p in p2p_op_list:
        w = p.op(p.tensor, p.peer, p.group, p.tag)
        if w is not None:
            works.append(w)
    return works


def get_process_group_ranks(group: c10d.ProcessGroup | None) -> list[int]:
    """The global ranks of `group`, in group-rank order."""
    return list(c10d._pg(group).ranks)


def get_global_rank(group: c10d.ProcessGroup | None, group_rank: int) -> int:
    """The global rank of `group`'s member `group_rank`."""
    pg = c10d._pg(group)
    ranks = pg.ranks
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {c10d._as_pytorch_prints(pg)}")
    return ranks[group_rank]


def get_group_rank(group: c10d.ProcessGroup | None, global_rank: int) -> int:
    """The rank inside `group` of the process with `global_rank`."""
    pg = c10d._pg(group)
    ranks = pg.ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {c10d._as_pytorch_prints(pg)}")
    return ranks.index(global_rank)


def monitored_barrier(group: c10d.ProcessGroup | None = None, timeout: datetime.timedelta | None = None,
                      wait_all_ranks: bool = False) -> None:
    """A barrier that raises `DistBackendError` naming the group when a rank fails to reach it
    within `timeout` (the group's timeout when None)."""
    pg = c10d._pg(group)
    if not c10d._check_member(pg):
        return
    w = c10d.Work([pg._comm.Ibarrier()], None, pg, "monitored_barrier")
    w.wait(timeout)
