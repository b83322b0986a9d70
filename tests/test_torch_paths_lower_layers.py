"""Names the lower layers define, reached under PyTorch's paths in ember.torch (the per-package sessions do not
install ember.torch, so these live with the cross-layer tests)."""

import warnings


def test_reachable_from_torch_cuda():
    import ember.torch as torch

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("get_rng_state", "set_rng_state", "get_rng_state_all", "set_rng_state_all", "default_generators",
                     "StreamContext", "ExternalStream", "device_of", "get_arch_list", "get_gencode_flags", "seed",
                     "seed_all", "initial_seed", "memory_cached", "has_half", "get_sync_debug_mode",
                     "set_sync_debug_mode", "memory_stats_as_nested_dict", "is_current_stream_capturing"):
            assert hasattr(torch.cuda, name), name


def test_accelerator_error_is_torchs():
    import ember.torch as torch

    assert torch.cuda.AcceleratorError is torch.AcceleratorError


def test_reachable_under_pytorchs_path():
    import ember.autograd.forward_ad
    import ember.torch
    import ember.torch.autograd.forward_ad as path

    assert path is ember.autograd.forward_ad is ember.torch.autograd.forward_ad
    assert path.UnpackedDualTensor._fields == ("primal", "tangent")
