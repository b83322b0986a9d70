"""`python -m ember.core.cuda.ptx_check`: compile every CUDA kernel to PTX for sm_90.

The simulator does no type inference, so a kernel that would not compile on a GPU passes its
tests there; this check compiles each kernel of every launcher (`ptx_cases()`) with
`numba.cuda.compile_ptx` for compute capability 9.0, which needs libNVVM but no GPU. It prints
one line per kernel, then the ops that have no CUDA kernel, and exits non-zero if any kernel
fails. Run it without NUMBA_ENABLE_CUDASIM. `--cases MODULE` adds the `ptx_cases()` of a module of
a layer above (ember.jit's generated kernels: `--cases ember.jit.cuda_codegen`), which core cannot import.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time

__all__ = ["CC", "main"]

CC = (9, 0)


def _no_device_needed() -> None:
    # Device functions called from a kernel are compiled by their dispatcher for the current
    # device's compute capability, which needs a driver; name the target instead.
    import numba.cuda.dispatcher as dispatcher

    class _Target:
        compute_capability = CC

    dispatcher.get_current_device = lambda: _Target()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only kernels whose label contains this")
    parser.add_argument("--cases", action="append", default=[], metavar="MODULE",
                        help="also compile the kernels of this module's ptx_cases() (repeatable)")
    args = parser.parse_args(argv)
    from numba import config

    if config.ENABLE_CUDASIM:
        print("ptx_check: unset NUMBA_ENABLE_CUDASIM (the simulator cannot compile PTX)", file=sys.stderr)
        return 2
    from numba import cuda

    from ember.core.cuda import registry

    _no_device_needed()
    registry.register_all()
    failed = total = 0
    start = time.perf_counter()
    modules = [(name, f"ember.core.cuda.{name}") for name in registry.LAUNCHERS] + [(m, m) for m in args.cases]
    for module, path in modules:
        for label, fn, sig in importlib.import_module(path).ptx_cases():
            if args.k not in label:
                continue
            total += 1
            try:
                cuda.compile_ptx(fn, sig, cc=CC)
            except Exception as exc:  # report every failure, not just the first
                failed += 1
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                print(f"FAIL {module}.{label}: {type(exc).__name__}: {first}")
            else:
                print(f"ok   {module}.{label}")
    missing = registry.missing_cuda_kernels()
    print(f"\n{total - failed}/{total} kernels compiled to PTX for sm_{CC[0]}{CC[1]} "
          f"in {time.perf_counter() - start:.1f} s")
    print(f"ops without a CUDA kernel ({len(missing)}): {', '.join(missing) or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
