"""`DDPCommHookType`/`register_ddp_comm_hook`: each name registers PyTorch's hook and state on the model."""

import numpy as np
import pytest

import ember.core as E
from ember.distributed import comm_hooks, powersgd, quantization_hooks
from ember.distributed.comm_hook_types import DDPCommHookType, noop_hook, register_ddp_comm_hook


class _Model:
    def register_comm_hook(self, state, hook) -> None:
        self.state, self.hook = state, hook


@pytest.mark.parametrize(("name", "hook"), [("ALLREDUCE", comm_hooks.allreduce_hook),
                                            ("FP16_COMPRESS", comm_hooks.fp16_compress_hook),
                                            ("BF16_COMPRESS", comm_hooks.bf16_compress_hook),
                                            ("QUANTIZE_PER_TENSOR", quantization_hooks.quantization_pertensor_hook),
                                            ("QUANTIZE_PER_CHANNEL", quantization_hooks.quantization_perchannel_hook),
                                            ("NOOP", noop_hook)])
def test_plain_hooks_get_the_process_group_as_state(name, hook):
    m, group = _Model(), object()
    register_ddp_comm_hook(DDPCommHookType[name], m, group)
    assert m.hook is hook and m.state is group


@pytest.mark.parametrize(("name", "hook", "rank"), [("POWER_SGD", powersgd.powerSGD_hook, 1),
                                                    ("POWER_SGD_RANK2", powersgd.powerSGD_hook, 2),
                                                    ("BATCHED_POWER_SGD", powersgd.batched_powerSGD_hook, 1),
                                                    ("BATCHED_POWER_SGD_RANK2", powersgd.batched_powerSGD_hook, 2)])
def test_powersgd_hooks_wrap_the_group_in_a_state(name, hook, rank):
    m = _Model()
    DDPCommHookType[name].value(model=m, state=None)
    assert m.hook is hook and isinstance(m.state, powersgd.PowerSGDState)
    assert (m.state.matrix_approximation_rank, m.state.start_powerSGD_iter) == (rank, 1000)
    assert m.state.process_group is None


def test_noop_hook_returns_the_buffer_untouched():
    buf = E.arange(6.0)
    bucket = comm_hooks.GradBucket(0, buf, [E.zeros(2, 3)], [0], True)
    fut = noop_hook(None, bucket)
    assert fut.value() is buf
    np.testing.assert_array_equal(fut.value().numpy(), np.arange(6.0))


@pytest.mark.torch
def test_names_match_torch():
    torch_hooks = pytest.importorskip("torch.distributed.algorithms.ddp_comm_hooks")
    ours = {m.name for m in DDPCommHookType}
    theirs = {m.name for m in torch_hooks.DDPCommHookType}
    assert ours == theirs
