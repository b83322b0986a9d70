"""The torch-like namespace: ember.core's names, autograd's API, one Tensor type, cuda."""

from __future__ import annotations

import ast
from pathlib import Path

import ember.autograd as E
import ember.core as core


def test_reexports_every_public_name_of_core():
    missing = [n for n in core.__all__ if not hasattr(E, n)]
    assert missing == []


def test_exports_no_core_internals():
    internals = ("declare", "attach", "method", "inplace", "wrap", "write_out", "UNARY", "BINARY", "FLOAT", "PROMOTE",
                 "OpInfo", "Row", "annotations", "np", "as_device", "getitem")
    assert [n for n in internals if hasattr(E, n) or n in E.__all__ or hasattr(core, n)] == []


def test_every_public_module_has_all():
    src = Path(E.__file__).parent
    lacking = [str(p.relative_to(src)) for p in sorted(src.rglob("*.py"))
               if not p.name.startswith("_") or p.name == "__init__.py"
               if not any(getattr(t, "id", "") == "__all__" for n in ast.parse(p.read_text()).body
                          for t in getattr(n, "targets", [getattr(n, "target", None)]))]
    assert lacking == []
    assert [n for n in E.__all__ if not hasattr(E, n)] == []


def test_one_tensor_type():
    assert E.Tensor is core.Tensor
    t = core.ones(2)
    assert isinstance(t, E.Tensor) and hasattr(t, "backward")


def test_torch_api_floor_names_exist():
    names = ("tensor as_tensor from_numpy empty zeros zeros_like ones ones_like full full_like arange linspace randn "
             "randint randperm manual_seed Generator cat stack flatten reshape mm sum mean max maximum exp log log1p "
             "sin cos tanh sigmoid relu sqrt softmax log_softmax isfinite isnan all allclose equal no_grad "
             "enable_grad set_grad_enabled is_grad_enabled get_default_dtype save load Tensor float32 float float64 "
             "double int32 int64 long bool Function grad backward gradcheck gradgradcheck detect_anomaly "
             "set_detect_anomaly inference_mode is_tensor").split()
    assert [n for n in names if not hasattr(E, n)] == []


def test_creation_functions_take_requires_grad():
    for t in (E.zeros(2, requires_grad=True), E.tensor([1.0], requires_grad=True), E.randn(2, requires_grad=True),
              E.ones_like(E.ones(2), requires_grad=True), E.full((2,), 3.0, requires_grad=True)):
        assert t.requires_grad and t.is_leaf


def test_cuda_submodule():
    assert isinstance(E.cuda.is_available(), bool)
    assert E.cuda.device_count() >= 0
    if E.cuda.is_available():
        assert E.cuda.device_count() >= 1


def test_variable_is_the_old_wrapper():
    x = E.ones(2)
    v = E.Variable(x, requires_grad=True)
    assert isinstance(x, E.Variable) and v.requires_grad and v.is_leaf and not x.requires_grad
    v.data[0] = 3.0
    assert x[0].item() == 3.0


def test_torch_autograd_spelling_works_on_the_namespace():
    torch = E
    x = torch.tensor([2.0], requires_grad=True)
    assert torch.autograd.grad((x * x).sum(), x)[0].item() == 4.0
    assert torch.autograd.Function is E.Function and torch.autograd.functional is E.functional


def test_import_compiles_nothing():
    import subprocess
    import sys

    code = "import sys, ember.autograd; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
