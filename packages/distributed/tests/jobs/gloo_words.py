"""A gloo group of one: the bitwise reductions, and the errors worded as PyTorch's gloo backend and checks."""

import numpy as np
import pytest

import ember.autograd as torch
import ember.distributed as dist

dist.init_process_group("gloo")
for op, dtype in [(dist.ReduceOp.BAND, torch.int64), (dist.ReduceOp.BOR, torch.uint8),
                  (dist.ReduceOp.BXOR, torch.bool)]:
    t = torch.tensor([1, 0, 1], dtype=dtype)
    dist.all_reduce(t, op=op)
    np.testing.assert_array_equal(t.numpy(), np.array([1, 0, 1]).astype(dtype.np))
assert repr(dist.ReduceOp.BXOR) == "<RedOpType.BXOR: 7>" and not dist.supports_complex(dist.ReduceOp.BAND)
cases = [
    (lambda: dist.all_reduce(torch.ones(2), op=dist.ReduceOp.BAND), RuntimeError,
     "Cannot use ReduceOp.BAND with non-integral dtype"),
    (lambda: dist.reduce(torch.ones(2, dtype=torch.complex64), op=dist.ReduceOp.BOR), ValueError,
     "reduce does not support RedOpType.BOR on complex tensors"),
    (lambda: dist.all_gather([torch.zeros(3)], torch.ones(2)), RuntimeError,
     "ProcessGroupGloo::allgather: invalid tensor size at index 0 (expected (2), got (3))"),
    (lambda: dist.all_gather([torch.zeros(2, 1)], torch.ones(2)), RuntimeError,
     "ProcessGroupGloo::allgather: invalid tensor size at index 0 (expected (2), got (2, 1))"),
    (lambda: dist.all_gather([torch.zeros(2), torch.zeros(2)], torch.ones(2)), RuntimeError,
     "ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected length 1, got 2)"),
    (lambda: dist.all_gather([torch.zeros(2, dtype=torch.int64)], torch.ones(2)), ValueError,
     "Invalid usage of tensors with different dtypesFound torch.int64 and  torch.float32"),
    (lambda: dist.broadcast(torch.ones(2), src=3), RuntimeError, "ProcessGroupGloo::broadcast: invalid root rank: 3"),
    (lambda: dist.reduce(torch.ones(2), dst=-1), RuntimeError, "ProcessGroupGloo::reduce: invalid root rank: -1"),
    (lambda: dist.init_process_group("gloo"), ValueError, "trying to initialize the default process group twice!"),
    (lambda: dist.gather(torch.ones(2), [torch.zeros(2), torch.zeros(2)]), RuntimeError,
     "ProcessGroupGloo::gather: Incorrect output list size 2. Output list size should be 1, same as size of the "
     "process group."),
    (lambda: dist.gather(torch.ones(2), None), ValueError, "Argument ``gather_list`` must be specified on destination "
     "rank."),
    (lambda: dist.scatter(torch.zeros(2), [torch.ones(3)]), RuntimeError,
     "ProcessGroupGloo::scatter: invalid tensor size at index 0 (expected (2), got (3))"),
    (lambda: dist.scatter(torch.zeros(2), [torch.ones(2, dtype=torch.int64)]), ValueError,
     "Invalid usage of tensors with different dtypesFound torch.float32 and  torch.int64"),
    (lambda: dist.all_gather_single(torch.empty(3), torch.ones(2)), RuntimeError,
     "ProcessGroupGloo::allgather: invalid tensor size at index 0 (expected (2), got (3))"),
    (lambda: dist.all_gather_single(torch.empty(1, 2), torch.ones(2)), RuntimeError,
     "ProcessGroupGloo::allgather: invalid tensor size at index 0 (expected (2), got (1, 2))"),
    (lambda: dist.all_gather_single(torch.empty(2, dtype=torch.int64), torch.ones(2)), RuntimeError,
     "ProcessGroupGloo::allgather: invalid tensor type at index 0 (expected TensorOptions(dtype=float, device=cpu, "
     "layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)), got "
     "TensorOptions(dtype=long int, device=cpu, layout=Strided, requires_grad=false (default), pinned_memory=false "
     "(default), memory_format=(nullopt)))"),
    (lambda: dist.reduce_scatter_single(torch.empty(3), torch.ones(2)), RuntimeError,
     "Check failed: outputShape[0] * worldSize == inputShape[0] (3 vs. 2). "),
    (lambda: dist.reduce_scatter_single(torch.empty(2, dtype=torch.float64), torch.ones(2)), RuntimeError,
     "Check failed: outputTensors[i].dtype() == inputTensors[i].dtype() (double vs. float). "),
    (lambda: dist.reduce_scatter(torch.empty(2), [torch.ones(2), torch.ones(2)]), RuntimeError,
     "invalid input tensor list size, must be world size"),
    (lambda: dist.reduce_scatter(torch.empty(2), [torch.ones(2, dtype=torch.float64)]), ValueError,
     "Invalid usage of tensors with different dtypesFound torch.float32 and  torch.float64"),
    (lambda: dist.send(torch.ones(2), dst=0), ValueError,
     "Invalid destination rank: destination rank should not be the same as the rank of the current process."),
]
for call, kind, words in cases:
    with pytest.raises(kind) as info:
        call()
    assert str(info.value).replace("ember.", "torch.") == words, (str(info.value), words)
sub = dist.new_group([0])
group_words = r"<torch\.distributed\.distributed_c10d\.ProcessGroup object at 0x[0-9a-f]+>$"
for call, words in ((lambda: dist.broadcast(torch.ones(2), src=3, group=sub), "^Global rank 3 is not part of group "),
                    (lambda: dist.get_group_rank(sub, 2), "^Global rank 2 is not part of group "),
                    (lambda: dist.get_global_rank(sub, 1), "^Group rank 1 is not part of group ")):
    with pytest.raises(ValueError, match=words + group_words):
        call()
print("OK gloo words", flush=True)
