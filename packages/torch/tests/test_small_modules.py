"""torch.version, torch.types, torch.accelerator, torch.hub's checkpoint cache and the top-level
classes PyTorch programs name (Future, GradScaler, OutOfMemoryError, AcceleratorError)."""

import hashlib

import numpy as np
import pytest

import ember.torch as torch


def test_version_modules_and_types():
    assert torch.version.__version__ == torch.__version__ and torch.version.cuda is None
    assert type(torch.version.__version__) is str and type(torch.__version__) is torch.torch_version.TorchVersion
    assert torch.torch_version.TorchVersion("2.13.0") > "2.9"
    assert isinstance(3, torch.types.Number) and torch.types.Device is not None


def test_accelerator_without_a_gpu():
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    assert torch.accelerator.is_available() is False and torch.accelerator.current_accelerator() is None
    assert torch.accelerator.device_count() == 0
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
        torch.accelerator.current_device_index()
    torch.accelerator.synchronize()


def test_top_level_classes():
    assert issubclass(torch.OutOfMemoryError, RuntimeError) and issubclass(torch.AcceleratorError, RuntimeError)
    assert torch.GradScaler is torch.amp.GradScaler
    f = torch.Future()
    f.set_result(3)
    assert f.wait() == 3


def test_load_state_dict_from_url_downloads_once_checks_the_hash_and_loads(tmp_path):
    src = tmp_path / "src.pt"
    torch.save({"w": torch.arange(3.0)}, src)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    named = tmp_path / f"net-{digest[:8]}.pt"
    named.write_bytes(src.read_bytes())
    torch.hub.set_dir(tmp_path / "hub")
    try:
        sd = torch.hub.load_state_dict_from_url(named.as_uri(), check_hash=True)
        np.testing.assert_array_equal(sd["w"].numpy(), [0.0, 1.0, 2.0])
        cached = tmp_path / "hub" / "checkpoints" / named.name
        assert cached.read_bytes() == src.read_bytes()
        named.unlink()  # served from the cache now
        assert torch.hub.load_state_dict_from_url(named.as_uri())["w"].tolist() == [0.0, 1.0, 2.0]
        bad = tmp_path / "other-deadbeef.pt"
        bad.write_bytes(src.read_bytes())
        with pytest.raises(RuntimeError, match='invalid hash value \\(expected "deadbeef"'):
            torch.hub.load_state_dict_from_url(bad.as_uri(), check_hash=True)
        assert not (tmp_path / "hub" / "checkpoints" / bad.name).exists()
        assert [p.name for p in (tmp_path / "hub" / "checkpoints").iterdir()] == [named.name]
    finally:
        torch.hub._hub_dir = None
    with pytest.raises(NotImplementedError, match="would fetch and run a repository's code"):
        torch.hub.load("pytorch/vision", "resnet18")


def test_norm_base_classes_cover_batch_and_instance_norms():
    from ember.torch.nn.modules.batchnorm import _BatchNorm, _NormBase

    assert isinstance(torch.nn.BatchNorm2d(3), _NormBase) and isinstance(torch.nn.InstanceNorm2d(3), _NormBase)
    assert isinstance(torch.nn.SyncBatchNorm(3), _BatchNorm) and not isinstance(torch.nn.LayerNorm(3), _NormBase)


def test_every_hook_handle_is_torch_utils_hooks_removable_handle():
    from ember.torch.utils.hooks import RemovableHandle

    lin = torch.nn.Linear(2, 2)
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    calls = []
    handles = [lin.register_forward_hook(lambda *a: calls.append("fwd"), always_call=True, with_kwargs=False),
               lin.weight.register_hook(lambda g: calls.append("grad")),
               opt.register_step_post_hook(lambda *a: calls.append("step"))]
    assert all(isinstance(h, RemovableHandle) for h in handles) and len({h.id for h in handles}) == 3
    for h in handles:
        with h:  # each is a context manager that removes its hook on exit
            pass
    lin(torch.ones(1, 2)).sum().backward()
    opt.step()
    assert calls == [] and not lin._forward_hooks_always_called


def test_torch_assert_raises_assertion_error_with_the_message():
    torch._assert(torch.tensor(True), "never raised")
    with pytest.raises(AssertionError, match="^boxes must be 2D$"):
        torch._assert(False, "boxes must be 2D")


def test_print_opts_and_config_modules():
    po = torch._tensor_str.PRINT_OPTS
    try:
        torch.set_printoptions(precision=2)
        assert po.precision == 2 and po.__dict__["threshold"] == 1000
        po.precision = 3
        assert "1.235" in repr(torch.tensor([1.23456]))
    finally:
        torch.set_printoptions(profile="default")
    assert po.precision == 4
    assert "ATen/Parallel" in torch.__config__.parallel_info() and isinstance(torch.__config__.show(), str)


def test_printoptions_context_restores_the_options_before_it():
    assert torch._tensor_str.get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3,
                                                    "linewidth": 80, "sci_mode": None}
    with torch._tensor_str.printoptions(precision=1, sci_mode=True):
        assert repr(torch.tensor([2.25])) == "tensor([2.2e+00])"
    assert repr(torch.tensor([2.25])) == "tensor([2.2500])"
    assert repr(torch._tensor_str.PRINT_OPTS) == ("__PrinterOptions(precision=4, threshold=1000, edgeitems=3, "
                                                  "linewidth=80, sci_mode=None)")


def test_dataloader_module_names_and_unserializable_hook():
    import importlib

    dl = importlib.import_module("ember.data.dataloader")
    assert dl._DatasetKind.Iterable == 1 and dl.get_worker_info() is None
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.ones(2)))
    assert loader._dataset_kind == dl._DatasetKind.Map
    assert torch.serialization.DEFAULT_PROTOCOL == 2 and issubclass(torch.serialization.SourceChangeWarning, Warning)

    @torch.utils.hooks.unserializable_hook
    def hook(g):
        return g

    assert hook.__torch_unserializable__ is True


def test_module_path_keeps_the_private_helpers_programs_import():
    """Custom reprs import `_addindent` and `load_state_dict` overrides `_IncompatibleKeys` from
    torch.nn.modules.module; `Module.T_destination` is the TypeVar state_dict overrides annotate with."""
    import typing

    from ember.torch.nn.modules.module import (
        _EXTRA_STATE_KEY_SUFFIX, _addindent, _global_forward_hooks, _IncompatibleKeys,
    )

    assert _addindent("a\nb", 2) == "a\n  b" and _addindent("a", 2) == "a"
    assert repr(_IncompatibleKeys([], ["x"])) == "_IncompatibleKeys(missing_keys=[], unexpected_keys=['x'])"
    assert repr(_IncompatibleKeys([], [])) == "<All keys matched successfully>"
    handle = torch.nn.modules.module.register_module_forward_hook(lambda *a: None)
    assert len(_global_forward_hooks) == 1 and _EXTRA_STATE_KEY_SUFFIX == "_extra_state"
    handle.remove()
    assert not _global_forward_hooks
    assert repr(torch.nn.Module.T_destination) == "~T_destination"
    assert torch.nn.Module.T_destination.__bound__ == dict[str, typing.Any]


def test_mha_output_projection_class_at_both_module_paths():
    """Code that builds its own attention imports NonDynamicallyQuantizableLinear from torch.nn.modules.linear (its
    home) or .activation (where PyTorch's MultiheadAttention imports it)."""
    from ember.torch.nn.modules.activation import NonDynamicallyQuantizableLinear as from_activation
    from ember.torch.nn.modules.linear import NonDynamicallyQuantizableLinear

    assert from_activation is NonDynamicallyQuantizableLinear and issubclass(from_activation, torch.nn.Linear)
    assert type(torch.nn.MultiheadAttention(4, 2).out_proj) is NonDynamicallyQuantizableLinear
    assert "NonDynamicallyQuantizableLinear" not in torch.nn.modules.linear.__all__


def test_reduction_module_of_losses_written_as_pytorchs():
    """`from torch.nn import _reduction as _Reduction`: ATen's enums and the legacy size_average/reduce strings,
    warning as PyTorch's (always for the legacy strings unless emit_warning=False)."""
    import warnings

    from ember.torch.nn import _reduction as R

    assert [R.get_enum(r) for r in ("none", "mean", "sum")] == [0, 1, 2]
    with pytest.raises(ValueError, match="^avg is not a valid value for reduction$"):
        R.get_enum("avg")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert R.get_enum("elementwise_mean") == 1
        got = [R.legacy_get_string(s, r) for s, r in [(None, None), (False, None), (True, False), (None, False)]]
        assert R.legacy_get_enum(False, None, emit_warning=False) == 2
    assert got == ["mean", "sum", "none", "none"]
    assert [str(w.message) for w in caught[:2]] == [
        "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
        "size_average and reduce args will be deprecated, please use reduction='mean' instead."]
    assert len(caught) == 5
