"""`torch.multiprocessing`: Python's `multiprocessing`, with tensors crossing queues, pipes and process
arguments through shared memory instead of being pickled as bytes (paper section 5.4).

Everything of `multiprocessing` is here (`Process`, `Queue`, `SimpleQueue`, `Pipe`, `get_context`,
`set_start_method` ...); importing this module registers ember.core.multiprocessing's reducer
(NOTE [ Tensors through multiprocessing ]). A tensor sent through a queue is moved into shared
memory in place, so sender and receiver see one buffer: Hogwild training shares a model with
`model.share_memory()` and lets each process update it without locks. `spawn` runs a function in
several processes and re-raises the first failure with the child's traceback.
"""

import multiprocessing as _mp
from multiprocessing import *  # noqa: F403

from ember.core.multiprocessing import (
    get_all_sharing_strategies, get_sharing_strategy, init_reductions, set_sharing_strategy,
)
from ember.torch.multiprocessing.spawn import (
    ProcessContext, ProcessExitedException, ProcessRaisedException, spawn, start_processes,
)

__all__ = [*_mp.__all__, "get_all_sharing_strategies", "get_sharing_strategy", "set_sharing_strategy", "spawn",
           "start_processes", "ProcessContext", "ProcessRaisedException", "ProcessExitedException"]

init_reductions()
