"""scripts/api_coverage.py: counts a name ember.torch has, lists one it lacks, and lists each name left
out on purpose under its reason instead of dropping it."""

import importlib.util
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("api_coverage", ROOT / "scripts" / "api_coverage.py")
api_coverage = sys.modules["api_coverage"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(api_coverage)


def test_measure_counts_present_missing_and_excluded_names():
    rows = {"torch functions": ("torch", "ember.torch", ["add", "no_such_name_in_ember", "quantize_per_tensor"])}
    (r,) = api_coverage.measure(rows)
    assert r["have"] == ["add"]
    assert r["missing"] == ["no_such_name_in_ember"]
    assert r["excluded"] == {api_coverage.QUANT: ["quantize_per_tensor"]}


def test_public_names_skip_what_a_namespace_imports_from_elsewhere():
    import math

    ns = types.ModuleType("torch.fake")
    ns.math, ns.Optional, ns.Tensor = math, __import__("typing").Optional, object
    ns.sub = types.ModuleType("torch.fake.sub")
    ns.fn = lambda: None
    ns.fn.__module__ = "torch.fake"
    assert sorted(api_coverage._public(ns, "torch.fake")) == ["fn", "sub"]


def test_render_lists_missing_and_left_out_names():
    rows = {"torch functions": ("torch", "ember.torch", ["add", "no_such_name_in_ember", "cudnn_convolution"])}
    text = api_coverage.render(api_coverage.measure(rows), "2.13.0")
    assert "| `torch functions` | 2 | 1 | 50% | 1 | 1 |" in text
    assert "`no_such_name_in_ember`" in text and "`cudnn_convolution`" in text


@pytest.mark.torch
def test_every_namespace_of_pytorch_is_measured(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "cov.md"
    assert api_coverage.main(["--out", str(out)]) == 0
    text = out.read_text()
    for row in ("torch functions", "Tensor", "torch.nn", "torch.nn.functional", "torch.optim", "torch.linalg",
                "torch.special", "torch.fft", "dtypes", "torch constants"):
        assert f"| `{row}` |" in text
