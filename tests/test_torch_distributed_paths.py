"""torch.distributed's submodules and torch.futures resolve to ember-distributed and ember-core."""

import pytest


def test_comm_hooks_and_futures_under_pytorchs_paths():
    pytest.importorskip("mpi4py")
    import ember.torch as torch
    from ember.core.futures import Future
    from ember.distributed import comm_hooks
    from ember.torch.distributed.algorithms.ddp_comm_hooks import default_hooks

    assert default_hooks.allreduce_hook is comm_hooks.allreduce_hook
    assert default_hooks.fp16_compress_hook is comm_hooks.fp16_compress_hook
    assert torch.futures.Future is Future
    assert torch.distributed.all_to_all_single.__module__ == "ember.distributed.exchange"
    f = torch.futures.Future()
    f.set_result(torch.ones(2))
    assert f.then(lambda fut: fut.value() * 3).wait().tolist() == [3.0, 3.0]
