"""`ember-bench`: the main job and the paper's evaluation.

  ember-bench                 digits training, then the small Table 1 (+ PyTorch when installed)
  ember-bench table           Table 1 only (--size small|paper, --compare torch, --models ...)
  ember-bench trace           Figure 1: host issue vs kernel execution timeline
  ember-bench memory          Figure 2: per-iteration memory and allocator cache hits (CUDA)
  ember-bench distributed     all_reduce vs mpi4py, DDP throughput at 1 and 2 ranks (needs ember-distributed)
  ember-bench train           the training-kernel rows (MLP, LeNet, VGG, ResNet-18, MobileNet styles)
  ember-bench compile         issue 21's table: ember eager vs ember.jit.compile (+ PyTorch, torch.compile)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ember.bench import frameworks
from ember.bench.compiled import COMPILE_ROWS
from ember.bench.models import MODELS
from ember.bench.training import TRAIN_ROWS

TORCH_HINT = ("PyTorch is not installed, so ember runs alone. For the side-by-side table: "
              "pip install torch==2.13.0  (the CPU build)")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ember-bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", nargs="?", default="run", choices=("run", "table", "trace", "memory", "digits",
                                                                         "distributed", "train", "compile"))
    p.add_argument("--size", default=None, choices=("tiny", "small", "paper"),
                   help="model sizes (default small; for compile the issue's sizes, tiny or small: test sizes)")
    p.add_argument("--compare", choices=("torch", "none", "auto"), default="auto",
                   help="run PyTorch beside ember (auto: when it is installed)")
    p.add_argument("--models", nargs="*", default=list(MODELS), choices=list(MODELS))
    p.add_argument("--rows", nargs="*", default=None, choices=[*TRAIN_ROWS, *COMPILE_ROWS],
                   help="rows of `ember-bench train`, or of `ember-bench compile` (default: all of its rows)")
    p.add_argument("--torch-compile", action=argparse.BooleanOptionalAction, default=True,
                   help="compile: time torch.compile too, where PyTorch runs (the issue's table; on by default, "
                        "its first step takes 10-30 s, the LSTM's minutes)")
    p.add_argument("--empty-caches", action="store_true",
                   help="compile: also time each first compiled step in a child on empty Numba and ember.jit caches")
    p.add_argument("--isolate", action=argparse.BooleanOptionalAction, default=None,
                   help="compile: time each framework in a child process of its own (default: unless --threads "
                        "1; in one process their thread pools take the cores from each other)")
    p.add_argument("--loss-steps", type=int, default=100,
                   help="compile: steps before comparing ember.jit's output with eager's")
    p.add_argument("--threads", type=int, default=None,
                   help="intra-op threads of both frameworks (default: theirs)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--device", default="cpu")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--steps", type=int, default=3, help="training steps for trace and memory")
    p.add_argument("--results", default="bench-results", help="folder for JSON, Markdown and PNG output")
    p.add_argument("--skip", nargs="*", default=[], choices=("digits", "table", "overhead", "dataloader"))
    p.add_argument("--overhead-calls", type=int, default=500, help="calls per timed batch of the per-op rows")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="Table 1, per-op and training rows: wall clock, or process CPU time (steadier on a "
                        "shared machine)")
    return p


def _compare(args) -> bool:
    if args.compare == "none":
        return False
    have = frameworks.available("torch")
    if not have:
        print(TORCH_HINT, file=sys.stderr)
    return have


def _run(args) -> dict:
    from ember.bench.machine import describe_machine
    from ember.bench.overhead import run_overhead
    from ember.bench.table import run_table

    compare = _compare(args)
    results: dict = {"machine": describe_machine(), "command": "ember-bench " + " ".join(sys.argv[1:])}
    if args.command == "run" and "digits" not in args.skip:
        from ember.bench.digits import train_digits

        d = train_digits(epochs=args.epochs, num_workers=args.workers)
        results["digits"] = d
        print(f"digits: test accuracy {d['test_accuracy']:.4f} after {d['epochs']} epochs "
              f"({d['seconds']:.1f} s, {d['samples_per_s']:.0f} samples/s, {d['num_workers']} workers)")
    if "table" not in args.skip:
        results["table1"] = run_table(args.models, args.size, compare, args.device, args.repeats, args.warmup,
                                      clock=args.clock)
    if "overhead" not in args.skip:
        results["overhead"] = run_overhead(compare, calls=args.overhead_calls, clock=args.clock)
    if "dataloader" not in args.skip:
        from ember.data.bench import run as run_loader

        results["dataloader"] = run_loader(num_batches=30, epochs=1, compare_torch=compare)
    return results


def _distributed() -> int:
    """ember-distributed's benchmark, when it is installed (ember-bench does not depend on it)."""
    try:
        from ember.distributed.bench import main as run_distributed
    except ImportError as e:
        print(f"ember-bench distributed: skipped, ember-distributed is not installed ({e}); "
              "pip install ember-distributed", file=sys.stderr)
        return 0
    run_distributed([])
    return 0


def _resolve_rows(parser: argparse.ArgumentParser, args) -> None:
    """`--rows` names rows of the command that runs: train's by default, compile's for compile."""
    table = COMPILE_ROWS if args.command == "compile" else TRAIN_ROWS
    if args.rows is None:
        args.rows = list(table)
    bad = [r for r in args.rows if r not in table]
    if bad:
        parser.error(f"--rows {' '.join(bad)}: not a row of `ember-bench {args.command}` "
                     f"(choose from {', '.join(table)})")
    if args.size is None:
        args.size = "paper" if args.command == "compile" else "small"


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    _resolve_rows(parser, args)
    out = Path(args.results)
    if args.threads is not None:
        for name in ("ember", "torch"):
            if frameworks.available(name):
                frameworks.load(name).lib.set_num_threads(args.threads)
    t0 = time.perf_counter()
    if args.command == "trace":
        from ember.bench.trace import run_trace

        paths = run_trace(out, steps=args.steps, size=args.size, device=args.device)
        print("trace written:", *paths, sep="\n  ")
        return 0
    if args.command == "memory":
        from ember.bench.memory import run_memory

        paths = run_memory(out, iterations=max(args.steps, 2), size=args.size)
        print("memory figure written:", *paths, sep="\n  ")
        return 0
    if args.command == "distributed":
        return _distributed()
    if args.command == "digits":
        from ember.bench.digits import train_digits

        d = train_digits(epochs=args.epochs, num_workers=args.workers)
        print(f"digits: test accuracy {d['test_accuracy']:.4f}")
        return 0 if d["test_accuracy"] >= 0.97 else 1
    if args.command == "train":
        from ember.bench.training import markdown, run_training_rows

        from ember.bench import step_memory

        compare = _compare(args)
        rows = run_training_rows(args.rows, compare, args.repeats, args.warmup, args.threads, args.clock)
        text = markdown(rows)
        if step_memory.supported() and "resnet18" in args.rows:
            fws = ["ember", "torch"] if compare else ["ember"]
            text += "\n" + step_memory.markdown(step_memory.run_step_memory(["resnet18"], fws))
        print(text)
        out.mkdir(parents=True, exist_ok=True)
        (out / "training.md").write_text(text)
        return 0
    if args.command == "compile":
        from ember.bench.compiled import markdown as compile_markdown
        from ember.bench.compiled import run_compile_rows

        compare = _compare(args)
        rows = run_compile_rows(args.rows, compare, args.torch_compile and compare, args.repeats,
                                small=args.size != "paper", clock=args.clock, loss_steps=args.loss_steps,
                                empty_caches=args.empty_caches, threads=args.threads,
                                isolate=args.threads != 1 if args.isolate is None else args.isolate)
        from ember.bench.machine import machine_line

        text = compile_markdown(rows) + "\n" + machine_line() + "\n"
        print(text)
        out.mkdir(parents=True, exist_ok=True)
        (out / "compile.md").write_text(text)
        return 0
    if args.command == "table":
        args.skip = [*args.skip, "digits"]
    from ember.bench.report import markdown_table, write_results

    results = _run(args)
    print()
    print(markdown_table(results))
    paths = write_results(results, out)
    print(f"results written to {out.resolve()}/ (results.json, table1.md, " +
          ", ".join(Path(p).name for p in paths["png"]) + f") in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
