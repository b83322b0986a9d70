"""ember.distributed: torch.distributed over MPI (process groups, collectives on tensors) and
DistributedDataParallel. Launch with `ember-run --nproc-per-node N script.py` or a cluster's mpirun/srun."""

__version__ = "0.1.2"

from ember.distributed.c10d import (Backend, DistBackendError, DistError, GroupMember, ProcessGroup, ReduceOp, Work,
                                    all_gather, all_gather_into_tensor, all_gather_single, all_reduce, barrier,
                                    broadcast, default_pg_timeout, destroy_process_group, gather, get_backend,
                                    get_default_backend_for_device, get_node_local_rank, get_pg_count, get_rank,
                                    get_world_size, group, init_process_group, irecv, is_available,
                                    is_backend_available, is_gloo_available, is_initialized, is_mpi_available,
                                    is_nccl_available, is_torchelastic_launched, is_ucc_available, is_xccl_available,
                                    isend, new_group, recv, reduce, reduce_scatter_single, reduce_scatter_tensor,
                                    scatter, send, supports_complex)
from ember.distributed.coalesced import all_gather_coalesced, all_reduce_coalesced
from ember.distributed.comm_hooks import GradBucket
from ember.distributed.device_mesh import DeviceMesh, init_device_mesh
from ember.distributed.debug import DebugLevel, get_debug_level, set_debug_level, set_debug_level_from_env
from ember.distributed.stores import (DistNetworkError, DistStoreError, FileStore, HashStore, PrefixStore, Store,
                                      TCPStore)
from ember.distributed.subgroups import new_subgroups, new_subgroups_by_enumeration
from ember.data.distributed import register_group_query
from ember.distributed.ddp import DistributedDataParallel
from ember.distributed.exchange import (P2POp, all_to_all, all_to_all_single, batch_isend_irecv, get_global_rank,
                                        get_group_rank, get_process_group_ranks, monitored_barrier, reduce_scatter)
from ember.distributed.objects import (all_gather_object, broadcast_object_list, gather_object, recv_object_list,
                                       scatter_object_list, send_object_list)

__all__ = ["Backend", "DistBackendError", "DistError", "GroupMember", "ProcessGroup", "ReduceOp", "Work",
           "all_gather", "all_gather_into_tensor", "all_gather_single", "all_reduce", "barrier", "broadcast",
           "destroy_process_group", "gather", "get_backend", "get_node_local_rank", "get_rank", "get_world_size",
           "group", "init_process_group", "irecv", "is_available", "is_backend_available", "is_gloo_available",
           "is_initialized", "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "isend",
           "new_group", "recv", "reduce", "reduce_scatter_single", "reduce_scatter_tensor", "scatter", "send",
           "DistributedDataParallel", "P2POp", "all_to_all", "all_to_all_single", "batch_isend_irecv",
           "get_global_rank", "get_group_rank", "get_process_group_ranks", "monitored_barrier", "reduce_scatter",
           "all_gather_object", "broadcast_object_list", "gather_object", "recv_object_list", "scatter_object_list",
           "send_object_list", "default_pg_timeout", "get_default_backend_for_device", "get_pg_count",
           "is_ucc_available", "is_xccl_available", "supports_complex", "all_gather_coalesced",
           "all_reduce_coalesced", "GradBucket", "DebugLevel", "get_debug_level", "set_debug_level",
           "set_debug_level_from_env", "DistNetworkError", "DistStoreError", "FileStore", "HashStore", "PrefixStore",
           "Store", "TCPStore", "new_subgroups", "new_subgroups_by_enumeration", "DeviceMesh", "init_device_mesh"]

register_group_query(lambda: (get_world_size(), get_rank()) if is_initialized() else None)
