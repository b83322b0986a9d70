"""The assembled torch tree: PyTorch's module paths lead to the layers' very objects; modules that ember
does not implement import and refuse clearly; PyTorch's own tree has the same paths and names."""

import importlib

import numpy as np
import pytest

import ember.autograd as ea
import ember.data as ed
import ember.nn as enn
import ember.optim as eo
import ember.torch as et
from ember.torch._unsupported import UnsupportedError

NN_MODULES = ["activation", "batchnorm", "channelshuffle", "container", "conv", "distance", "dropout", "flatten",
              "fold", "instancenorm", "linear", "loss", "module", "normalization", "padding", "pixelshuffle",
              "pooling", "rnn", "sparse", "transformer", "upsampling", "adaptive", "linear_cross_entropy_options"]
SUBMODULES = ["nn", "nn.functional", "nn.grad", "nn.attention", "nn.common_types", "nn.init", "nn.utils",
              "nn.utils.rnn", "nn.utils.parametrizations",
              "nn.parallel", "nn.modules", "nn.parameter", "optim", "optim.lr_scheduler", "utils", "utils.data",
              "utils.data.distributed", "utils.data.dataloader", "utils.data.sampler", "utils.data.dataset",
              "utils.checkpoint", "autograd", "autograd.functional", "multiprocessing", "serialization", "backends",
              "backends.cudnn", "backends.cuda", "backends.mps", "cuda", "cuda.amp", "amp", "testing", "linalg",
              "special", "fft", "masked", "masked.maskedtensor", "onnx", "jit", "profiler", "distributed", "func",
              "futures", "nn.utils.stateless"] + [f"nn.modules.{m}" for m in NN_MODULES]
# ember-distributed's own paths: they import where that package is installed (the torch session has not it)
DISTRIBUTED_SUBMODULES = ["distributed.checkpoint", "distributed.checkpoint.state_dict",
                          "distributed.checkpoint.filesystem", "distributed.checkpoint.metadata",
                          "distributed.device_mesh", "distributed.nn"]


@pytest.mark.parametrize("path", SUBMODULES + DISTRIBUTED_SUBMODULES)
def test_every_torch_path_imports(path):
    if path in DISTRIBUTED_SUBMODULES:
        pytest.importorskip("ember.distributed")
    mod = importlib.import_module(f"ember.torch.{path}")
    parent, _, leaf = f"ember.torch.{path}".rpartition(".")
    assert getattr(importlib.import_module(parent), leaf) is mod


def test_paths_lead_to_the_layers_objects():
    assert et.nn.Linear is enn.Linear and et.nn.Parameter is enn.Parameter
    assert et.nn.functional is enn.functional and et.nn.init is enn.init and et.nn.utils is enn.utils
    assert et.optim is eo and et.optim.lr_scheduler is eo.lr_scheduler and et.optim.LBFGS is eo.LBFGS
    assert et.utils.data is ed and et.utils.data.DataLoader is ed.DataLoader
    assert et.autograd is ea and et.autograd.Function is ea.Function and et.autograd.grad is ea.grad
    assert et.Tensor is ea.Tensor and et.float32 is ea.float32 and et.no_grad is ea.no_grad
    assert et.nn.modules.activation.MultiheadAttention is enn.MultiheadAttention
    assert et.nn.modules.loss._Loss is enn.modules.loss._Loss
    assert et.nn.utils.clip_grad_norm_ is enn.utils.clip_grad_norm_


def test_top_namespace_has_every_public_name_of_ember_autograd():
    missing = [n for n in dir(ea) if not n.startswith("_") and not hasattr(et, n)]
    assert missing == []


def test_no_duplicate_module_is_loaded_under_the_torch_names():
    import sys

    import ember.torch.nn.utils.rnn as rnn_a

    assert rnn_a is sys.modules["ember.nn.utils.rnn"]
    assert et.nn.utils.rnn.PackedSequence is enn.utils.rnn.PackedSequence


def test_backends_cudnn_imports_as_a_module_and_shares_its_flags():
    import ember.torch.backends.cudnn as cudnn

    saved = cudnn.benchmark
    try:
        cudnn.benchmark = True
        assert ea.backends.cudnn.benchmark is True and et.backends.cudnn.benchmark is True
    finally:
        cudnn.benchmark = saved
    assert et.backends.mps.is_available() is False


def test_backends_fp32_precision_is_the_generic_entry_and_sets_every_backend():
    from ember.core import fp32_precision as P

    table = dict(P._table)
    try:
        et.backends.fp32_precision = "ieee"
        assert et.backends.fp32_precision == "ieee"
        assert (et.backends.cuda.matmul.fp32_precision, et.backends.cudnn.conv.fp32_precision,
                et.backends.mkldnn.rnn.fp32_precision) == ("ieee", "ieee", "ieee")
        with pytest.raises(RuntimeError, match="^Unknown precision: foo$"):
            et.backends.fp32_precision = "foo"
    finally:
        P._table.update(table)


def test_unsupported_functions_raise_naming_what():
    with pytest.raises(UnsupportedError, match=r"torch.onnx.export is not supported by ember: ONNX export"):
        et.onnx.export(enn.Linear(2, 2), ea.zeros(1, 2), "m.onnx")
    with pytest.raises(NotImplementedError, match=r"torch.jit.save is not supported by ember: TorchScript"):
        et.jit.save(enn.Linear(2, 2), "m.pt")
    assert et.onnx.is_in_onnx_export() is False and et.jit.is_scripting() is False


def test_jit_script_and_trace_return_modules_that_run_with_the_same_state():
    lin = enn.Linear(3, 2)
    x = ea.ones(4, 3)
    for compiled in (et.jit.script(lin), et.jit.trace(lin, x)):
        np.testing.assert_array_equal(compiled(x).detach().numpy(), lin(x).detach().numpy())
        assert compiled.state_dict().keys() == lin.state_dict().keys()
        for k, v in compiled.state_dict().items():
            np.testing.assert_array_equal(v.numpy(), lin.state_dict()[k].numpy())


def test_jit_script_modules_are_script_modules_sharing_state_and_fork_wait_isinstance():
    # PyTorch's scripted/traced modules are ScriptModules whose parameters are the original's
    lin = enn.Linear(3, 2)
    s, t = et.jit.script(lin), et.jit.trace(lin, ea.ones(1, 3))
    assert type(s).__name__ == "RecursiveScriptModule" and type(t).__name__ == "TopLevelTracedModule"
    assert isinstance(s, et.jit.ScriptModule) and isinstance(t, et.jit.ScriptModule) and s.original_name == "Linear"
    assert s.weight is lin.weight and type(lin) is enn.Linear and et.jit.script(s) is s
    seq = enn.Sequential(enn.Linear(2, 2), enn.ReLU())
    assert repr(s) == "RecursiveScriptModule(original_name=Linear)"
    assert repr(et.jit.script(seq)).splitlines() == [
        "RecursiveScriptModule(", "  original_name=Sequential", "  (0): RecursiveScriptModule(original_name=Linear)",
        "  (1): RecursiveScriptModule(original_name=ReLU)", ")"]
    assert repr(et.jit.trace(seq, ea.ones(1, 2))).splitlines()[:3] == [
        "Sequential(", "  original_name=Sequential", "  (0): Linear(original_name=Linear)"]
    assert issubclass(et.jit.TracerWarning, Warning) and issubclass(et.jit.Error, RuntimeError)
    fut = et.jit.fork(lambda a, b: a * b, ea.ones(2), 3.0)
    np.testing.assert_array_equal(et.jit.wait(fut).numpy(), [3.0, 3.0])
    assert et.jit.isinstance([1, 2], list[int]) and not et.jit.isinstance([1, "a"], list[int])
    assert et.jit.isinstance({"a": ea.ones(1)}, dict[str, ea.Tensor]) and et.jit.isinstance(None, int | None)
    assert et.jit.isinstance((1, "x"), tuple[int, str]) and not et.jit.isinstance((1,), tuple[int, str])


def test_profiler_is_autograds():
    import ember.autograd.profiler as ap

    assert et.profiler.profile is ap.profile and et.profiler.record_function is ap.record_function
    with et.profiler.profile() as prof:
        ea.ones(2) + 1
    assert "aten::add" in {e.key for e in prof.key_averages()}


def test_jit_decorators_and_record_function_pass_through():
    def f(x):
        return x + 1

    assert et.jit.ignore(f) is f and et.jit.unused(f) is f and et.jit.export(f) is f
    assert et.jit.ignore(drop=True)(f) is f
    with et.profiler.record_function("forward"):
        y = f(1)
    assert y == 2 and et.profiler.record_function("g")(f)(2) == 3


def test_jit_script_if_tracing_attribute_overload_and_fuser_flags_run_eagerly():
    def box_area(b):
        """Area."""
        return (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])

    wrapped = et.jit.script_if_tracing(box_area)
    assert wrapped.__name__ == "box_area" and wrapped.__doc__ == "Area." and wrapped.__original_fn is box_area
    np.testing.assert_array_equal(wrapped(ea.tensor([[0.0, 0.0, 2.0, 3.0]])).numpy(), [6.0])
    attr = et.jit.Attribute([1], list[int])
    assert attr.value == [1] and attr.type == list[int] and repr(attr) == "Attribute(value=[1], type=list[int])"
    assert et.jit._overload(box_area) is box_area and et.jit._overload_method(box_area) is box_area
    assert et.jit.set_fusion_strategy([("DYNAMIC", 3)]) == [("STATIC", 2), ("DYNAMIC", 10)]
    assert et.jit.set_fusion_strategy([("STATIC", 2), ("DYNAMIC", 10)]) == [("DYNAMIC", 3)]
    et.jit.enable_onednn_fusion(True)
    assert et.jit.onednn_fusion_enabled() is True
    et.jit.enable_onednn_fusion(False)
    with et.jit.fuser("fuser1"):
        pass
    with pytest.raises(Exception, match=r"^unrecognized fuser option \(name: bad\)$"):
        with et.jit.fuser("bad"):
            pass


def test_attribute_errors_for_pytorch_internals():
    with pytest.raises(AttributeError, match=r"torch._C\) is not provided"):
        et._C  # noqa: B018
    assert str(et.ops.mylib) == "<module 'torch.ops.mylib' from 'torch.ops'>"  # custom ops only


def test_distributed_checkpoint_and_device_mesh_are_ember_distributeds():
    dist = pytest.importorskip("ember.distributed")
    import ember.distributed.checkpoint as edcp
    import ember.torch.distributed.checkpoint as tdcp
    import ember.torch.distributed.checkpoint.state_dict as tsd
    import ember.torch.distributed.device_mesh as tdm

    assert tdcp.save is edcp.save and tdcp.load is edcp.load and tdcp.FileSystemWriter is edcp.FileSystemWriter
    assert tsd.get_state_dict is edcp.state_dict.get_state_dict
    assert tsd.StateDictOptions is edcp.state_dict.StateDictOptions
    assert et.distributed.DeviceMesh is tdm.DeviceMesh is dist.DeviceMesh
    assert et.distributed.init_device_mesh is tdm.init_device_mesh


def test_distributed_without_ember_distributed():
    pytest.importorskip("ember.torch.distributed")
    try:
        importlib.import_module("ember.distributed")
        pytest.skip("ember-distributed is installed")
    except ImportError:
        pass
    assert et.distributed.is_available() is False and et.distributed.is_initialized() is False
    with pytest.raises(NotImplementedError, match="ember-distributed package is not installed"):
        et.distributed.init_process_group("gloo")
    with pytest.raises(RuntimeError, match="needs the ember-distributed package"):
        et.nn.parallel.DistributedDataParallel(enn.Linear(2, 2))


def test_data_parallel_runs_the_module_and_prefixes_state_dict():
    lin = enn.Linear(3, 2)
    dp = et.nn.DataParallel(lin, device_ids=[0])
    x = ea.randn(4, 3)
    np.testing.assert_array_equal(dp(x).detach().numpy(), lin(x).detach().numpy())
    assert sorted(dp.state_dict()) == ["module.bias", "module.weight"]


def test_checkpoint_gives_the_plain_values_and_gradients():
    lin = enn.Linear(3, 3)
    x = ea.randn(2, 3, requires_grad=True)
    out = et.utils.checkpoint.checkpoint(lambda t: ea.tanh(lin(t)), x, use_reentrant=False)
    out.sum().backward()
    w, b, xv = lin.weight.detach().numpy(), lin.bias.detach().numpy(), x.detach().numpy()
    ref = np.tanh(xv.astype(np.float64) @ w.T + b)
    # float32 work against a float64 reference: an absolute floor for entries that cancel to near zero
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), (1 - ref ** 2) @ w, rtol=1e-5, atol=1e-6)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        et.utils.checkpoint.checkpoint(lin, x)
    seq = enn.Sequential(enn.Linear(3, 3), enn.ReLU(), enn.Linear(3, 1))
    np.testing.assert_array_equal(et.utils.checkpoint.checkpoint_sequential(seq, 2, x, use_reentrant=False)
                                  .detach().numpy(), seq(x).detach().numpy())


def test_compile_disabled_returns_the_model():
    m = enn.Linear(2, 2)
    assert et.compile(m, disable=True) is m and et.compile(disable=True)(m) is m


def test_special_and_linalg_are_the_core_functions():
    x = ea.tensor([-1.0, 0.0, 2.0])
    np.testing.assert_allclose(et.special.expit(x).numpy(), 1 / (1 + np.exp([1.0, 0.0, -2.0])), rtol=1e-6)
    assert et.linalg.norm is ea.linalg.norm
    # torch.special's digamma is its own function (special_digamma, named so in its errors), computing digamma's values
    assert et.special.digamma is not ea.digamma and et.special.digamma.__name__ == "special_digamma"
    np.testing.assert_array_equal(et.special.digamma(x).numpy(), ea.digamma(x).numpy())
    np.testing.assert_array_equal(et.special.psi(x).numpy(), ea.digamma(x).numpy())


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
def test_fft_and_complex_names():
    import ember.core.fft as core_fft

    assert et.fft.rfft2 is core_fft.rfft2 and ea.fft.irfftn is core_fft.irfftn
    assert not hasattr(et.fft, "backend_name")
    assert et.complex64 is ea.complex64 and et.view_as_real is ea.view_as_real
    assert et.complex32 is et.chalf is ea.complex32 and et.float16.to_complex() is et.complex32
    assert et.ones(2).chalf().dtype is et.complex32


def test_version_compares_as_a_modern_version():
    v = et.__version__
    assert isinstance(v, str) and v.startswith("2.") and v.endswith("+ember")
    assert v >= "2.0" and v > "1.13.1" and v < "3" and v >= (2, 0) and v > (1, 9) and v != "1.0"
    assert tuple(int(p) for p in v.split("+")[0].split(".")[:2]) >= (2, 0)
    packaging = pytest.importorskip("packaging.version")
    assert packaging.parse(v) >= packaging.parse("2.0") and packaging.parse(v).release[:2] == (2, 13)


def test_set_default_tensor_type_sets_the_default_dtype():
    try:
        et.set_default_tensor_type(et.DoubleTensor)
        assert et.zeros(1).dtype is et.float64
        et.set_default_tensor_type("torch.FloatTensor")
        assert et.zeros(1).dtype is et.float32
    finally:
        et.set_default_dtype(et.float32)
    assert et.typename(et.zeros(1)) == "torch.FloatTensor"


@pytest.mark.torch
@pytest.mark.parametrize("path", SUBMODULES)
def test_pytorch_has_the_same_paths_and_names(path):
    torch = pytest.importorskip("torch")
    theirs = importlib.import_module(f"torch.{path}")
    ours = importlib.import_module(f"ember.torch.{path}")
    names = getattr(ours, "__all__", None)
    if names is not None and path.startswith(("nn.modules.", "amp", "cuda.amp", "serialization", "onnx", "jit")):
        assert [n for n in names if not hasattr(theirs, n)] == []
    assert torch is not None


@pytest.mark.torch
def test_version_gates_agree_with_pytorchs():
    torch = pytest.importorskip("torch")
    for gate in ("2.0", "1.13", "2.1.0"):
        assert (torch.__version__ >= gate) == (et.__version__ >= gate)


def test_testing_assert_close_takes_pytorchs_arguments():
    a = ea.arange(6.0).reshape(2, 3)
    et.testing.assert_close(a, a.clone(), check_layout=True, allow_subclasses=True)
    with pytest.raises(AssertionError, match="stride"):
        et.testing.assert_close(a.t(), a.t().contiguous(), check_stride=True)
    with pytest.raises(AssertionError):
        et.testing.assert_close(a, a + 1)
    with pytest.raises(TypeError):
        et.testing.assert_close(enn.Parameter(a), a, allow_subclasses=False)


def test_distributed_algorithms_paths():
    pytest.importorskip("ember.distributed")
    from ember.distributed import join, powersgd

    algorithms = importlib.import_module("ember.torch.distributed.algorithms")
    assert algorithms.Join is join.Join and algorithms.join.Joinable is join.Joinable
    hooks = importlib.import_module("ember.torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook")
    assert hooks.PowerSGDState is powersgd.PowerSGDState
    assert hooks.batched_powerSGD_hook is powersgd.batched_powerSGD_hook


def test_distributed_nn_paths():
    pytest.importorskip("ember.distributed")
    from ember.distributed.nn import functional

    dnn = importlib.import_module("ember.torch.distributed.nn")
    assert dnn.all_gather is functional.all_gather and dnn.functional.all_to_all_single is functional.all_to_all_single
    assert importlib.import_module("ember.torch.distributed.nn.functional").reduce_scatter is functional.reduce_scatter
    from ember.distributed.optim import ZeroRedundancyOptimizer

    assert importlib.import_module("ember.torch.distributed.optim").ZeroRedundancyOptimizer is ZeroRedundancyOptimizer


def test_a_missing_attribute_is_pythons_error_as_pytorchs():
    with pytest.raises(AttributeError, match="^module 'torch' has no attribute 'gesv'$"):
        et.gesv  # noqa: B018 - removed in 1.2
    assert not hasattr(et, "potrf")
