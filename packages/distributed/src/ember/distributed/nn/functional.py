"""`torch.distributed.nn.functional`: the collectives as differentiable functions, for losses computed across
ranks (a contrastive loss over every rank's embeddings gathers them with `all_gather` and sends each rank the
gradient of its own).

Each returns new tensors (its input is left alone) and records one node whose backward is the adjoint
collective: broadcast's is a sum-reduce to the source, gather's a scatter, all_gather's the sum over ranks of each
rank's slice (an all-to-all, then a sum), all_reduce's the same reduction of the gradients, all-to-all's the
reverse exchange. Every rank must run the backward, as every rank ran the forward.
"""

from __future__ import annotations

from ember.autograd import Function, empty_like, stack, zeros_like
from ember.distributed import c10d, exchange
from ember.distributed.c10d import ReduceOp

__all__ = ["all_gather", "all_reduce", "all_to_all", "all_to_all_single", "broadcast", "gather", "reduce",
           "reduce_scatter", "scatter"]


def _rank(group) -> int:
    return c10d.get_rank(group=group)


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group, ctx.rank = src, group, _rank(group)
        out = tensor.clone()
        c10d.broadcast(out, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        gx = _Reduce.apply(ctx.src, ReduceOp.SUM, ctx.group, grad_output)
        if ctx.src != ctx.rank:
            gx = zeros_like(gx)  # only the source's input reached every rank
        return None, None, gx


class _Gather(Function):
    @staticmethod
    def forward(ctx, dst, group, tensor):
        ctx.dst, ctx.group = dst, group
        outs = [zeros_like(tensor) for _ in range(c10d.get_world_size(group=group))]
        c10d.gather(tensor.contiguous(), outs if _rank(group) == dst else None, dst, group=group)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        return None, None, _Scatter.apply(ctx.dst, ctx.group, *grad_outputs)


class _Scatter(Function):
    @staticmethod
    def forward(ctx, src, group, *tensors):
        if not all(t.shape == tensors[0].shape for t in tensors):
            raise AssertionError
        ctx.src, ctx.group = src, group
        out = zeros_like(tensors[0])
        c10d.scatter(out, [t.contiguous() for t in tensors] if _rank(group) == src else None, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None, *_Gather.apply(ctx.src, ctx.group, grad_output))


class _Reduce(Function):
    @staticmethod
    def forward(ctx, dst, op, group, tensor):
        ctx.dst, ctx.group = dst, group
        out = tensor.clone()
        c10d.reduce(out, dst, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, None, _Broadcast.apply(ctx.dst, ctx.group, grad_output)


class _ReduceScatter(Function):
    @staticmethod
    def forward(ctx, op, group, output, *inputs):
        ctx.group = group
        output = output.contiguous()
        exchange.reduce_scatter(output, [t.contiguous() for t in inputs], op=op, group=group)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None, None, *_AllGather.apply(ctx.group, grad_output))


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        tensor = tensor.contiguous()
        outs = [empty_like(tensor) for _ in range(c10d.get_world_size(group=group))]
        c10d.all_gather(outs, tensor, group=group)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        # rank r's input went to slot r of every rank's result: its gradient is the sum of those slots
        parts = _AllToAll.apply(ctx.group, [empty_like(g) for g in grad_outputs], *grad_outputs)
        return None, stack(parts).sum(0)


class _AllToAll(Function):
    @staticmethod
    def forward(ctx, group, outputs, *inputs):
        ctx.group, ctx.input_shapes = group, [t.shape for t in inputs]
        exchange.all_to_all(outputs, [t.contiguous() for t in inputs], group=group)
        return tuple(outputs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        back = [grad_outputs[0].new_empty(s) for s in ctx.input_shapes]
        return (None, None, *_AllToAll.apply(ctx.group, back, *grad_outputs))


class _AllToAllSingle(Function):
    @staticmethod
    def forward(ctx, group, output, output_split_sizes, input_split_sizes, input):
        ctx.group, ctx.input_shape = group, input.shape
        ctx.output_split_sizes, ctx.input_split_sizes = input_split_sizes, output_split_sizes
        exchange.all_to_all_single(output, input.contiguous(), output_split_sizes, input_split_sizes, group=group)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        back = grad_output.new_empty(ctx.input_shape)
        return (None, None, None, None, _AllToAllSingle.apply(ctx.group, back, ctx.output_split_sizes,
                                                              ctx.input_split_sizes, grad_output.contiguous()))


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.op, ctx.group = op, group
        out = tensor.clone()
        c10d.all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, _AllReduce.apply(ctx.op, ctx.group, grad_output)


def broadcast(tensor, src, group=None):
    """`tensor` of rank `src` on every rank (a new tensor); the gradient sums back to `src`'s input."""
    return _Broadcast.apply(src, group, tensor)


def gather(tensor, dst=0, group=None):
    """Every rank's `tensor`, as a tuple in rank order, on rank `dst` (zeros elsewhere)."""
    return _Gather.apply(dst, group, tensor)


def scatter(tensors, src=0, group=None):
    """Rank r's part `tensors[r]` of the source's list (every rank passes a list of the same shapes)."""
    return _Scatter.apply(src, group, *tensors)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None):
    """The reduction of every rank's `tensor` on rank `dst` (a new tensor; other ranks get a copy of theirs)."""
    return _Reduce.apply(dst, op, group, tensor)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None):
    """Rank r's `output`: the reduction over ranks of their `input_list[r]`."""
    return _ReduceScatter.apply(op, group, output, *input_list)


def all_gather(tensor, group=None):
    """Every rank's `tensor`, as a tuple in rank order, on every rank."""
    return _AllGather.apply(group, tensor)


def all_to_all(output_tensor_list, input_tensor_list, group=None):
    """Rank r's `input_tensor_list[k]` lands in rank k's `output_tensor_list[r]`; returns the outputs."""
    return _AllToAll.apply(group, output_tensor_list, *input_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None):
    """`all_to_all` of one tensor split along its first dimension; returns `output`."""
    return _AllToAllSingle.apply(group, output, output_split_sizes, input_split_sizes, input)


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """The reduction of every rank's `tensor`, on every rank (a new tensor)."""
    return _AllReduce.apply(op, group, tensor)
