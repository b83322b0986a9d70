"""`torch.distributed.algorithms.ddp_comm_hooks`: the hooks `DistributedDataParallel.register_comm_hook`
takes (`default_hooks`, `powerSGD_hook`, `quantization_hooks`, `debugging_hooks`), and
`DDPCommHookType`/`register_ddp_comm_hook` naming them; needs ember-distributed."""

from ember.distributed.comm_hook_types import DDPCommHookType, register_ddp_comm_hook
from ember.torch.distributed.algorithms.ddp_comm_hooks import (debugging_hooks, default_hooks, powerSGD_hook,
                                                            quantization_hooks)

__all__ = ["DDPCommHookType", "register_ddp_comm_hook", "debugging_hooks", "default_hooks", "powerSGD_hook",
           "quantization_hooks"]
