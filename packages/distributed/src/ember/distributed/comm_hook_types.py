"""`DDPCommHookType` and `register_ddp_comm_hook` (`torch.distributed.algorithms.ddp_comm_hooks`): the
built-in communication hooks by name, each registered on a DDP model with a process group as its state."""

from __future__ import annotations

from enum import Enum, member
from functools import partial

from ember.core.futures import Future
from ember.distributed import comm_hooks as default
from ember.distributed import powersgd, quantization_hooks

__all__ = ["DDPCommHookType", "register_ddp_comm_hook", "noop_hook"]


def noop_hook(_state, bucket: default.GradBucket) -> Future:
    """The bucket's buffer as it is, nothing communicated (`debugging_hooks.noop_hook`: for timing DDP
    without its all-reduce)."""
    fut = Future()
    fut.set_result(bucket.buffer())
    return fut


def _ddp_comm_hook_wrapper(comm_hook, model, state) -> None:
    model.register_comm_hook(state, comm_hook)


def _powerSGD_comm_hook_wrapper(comm_hook, model, state, matrix_approximation_rank: int,  # noqa: N802
                                start_powerSGD_iter: int = 1_000) -> None:  # noqa: N803 - PyTorch's names
    """PowerSGD with `state` (a process group or None) wrapped in a `PowerSGDState`, as PyTorch's wrapper."""
    powersgd_state = powersgd.PowerSGDState(process_group=state, matrix_approximation_rank=matrix_approximation_rank,
                                            start_powerSGD_iter=start_powerSGD_iter)
    model.register_comm_hook(powersgd_state, comm_hook)


class DDPCommHookType(Enum):
    """The built-in hooks by name; `DDPCommHookType.ALLREDUCE.value(model=model, state=process_group)` registers
    one."""

    ALLREDUCE = member(partial(_ddp_comm_hook_wrapper, comm_hook=default.allreduce_hook))
    FP16_COMPRESS = member(partial(_ddp_comm_hook_wrapper, comm_hook=default.fp16_compress_hook))
    BF16_COMPRESS = member(partial(_ddp_comm_hook_wrapper, comm_hook=default.bf16_compress_hook))
    QUANTIZE_PER_TENSOR = member(partial(_ddp_comm_hook_wrapper,
                                         comm_hook=quantization_hooks.quantization_pertensor_hook))
    QUANTIZE_PER_CHANNEL = member(partial(_ddp_comm_hook_wrapper,
                                          comm_hook=quantization_hooks.quantization_perchannel_hook))
    POWER_SGD = member(partial(_powerSGD_comm_hook_wrapper, comm_hook=powersgd.powerSGD_hook,
                               matrix_approximation_rank=1))
    POWER_SGD_RANK2 = member(partial(_powerSGD_comm_hook_wrapper, comm_hook=powersgd.powerSGD_hook,
                                     matrix_approximation_rank=2))
    BATCHED_POWER_SGD = member(partial(_powerSGD_comm_hook_wrapper, comm_hook=powersgd.batched_powerSGD_hook,
                                       matrix_approximation_rank=1))
    BATCHED_POWER_SGD_RANK2 = member(partial(_powerSGD_comm_hook_wrapper, comm_hook=powersgd.batched_powerSGD_hook,
                                             matrix_approximation_rank=2))
    NOOP = member(partial(_ddp_comm_hook_wrapper, comm_hook=noop_hook))


def register_ddp_comm_hook(comm_hook_type: DDPCommHookType, model, state=None) -> None:
    """Register the hook `comm_hook_type` names on the DDP `model`; `state` is the process group (None: the
    default one)."""
    comm_hook_type.value(model=model, state=state)
