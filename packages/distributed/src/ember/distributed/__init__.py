"""ember.distributed: torch.distributed over MPI (process groups, collectives on tensors) and
DistributedDataParallel. Launch with `ember-run --nproc-per-node N script.py` or a cluster's mpirun/srun."""

__version__ = "0.1.2"

from ember.distributed.c10d import (DistBackendError, DistError, GroupMember, ProcessGroup, ReduceOp, Work,
                                    all_gather, all_gather_into_tensor, all_reduce, barrier, broadcast,
                                    destroy_process_group, gather, get_backend, get_rank, get_world_size, group,
                                    init_process_group, irecv, is_available, is_initialized, is_mpi_available,
                                    isend, new_group, recv, reduce, reduce_scatter_tensor, scatter, send)
from ember.distributed.ddp import DistributedDataParallel

__all__ = ["DistBackendError", "DistError", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather",
           "all_gather_into_tensor", "all_reduce", "barrier", "broadcast", "destroy_process_group", "gather",
           "get_backend", "get_rank", "get_world_size", "group", "init_process_group", "irecv", "is_available",
           "is_initialized", "is_mpi_available", "isend", "new_group", "recv", "reduce", "reduce_scatter_tensor",
           "scatter", "send", "DistributedDataParallel"]
