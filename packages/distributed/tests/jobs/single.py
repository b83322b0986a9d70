"""Without a launcher: a group of one. Collectives are identities; a receive nobody sends times out."""

import datetime
import time

import numpy as np

import ember.autograd as torch
import ember.distributed as dist

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=0.5))
assert (dist.get_rank(), dist.get_world_size()) == (0, 1)
t = torch.tensor([1.0, 2.0])
dist.all_reduce(t, op=dist.ReduceOp.AVG)
np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
w = dist.irecv(torch.zeros(2), src=0, tag=7)
t0 = time.monotonic()
try:
    w.wait()
except dist.DistBackendError as e:
    assert isinstance(e, RuntimeError)
    assert "rank 0: recv from rank 0 timed out after 0.5s" in str(e), e
    assert time.monotonic() - t0 < 5
    print("OK timeout", flush=True)
try:
    dist.init_process_group("mpi")
except ValueError as e:
    assert "twice" in str(e)
    print("OK twice", flush=True)
