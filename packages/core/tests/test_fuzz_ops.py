"""A fixed-seed run of the fuzz campaign over the op table (NOTE [ The fuzz campaign ] in
ember.core.fuzz): every op with an OpInfo, random shapes, layouts, dtypes, NaN/inf and wrong
types, run in child processes; no case may crash, hang, compute garbage or raise the wrong kind
of error. `scripts/fuzz_ops.py` runs the long campaign and writes docs/robustness.md."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
from collections import Counter

import pytest

pytest.importorskip("hypothesis")
pytest.importorskip("scipy.special")  # the references of erf, erfinv and gelu

from ember.core import fuzz, fuzz_family  # noqa: E402
from ember.core.opinfo import ops_with_info  # noqa: E402

N_CASES = 1600  # about 860 distinct cases; well under a minute on two cores
N_FAMILY_CASES = 600  # about 440 distinct indexing and shape cases; about 15 s of CPU


@pytest.fixture(scope="module")
def outcomes():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), EMBER_FUZZ_TORCH="0")
    return fuzz.run_cases(fuzz.draw_cases(N_CASES, seed=0, kinds=("elementwise", "reduction")), batch=400,
                          timeout=300, env=env)


@pytest.fixture(scope="module")
def family_outcomes():
    """The indexing and shape families (ember.core.fuzz_family): their own draws and references."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), EMBER_FUZZ_TORCH="0")
    return fuzz.run_cases(fuzz.draw_cases(N_FAMILY_CASES, seed=0, kinds=fuzz_family.FAMILIES), batch=400,
                          timeout=300, env=env)


def test_fixed_seed_campaign_finds_no_defect(outcomes):
    defects = [f"{o.cls}: {o.case.repro()}: {o.detail}" for o in outcomes if o.cls in fuzz.DEFECTS + ("harness",)]
    assert defects == [], "\n".join(defects)


def test_campaign_reaches_every_op_and_both_outcomes(outcomes):
    ops = {o.case.op for o in outcomes}
    assert len(ops) >= 0.85 * len(ops_with_info(lambda i: i.kind in ("elementwise", "reduction")))
    classes = Counter(o.cls for o in outcomes)
    assert classes["ok"] > classes["error"] > 50  # most calls valid, and many invalid ones refused cleanly


def test_cases_are_drawn_the_same_every_run():
    assert [c.repro() for c in fuzz.draw_cases(40, seed=5)] == [c.repro() for c in fuzz.draw_cases(40, seed=5)]


_DRAW = """
import hashlib, importlib, pkgutil, sys
import ember.core
from ember.core import fuzz
if sys.argv[1] == "all":
    for m in pkgutil.walk_packages(ember.core.__path__, "ember.core."):
        if ".cuda" not in m.name:
            try:
                importlib.import_module(m.name)
            except ImportError:  # an optional dependency this environment lacks
                pass
print(hashlib.sha1("|".join(c.repro() for c in fuzz.draw_cases(400, seed=3)).encode()).hexdigest())
"""


def test_cases_do_not_depend_on_which_modules_are_imported():
    """hypothesis mixes the literal constants of imported source modules into its draws: without
    `fuzz._no_local_constants`, importing all of ember.core first changed the cases of a seed."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = [subprocess.run([sys.executable, "-c", _DRAW, which], env=env, capture_output=True, text=True,
                          check=True, timeout=300).stdout for which in ("none", "all")]
    assert out[0] == out[1] and len(out[0].strip()) == 40


def test_cases_cover_layouts_empty_dims_specials_and_wrong_types():
    cases = fuzz.draw_cases(400, seed=1)
    specs = [a for c in cases for a in c.args if isinstance(a, fuzz.TensorSpec)]
    assert {s.layout for s in specs} == set(fuzz.LAYOUTS)
    assert any(0 in s.shape for s in specs) and any(s.shape == () for s in specs)
    assert any(s.specials for s in specs)
    assert any(isinstance(a, fuzz.Bad) for c in cases for a in c.args)
    assert any(c.kwargs for c in cases)


# a stand-in child that follows the worker's protocol, then dies or stalls on the case at index 1
# of every batch
_FAKE = textwrap.dedent("""
    import json, os, pickle, sys, time
    cases = pickle.loads(sys.stdin.buffer.read())
    for i, c in enumerate(cases):
        print(json.dumps({"start": i}), flush=True)
        if i == 1:
            os.abort() if sys.argv[1] == "crash" else time.sleep(60)
        print(json.dumps({"i": i, "cls": "ok", "detail": ""}), flush=True)
""")


@pytest.mark.parametrize("kind", ["crash", "hang"])
def test_a_crash_or_a_hang_is_pinned_on_its_case_and_the_rest_still_runs(kind):
    cases = [fuzz.Case("exp", (fuzz.TensorSpec((k,), "float32"),)) for k in range(4)]
    out = fuzz.run_cases(cases, batch=2, timeout=3, command=[sys.executable, "-c", _FAKE, kind])
    assert [o.case.args[0].shape for o in out] == [(0,), (1,), (2,), (3,)]
    assert [o.cls for o in out] == ["ok", kind, "ok", kind]
    assert out[1].case.repro() == "exp(T((1,), 'float32'))"


def test_a_wrong_result_is_classified_as_a_defect(monkeypatch):
    from ember.core.dispatch import get_op

    op = get_op("exp")
    monkeypatch.setattr(op, "info", dataclasses.replace(op.info, ref=lambda x: x + 1))
    o = fuzz.run_case(fuzz.Case("exp", (fuzz.TensorSpec((3,), "float64", seed=1),)))
    assert o.cls == "wrong" and "elements differ" in o.detail


def test_a_leaked_internal_error_is_a_defect():
    # a wrong Python type must raise PyTorch's TypeError, not numpy's or an AttributeError
    o = fuzz.run_case(fuzz.Case("mul", (fuzz.TensorSpec((2,), "bool"), fuzz.Bad(None))))
    assert o.cls == "error" and o.detail.startswith("TypeError: mul(): argument 'other' (position 2)")
    o = fuzz.run_case(fuzz.Case("fmax", (fuzz.Bad(1.5), fuzz.TensorSpec((2,), "float32"))))
    assert o.cls == "error" and "argument 'input' (position 1) must be Tensor, not float" in o.detail
    o = fuzz.run_case(fuzz.Case("add", (fuzz.Bad(2), fuzz.TensorSpec((2,), "float32"))))
    assert o.cls == "ok"  # torch.add(2, t) is valid


@pytest.mark.cuda
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the simulator runs numpy scalar math: 1 / 0.0
def test_fuzz_cases_give_the_same_results_on_cuda_as_on_the_cpu():
    E = pytest.importorskip("ember.core")
    if not E.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    cases = fuzz.draw_cases(300, seed=3)
    found = []
    for c in cases:
        if c.kwargs:  # out= of another dtype: CUDA computes in float32 first (docs/robustness.md)
            continue
        first = c.args[0] if c.args else None
        if c.op.endswith("_") and getattr(first, "layout", None) in ("expanded", "overlapping"):
            continue  # an in-place write into self-overlapping memory: the order of its writes is the kernel's own
        r = fuzz.against_cuda(c)
        if r["cls"] in ("differs", "error-differs") and "ZeroDivisionError" not in r.get("detail", ""):
            found.append(f"{r['cls']}: {c.repro()}: {r.get('detail', '')}")
    assert found == []


def test_indexing_and_shape_families_find_no_defect(family_outcomes):
    defects = [f"{o.cls}: {o.case.repro()}: {o.detail}" for o in family_outcomes
               if o.cls in fuzz.DEFECTS + ("harness",)]
    assert defects == [], "\n".join(defects)


def test_families_reach_every_row_and_both_outcomes(family_outcomes):
    names = set(fuzz_family.family_names())
    assert len({o.case.op for o in family_outcomes} & names) >= 0.9 * len(names)
    classes = Counter(o.cls for o in family_outcomes)
    assert classes["ok"] > 150 and classes["error"] > 150
    details = " ".join(o.detail for o in family_outcomes if o.cls == "error")
    assert "is out of bounds for dimension" in details and "index out of range in self" in details


def test_an_out_of_range_index_must_raise_pytorchs_class(monkeypatch):
    case = fuzz.Case("gather", (fuzz.TensorSpec((3, 4), "float32"), 0,
                                fuzz.TensorSpec((1, 4), "int64", low=0, high=2, specials=((1, 3),))))
    o = fuzz.run_case(case)
    assert o.cls == "error" and "index 3 is out of bounds for dimension 0 with size 3" in o.detail
    from ember.core.dispatch import get_op

    op = get_op("gather")

    def raising(M, x, d, i):
        raise ValueError("index 3")

    monkeypatch.setattr(op, "info", dataclasses.replace(op.info, call=raising))
    assert fuzz.run_case(case).cls == "bad-error"  # PyTorch raises RuntimeError, not ValueError
    monkeypatch.setattr(op, "info", dataclasses.replace(op.info, call=lambda M, x, d, i: x))
    assert fuzz.run_case(case).cls == "accepted"  # a kernel that skipped the index instead


@pytest.mark.cuda
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_indexing_cases_give_the_same_results_and_errors_on_cuda():
    """Out-of-range indices raise on CUDA as on the CPU (the meta step), never skipped by a kernel."""
    E = pytest.importorskip("ember.core")
    if not E.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    found = []
    for c in fuzz.draw_cases(250, seed=4, kinds=("indexing",)):
        r = fuzz.against_cuda(c)
        if r["cls"] in ("differs", "error-differs") and fuzz.run_case(c).cls != "unchecked":
            found.append(f"{r['cls']}: {c.repro()}: {r.get('detail', '')}")
    assert found == [], "\n".join(found)


def test_complex_elementwise_cases_match_complex_references():
    """`--complex`: elementwise ops on complex64/complex128 against the references in complex128."""
    outcomes = [fuzz.run_case(c) for c in fuzz.draw_cases(300, seed=0, complex_=True)]
    defects = [f"{o.cls}: {o.case.repro()}: {o.detail}" for o in outcomes if o.cls in fuzz.DEFECTS]
    assert defects == [], "\n".join(defects)
    assert Counter(o.cls for o in outcomes)["ok"] > 40  # (many ops refuse complex, as PyTorch)


def test_registered_family_ops_carry_their_row_through_declare():
    # NOTE [ The op table ]: an op's row rides on its one declaration; only public functions without an Op
    # of their own (reshape, stack, take_along_dim ...) are rows keyed by name
    from ember.core import opinfo_indexing, opinfo_shape
    from ember.core.dispatch import registered_ops

    ops = registered_ops()
    for module in (opinfo_indexing, opinfo_shape):
        declared = [n for n in module._ROWS if n not in module.COMPOSITES]
        assert declared and all(ops[n].info is not None and ops[n].info.draw is not None for n in declared)
        assert set(module.INFOS) == set(module.COMPOSITES)
        assert not any(n in ops and ops[n].info is not None for n in module.COMPOSITES)
