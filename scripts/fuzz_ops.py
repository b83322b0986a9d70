"""The fuzz campaign over every op of the op table (NOTE [ The fuzz campaign ] in ember.core.fuzz).

    python scripts/fuzz_ops.py --cases 20000 --seed 1 --torch --write docs/robustness.md

draws the cases with hypothesis (a fixed seed: the same cases every run), runs them in child
processes, prints the counts per op and class and the defects with a reproduction, and with
`--write` replaces the campaign's section of docs/robustness.md (between its markers). `--torch`
also runs each case in PyTorch and counts where the two agree (run it where torch is installed);
`--cuda` reruns each case on CUDA (a GPU, or Numba's simulator with NUMBA_ENABLE_CUDASIM=1) and
compares it with the CPU. `--kinds conv,pool,loss,linalg` runs the families of
`ember.nn.fuzz_families` (values, first derivatives and errors; ember-nn must be importable).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

from ember.core import fuzz

CLASSES = ("ok", "error", "unchecked", *fuzz.DEFECTS, "harness")
TORCH = ("agree", "lenient", "stricter", "error-type", "differs")
CUDA = ("agree", "differs", "error-differs", "simulator", "unsupported")


def report(outcomes: list[fuzz.Outcome], args, seconds: float) -> str:
    per_op: dict[str, Counter] = {}
    vs_torch: dict[str, Counter] = {}
    vs_cuda: dict[str, Counter] = {}
    for o in outcomes:
        per_op.setdefault(o.case.op, Counter())[o.cls] += 1
        if "torch" in o.extra:
            vs_torch.setdefault(o.case.op, Counter())[o.extra["torch"]["cls"]] += 1
        if "cuda" in o.extra:
            vs_cuda.setdefault(o.case.op, Counter())[o.extra["cuda"]["cls"]] += 1
    cols = [c for c in CLASSES if any(c in v for v in per_op.values()) or c in ("ok", "error")]
    tcols = list(TORCH) if vs_torch else []
    flags = (f" --kinds {args.kinds}" if args.kinds else "") + (" --complex" if args.complex else "") \
        + (" --torch" if args.torch else "") + (" --cuda" if args.cuda else "")
    lines = [f"`python scripts/fuzz_ops.py --cases {args.cases} --seed {args.seed}{flags}`:"
             f" {len(outcomes)} distinct cases over {len(per_op)} ops in {seconds:.0f} s.", "",
             "| op | cases | " + " | ".join(cols) + (" | vs PyTorch: " + " / ".join(tcols) if tcols else "") + " |",
             "|---|---|" + "---|" * len(cols) + ("---|" if tcols else "")]
    total, ttotal = Counter(), Counter()
    for op in sorted(per_op):
        c = per_op[op]
        total.update(c)
        row = f"| `{op}` | {sum(c.values())} | " + " | ".join(str(c.get(k, 0)) for k in cols)
        if tcols:
            t = vs_torch.get(op, Counter())
            ttotal.update(t)
            row += " | " + " / ".join(str(t.get(k, 0)) for k in tcols)
        lines.append(row + " |")
    row = f"| **all** | {sum(total.values())} | " + " | ".join(str(total.get(k, 0)) for k in cols)
    lines.append(row + (" | " + " / ".join(str(ttotal.get(k, 0)) for k in tcols) if tcols else "") + " |")
    defects = [o for o in outcomes if o.cls in fuzz.DEFECTS or o.cls == "harness"]
    lines += ["", f"Defects ({len(defects)}), one reproduction per op and kind "
                  "(`T(shape, dtype, layout, specials)` is the tensor `ember.core.fuzz.build` makes):", ""]
    seen = set()
    for o in defects:
        key = (o.case.op, o.cls, o.detail[:40])
        if key in seen:
            continue
        seen.add(key)
        lines.append(f"- {o.cls}: `{o.case.repro()}`: {o.detail}")
    if vs_cuda:
        total = Counter()
        for c in vs_cuda.values():
            total.update(c)
        lines += ["", "CUDA against the CPU: " + ", ".join(f"{k} {total.get(k, 0)}" for k in CUDA) + "."]
        seen = set()
        for o in outcomes:
            t = o.extra.get("cuda")
            if not t or t["cls"] == "agree" or (o.case.op, t["cls"]) in seen:
                continue
            seen.add((o.case.op, t["cls"]))
            lines.append(f"- {t['cls']}: `{o.case.repro()}`: {t.get('detail', '')}")
    if tcols:
        lines += ["", "Where ember and PyTorch differ (one per op and kind):", ""]
        seen = set()
        for o in outcomes:
            t = o.extra.get("torch")
            if not t or t["cls"] == "agree":
                continue
            key = (o.case.op, t["cls"], t.get("detail", "")[:30])
            if key in seen:
                continue
            seen.add(key)
            lines.append(f"- {t['cls']}: `{o.case.repro()}`: {t.get('detail', '')}")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=5000, help="cases to draw (duplicates are dropped)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--batch", type=int, default=500, help="cases per child process")
    p.add_argument("--torch", action="store_true", help="also run each case in PyTorch and compare")
    p.add_argument("--cuda", action="store_true", help="also run each case on CUDA and compare with the CPU")
    p.add_argument("--kinds", help="only the ops of these OpInfo kinds, comma-separated (elementwise, reduction, "
                                   "indexing, shape; conv, pool, loss, linalg from ember.nn.fuzz_families)")
    p.add_argument("--complex", action="store_true", help="elementwise ops on complex64/complex128 tensors")
    p.add_argument("--write", metavar="MD", help="replace the campaign's section of this markdown file")
    p.add_argument("--section", default="fuzz-campaign",
                   help="the section's marker name: <!-- NAME:begin --> ... <!-- NAME:end -->")
    args = p.parse_args()
    t0 = time.time()
    kinds = set(args.kinds.split(",")) if args.kinds else set()
    plugins = []
    if kinds & {"conv", "pool", "loss", "linalg"}:
        from ember.nn import fuzz_families  # registers its rows here; the children import it by name

        plugins.append(fuzz_families.PLUGIN)
    cases = fuzz.draw_cases(args.cases, args.seed, tuple(args.kinds.split(",")) if args.kinds else None,
                            complex_=args.complex)
    env = dict(os.environ, EMBER_FUZZ_TORCH="1" if args.torch else "0", EMBER_FUZZ_CUDA="1" if args.cuda else "0",
               PYTHONPATH=os.pathsep.join(sys.path), EMBER_FUZZ_PLUGINS=",".join(plugins))
    outcomes = fuzz.run_cases(cases, batch=args.batch, env=env, timeout=600,
                              progress=lambda done, n: print(f"\r{done}/{n}", end="", file=sys.stderr))
    print(file=sys.stderr)
    text = report(outcomes, args, time.time() - t0)
    print(text)
    if args.write:
        BEGIN, END = f"<!-- {args.section}:begin -->", f"<!-- {args.section}:end -->"
        with open(args.write) as f:
            doc = f.read()
        if BEGIN not in doc:
            raise SystemExit(f"{args.write} has no {BEGIN} ... {END} section")
        head, rest = doc.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        with open(args.write, "w") as f:
            f.write(f"{head}{BEGIN}\n{text}\n{END}{tail}")
    return 1 if any(o.cls in ("crash", "hang", "harness") for o in outcomes) else 0


if __name__ == "__main__":
    raise SystemExit(main())
