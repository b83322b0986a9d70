"""How much of PyTorch's public API exists in ember.torch under the same path: writes docs/api_coverage.md.

Run where PyTorch is installed (the opt-in `nox -s torch` session runs it):
`python scripts/api_coverage.py [--out docs/api_coverage.md]`. It enumerates the public names of
each namespace of the installed PyTorch, checks that `ember.torch` has each under the same path
(existence only: behaviour is the tests' business), and lists what is missing. Names left out on
purpose are listed with their reason, so the exclusion hides nothing.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (row, pattern over the name, reason): a name of that row matching the pattern (re.fullmatch) is not counted
QUANT = "quantization: ember has no quantized tensors (quantized dtypes, schemes and kernels, torch.ao)"
SPARSE = ("sparse layouts beyond COO and 2-D CSR (CSC, BSR, BSC, semi-structured) and sparse-specific fused ops: "
          "see docs/sparse.md")
SCRIPT = "TorchScript and graph-capture internals: ember runs eagerly and compiles nothing"
BACKEND = "backend-only helpers: kernels and switches of cuDNN, MIOpen, oneDNN, FBGEMM, XLA, IPU, MPS, XPU, MTIA"
BUILD = "facts about PyTorch's own C++ build and loader"
REMOVED = "removed from PyTorch: calling it raises an error that points to its replacement"
SHELL = ("sub-byte and bit-container dtypes: PyTorch defines them as shells for tensor subclasses, with no "
         "kernels of its own")
DOCS = "documentation strings, not API"
FIRST_CLASS_DIMS = "first-class dimensions (functorch.dim's Dim objects), which ember does not have"
EXCLUDED: list[tuple[str, str, str]] = [
    ("torch functions", r"q_.*|quantize_.*|quantized_.*|dequantize|fused_moving_avg_obs_fake_quant"
                        r"|choose_qparams_optimized|int_repr|empty_quantized", QUANT),
    ("torch classes", r"Q(U?Int\w*)Storage|qscheme", QUANT),
    ("torch constants", r"per_(tensor|channel)_\w+", QUANT),
    ("dtypes", r"q(u?int\w+)", QUANT),
    ("Tensor", r"q_.*|int_repr|dequantize|qscheme", QUANT),
    ("torch.nn", r"intrinsic|qat|quantizable|quantized", QUANT),
    ("torch functions", r"sparse_(csc|bsr|bsc)_tensor|sparse_compressed_tensor|\w*indices_copy|values_copy|dsmm"
                        r"|hsmm|saddmm|resize_as_sparse_|native_norm", SPARSE),
    ("torch.sparse", r"SparseSemiStructured\w*|semi_structured|to_sparse_semi_structured|spsolve", SPARSE),
    ("Tensor", r"to_sparse_(csc|bsr|bsc)|(ccol|row)_indices|sparse_mask|sparse_resize_\w*|resize_as_sparse_", SPARSE),
    ("torch classes", r"AliasDb|\w*Type|Argument(Spec)?|CompleteArgumentSpec|Block|CallStack|Capsule|Code"
                      r"|CompilationUnit|ConcreteModuleType(Builder)?|DeepCopyMemoTable|ErrorReport|ExecutionPlan"
                      r"|FileCheck|FunctionSchema|Gradient|Graph|GraphExecutorState|IODescriptor|InferredType"
                      r"|JITException|LiteScriptModule|Node|Script\w+|StaticModule|TracingState|Use|Value"
                      r"|BufferDict|ModuleDict|ParameterDict|Sym(Bool|Float|Int)|AggregationType|LoggerBase"
                      r"|LockingLogger|NoopLogger|OperatorInfo|Tag|DispatchKey(Set)?|ExcludeDispatchKeyGuard"
                      r"|ThroughputBenchmark|Benchmark(Config|ExecutionStats)|PyTorchFile(Reader|Writer)"
                      r"|(De)?[Ss]erializationStorageContext|ScriptModuleSerializer", SCRIPT),
    ("torch functions", r"fork|wait|parse_ir|parse_schema|parse_type_comment|merge_type_from_type_comment"
                        r"|import_ir_module\w*|unify_type_list|sym_constrain_range\w*|sym_fresh_size", SCRIPT),
    ("torch constants", r"AVG|SUM|PRIVATE_OPS", SCRIPT),
    ("torch submodules", r"fx|export|compiler|classes|cpp|ops|package|monitor", SCRIPT),
    ("torch.nn.functional", r"BroadcastingList\d|boolean_dispatch|assert_int_or_pair", SCRIPT),
    ("torch functions", r"cudnn_\w+|miopen_\w+|mkldnn_\w+|fbgemm_\w+|is_vulkan_available|\w+_autocast_(ipu|xla)_\w+"
                        r"|is_autocast_(ipu|xla)_enabled|profiler_allow_cudagraph_cupti_lazy_reinit_cuda12"
                        r"|batch_norm_(backward_elemt|backward_reduce|elemt|gather_stats\w*|stats|update_stats)",
     BACKEND),
    ("torch submodules", r"mtia", BACKEND),
    ("Tensor", r"to_mkldnn|ipu|xpu|mtia|is_xla", BACKEND),
    ("Tensor", r"index", FIRST_CLASS_DIMS),
    ("torch functions", r"get_file_path|prepare_multiprocessing_environment", BUILD),
    ("torch constants", r"USE_GLOBAL_DEPS|USE_RTLD_GLOBAL_WITH_LIBTORCH|TYPE_CHECKING", BUILD),
    ("torch submodules", r"windows", BUILD),
    ("torch functions", r"eig|symeig|matrix_rank|lstsq|solve", REMOVED),
    ("Tensor", r"eig|symeig|reinforce|volatile|lstsq|solve", REMOVED),
    ("dtypes", r"bits\w+|bit|u?int[1-7]|float4_e2m1fn_x2", SHELL),
    ("torch.nn.functional", r"TYPE_CHECKING", BUILD),
    ("torch.sparse", r"TYPE_CHECKING", BUILD),
    ("torch.nn.functional", r"\w+_notes", DOCS),
    ("torch.linalg", r"common_notes", DOCS),
    ("torch.special", r"common_args|multi_dim_common", DOCS),
    ("torch.fft", r"common_args|factory_common_args", DOCS),
]


def _owned(obj, name: str, ns: str) -> bool:
    """False for what a namespace merely imported from elsewhere (typing.Optional, numpy as np, torch itself,
    torch.Tensor in a submodule)."""
    if ns != "torch" and name == "Tensor":
        return False
    if isinstance(obj, types.ModuleType):
        return obj.__name__ == f"{ns}.{name}"
    mod = getattr(obj, "__module__", None)
    return mod is None or not isinstance(mod, str) or mod.split(".")[0] == "torch"


def _public(mod, ns: str) -> dict[str, object]:
    out = {}
    for name in dir(mod):
        if name.startswith("_"):
            continue
        try:
            obj = getattr(mod, name)
        except Exception:  # a lazily-imported submodule that fails to load here: still a public name
            obj = None
        if obj is None or _owned(obj, name, ns):
            out[name] = obj
    return out


def enumerate_torch(torch) -> dict[str, tuple[str, str, list[str]]]:
    """{row: (PyTorch path, ember.torch path, public names)}."""
    top = _public(torch, "torch")
    rows: dict[str, tuple[str, str, list[str]]] = {}
    rows["torch functions"] = ("torch", "ember.torch", [
        n for n, o in top.items() if callable(o) and not isinstance(o, type | types.ModuleType)])
    rows["torch classes"] = ("torch", "ember.torch", [
        n for n, o in top.items() if isinstance(o, type) and not issubclass(o, BaseException)] + [
        n for n, o in top.items() if isinstance(o, type) and issubclass(o, BaseException)])
    rows["torch submodules"] = ("torch", "ember.torch", [n for n, o in top.items() if isinstance(o, types.ModuleType)])
    rows["dtypes"] = ("torch", "ember.torch", [n for n, o in top.items() if isinstance(o, torch.dtype)])
    rows["torch constants"] = ("torch", "ember.torch", [
        n for n, o in top.items() if not callable(o) and not isinstance(o, types.ModuleType | torch.dtype)])
    rows["Tensor"] = ("torch.Tensor", "ember.torch.Tensor", [n for n in dir(torch.Tensor) if not n.startswith("_")])
    for ns in ("torch.nn", "torch.nn.functional", "torch.optim", "torch.linalg", "torch.special", "torch.fft",
               "torch.autograd", "torch.autograd.forward_ad", "torch.func", "torch.testing", "torch.cuda",
               "torch.sparse"):
        mod = importlib.import_module(ns)
        names = list(_public(mod, ns))
        if ns == "torch.optim":  # the optimizers, their base class and the two utility modules
            names = [n for n in names if n in ("lr_scheduler", "swa_utils") or
                     (isinstance(getattr(mod, n), type) and issubclass(getattr(mod, n), torch.optim.Optimizer))]
        rows[ns] = (ns, "ember." + ns, names)
    return rows


def _reason(row: str, name: str) -> str | None:
    for r, pattern, why in EXCLUDED:
        if r == row and re.fullmatch(pattern, name):
            return why
    return None


def _resolve(path: str):
    try:
        return importlib.import_module(path)
    except ImportError:
        head, _, attr = path.rpartition(".")
        parent = _resolve(head)
        return getattr(parent, attr, None) if parent is not None else None


def measure(rows) -> list[dict]:
    """Per row: the counted names, those ember.torch has, those it lacks, and the excluded ones by reason."""
    out = []
    for row, (tpath, epath, names) in rows.items():
        target = _resolve(epath)
        counted, excluded = [], {}
        for n in sorted(set(names)):
            why = _reason(row, n)
            if why:
                excluded.setdefault(why, []).append(n)
            else:
                counted.append(n)
        have = [n for n in counted if target is not None and hasattr(target, n)]
        out.append({"row": row, "torch": tpath, "ember": epath, "counted": counted, "have": have,
                    "missing": [n for n in counted if n not in have], "excluded": excluded})
    return out


def render(results, torch_version: str) -> str:
    lines = ["# PyTorch API coverage", "",
             f"Which public names of PyTorch {torch_version} exist in `ember.torch` under the same path. Existence "
             "only: what a name does is the business of the tests, which compare values, gradients and errors with "
             "PyTorch's. Generated by `scripts/api_coverage.py` (run by `nox -s torch`); do not edit by hand.", "",
             "Counted: the names of each namespace that do not start with `_`, less what the namespace merely "
             "imports from elsewhere (`typing.Optional`, `numpy as np`) and the names left out on purpose, which "
             "are listed with their reason at the end.", "",
             "| namespace | PyTorch names | ember has | coverage | missing | left out |",
             "|---|---:|---:|---:|---:|---:|"]
    for r in results:
        n, h = len(r["counted"]), len(r["have"])
        pct = f"{100 * h / n:.0f}%" if n else "-"
        lines.append(f"| `{r['row']}` | {n} | {h} | {pct} | {n - h} | {sum(map(len, r['excluded'].values()))} |")
    tot_n = sum(len(r["counted"]) for r in results)
    tot_h = sum(len(r["have"]) for r in results)
    lines += [f"| **all** | {tot_n} | {tot_h} | {100 * tot_h / tot_n:.0f}% | {tot_n - tot_h} | |", "", "## Missing", ""]
    for r in results:
        lines += [f"### `{r['row']}` ({len(r['missing'])} missing)", ""]
        lines += [", ".join(f"`{n}`" for n in r["missing"]) if r["missing"] else "Nothing.", ""]
    lines += ["## Left out on purpose", ""]
    by_reason: dict[str, list[str]] = {}
    for r in results:
        for why, names in r["excluded"].items():
            prefix = "" if r["row"] in ("dtypes",) or r["row"].startswith("torch ") else r["torch"] + "."
            if r["row"] == "Tensor":
                prefix = "Tensor."
            by_reason.setdefault(why, []).extend(prefix + n for n in names)
    for why, names in by_reason.items():
        lines += [f"- **{why[0].upper() + why[1:]}** ({len(names)}): " + ", ".join(f"`{n}`" for n in names)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "api_coverage.md")
    args = ap.parse_args(argv)
    import torch

    import ember.torch  # noqa: F401 - the tree under test

    results = measure(enumerate_torch(torch))
    args.out.write_text(render(results, torch.__version__.split("+")[0]))
    for r in results:
        print(f"{r['row']:22} {len(r['have']):4} of {len(r['counted']):4}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
