"""PyTorch's backend names on an MPI job: "gloo", "nccl" and device maps run over MPI and are reported back;
a world size the launcher did not start names the way to launch."""

import os
import sys

import numpy as np

import ember.autograd as torch
import ember.distributed as dist

name = sys.argv[1]
dist.init_process_group(name, rank=int(os.environ.get("OMPI_COMM_WORLD_RANK", 0)))
rank, world = dist.get_rank(), dist.get_world_size()
assert dist.get_backend() == name.lower(), dist.get_backend()
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t)
np.testing.assert_array_equal(t.numpy(), [world * (world + 1) / 2])
sub = dist.new_group(backend="gloo")
assert dist.get_backend(sub) == "gloo" and dist.get_backend() == name.lower()
dist.destroy_process_group()
print(f"rank {rank} OK {name}", flush=True)
