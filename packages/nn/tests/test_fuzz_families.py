"""A fixed-seed slice of the fuzz campaign's conv, pool, loss and linalg families
(`ember.nn.fuzz_families`; NOTE [ The fuzz campaign ] in ember.core.fuzz): values against float64
numpy references, first derivatives against central differences of those references, and the
exception class PyTorch raises for a bad call. `scripts/fuzz_ops.py --kinds conv,pool,loss,linalg`
runs the long campaign (`nox -s fuzz`)."""

from __future__ import annotations

import os
import sys
from collections import Counter

import pytest

pytest.importorskip("hypothesis")

from ember.core import fuzz  # noqa: E402
from ember.core.ops.conv import ConvDtypeError  # noqa: E402
from ember.nn import fuzz_families  # noqa: E402

N_CASES = 520  # distinct cases over the four families: about 20 s on two cores


@pytest.fixture(scope="module")
def outcomes():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), EMBER_FUZZ_TORCH="0",
               EMBER_FUZZ_PLUGINS=fuzz_families.PLUGIN)
    return fuzz.run_cases(fuzz.draw_cases(N_CASES, seed=0, kinds=fuzz_families.KINDS), batch=400, timeout=300,
                          env=env)


def test_families_find_no_defect(outcomes):
    defects = [f"{o.cls}: {o.case.repro()}: {o.detail}" for o in outcomes if o.cls in fuzz.DEFECTS + ("harness",)]
    assert defects == [], "\n".join(defects)


def test_families_reach_their_rows_and_both_outcomes(outcomes):
    ops = {o.case.op for o in outcomes}
    assert len(ops) >= 0.7 * len(fuzz_families.ROWS)
    assert {o.case.op.split(".")[0] for o in outcomes} == {"F", "linalg"}
    classes = Counter(o.cls for o in outcomes)
    assert classes["ok"] > 60 and classes["error"] > 20


def _run(op, *args, **kwargs):
    return fuzz.run_case(fuzz.Case(op, args, tuple(kwargs.items())))


def test_a_wrong_gradient_is_a_defect(monkeypatch):
    import dataclasses

    from ember.core import fuzz_family
    from ember.core.fuzz import build

    row = fuzz_families.ROWS["F.mse_loss"]
    x, t = fuzz.TensorSpec((3,), "float64", seed=1), fuzz.TensorSpec((3,), "float64", seed=2)
    assert _run("F.mse_loss", x, t).cls == "ok"
    x0 = build(x)._host_array()

    def skewed(x, t, reduction="mean"):  # the same value at x0, another derivative there
        e = row.ref(x, t, reduction=reduction)
        e.value = e.value + 0.5 * float((x - x0).sum())
        return e

    monkeypatch.setitem(fuzz_family._REGISTERED, "F.mse_loss", dataclasses.replace(row, ref=skewed))
    o = _run("F.mse_loss", x, t)
    assert o.cls == "wrong" and o.detail.startswith("gradient: input 0"), o.detail


def test_conv_of_two_dtypes_raises_pytorchs_runtime_error():
    # found by the campaign: a TypeError where PyTorch raises RuntimeError
    o = _run("F.conv1d", fuzz.TensorSpec((1, 2, 5), "float64"), fuzz.TensorSpec((1, 2, 3), "float32"), None)
    assert o.cls == "error" and o.detail == "RuntimeError: expected scalar type Double but found Float"
    assert issubclass(ConvDtypeError, RuntimeError)  # PyTorch's class (and a TypeError, by ember's rule)


def test_channels_last_and_empty_batch_conv_match_the_reference():
    for layout in ("channels_last", "strided", "transposed"):
        o = _run("F.conv2d", fuzz.TensorSpec((2, 4, 5, 3), "float64", layout=layout, seed=3),
                 fuzz.TensorSpec((2, 2, 3, 2), "float64", seed=4), fuzz.TensorSpec((2,), "float64", seed=5),
                 stride=(2, 1), padding=1, dilation=(1, 2), groups=2)
        assert o.cls == "ok", o.detail
    o = _run("F.conv_transpose3d", fuzz.TensorSpec((0, 2, 1, 2, 1), "float32", layout="channels_last"),
             fuzz.TensorSpec((2, 1, 2, 1, 3), "float32"), None, stride=2, output_padding=1, groups=2)
    assert o.cls == "ok", o.detail


def test_losses_reject_what_pytorch_rejects():
    o = _run("F.triplet_margin_loss", *(fuzz.TensorSpec((2, 3), "float32", seed=k) for k in range(3)), margin=0.0)
    assert o.cls == "error" and o.detail == "ValueError: margin must be greater than 0, got 0.0"
    o = _run("F.binary_cross_entropy", fuzz.TensorSpec((3,), "float32", low=0.0, high=1.0),
             fuzz.TensorSpec((3,), "float32", low=0.0, high=1.0, specials=((1, 1.5),)))
    assert o.cls == "error" and "all elements of target should be between 0 and 1" in o.detail
