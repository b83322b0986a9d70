"""The check for a machine with a real GPU: ember-core's CUDA tests, then kernel figures against
the device's own limits. Finishes in well under 5 minutes.

    PYTHONPATH=packages/core/src python scripts/gpu_check.py [--skip-tests] [--quick]

1. runs `pytest -m cuda packages/core/tests` on the GPU (the same tests the simulator runs);
2. checks results at real sizes against numpy (a 2048^2 matmul, a 16M-element reduction);
3. prints elementwise GB/s (x + y) against a device-to-device copy, matmul TFLOP/s against
   CuPy or PyTorch when importable, and caching-allocator malloc/free microseconds against a raw
   Numba device allocation.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _timed(fn, repeat: int) -> float:
    """Mean seconds per call of `fn` on the device, measured with CUDA events after a warm-up."""
    import ember.core as E

    fn()
    E.cuda.synchronize()
    start, end = E.cuda.Event(enable_timing=True), E.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeat):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3 / repeat


def run_tests() -> bool:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "packages" / "core" / "src")}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", "cuda", "-x", "-p", "no:cacheprovider",
                        str(ROOT / "packages" / "core" / "tests")], env=env, timeout=200)
    print(f"CUDA tests: {'passed' if r.returncode == 0 else 'FAILED'} in {time.perf_counter() - t:.0f} s")
    return r.returncode == 0


def check_real_sizes() -> bool:
    import ember.core as E

    rng = np.random.default_rng(0)
    a = rng.standard_normal((2048, 2048)).astype(np.float32)
    b = rng.standard_normal((2048, 2048)).astype(np.float32)
    got = (E.from_numpy(a).cuda() @ E.from_numpy(b).cuda()).cpu().numpy()
    ok_mm = np.allclose(got[:64], (a[:64].astype(np.float64) @ b.astype(np.float64)), rtol=1e-3, atol=1e-2)
    x = rng.standard_normal(16 << 20).astype(np.float32)
    s = E.from_numpy(x).cuda().sum().item()
    ok_sum = abs(s - x.astype(np.float64).sum()) < 1e-3 * np.abs(x).sum()
    print(f"real sizes: matmul 2048^2 {'ok' if ok_mm else 'WRONG'}, sum of 16M {'ok' if ok_sum else 'WRONG'}")
    return ok_mm and ok_sum


def bench(quick: bool) -> None:
    from numba import cuda

    import ember.core as E
    from ember.core.cuda import raw_backends, storage

    n = (16 if quick else 64) << 20
    x, y = E.ones(n, device="cuda"), E.ones(n, device="cuda")
    out = E.empty(n, device="cuda")
    t_add = _timed(lambda: E.add(x, y, out=out), 20)
    src, dst = cuda.device_array(n, np.float32), cuda.device_array(n, np.float32)
    t_copy = _timed(lambda: dst.copy_to_device(src), 20)
    print(f"elementwise add: {3 * 4 * n / t_add / 1e9:8.1f} GB/s   device-to-device copy: "
          f"{2 * 4 * n / t_copy / 1e9:8.1f} GB/s   ({n >> 20}M float32)")

    m = 2048 if quick else 4096
    a, b = E.randn(m, m, device="cuda"), E.randn(m, m, device="cuda")
    t_mm = _timed(lambda: E.mm(a, b), 3)
    line = f"matmul {m}^3: ember {2 * m ** 3 / t_mm / 1e12:6.2f} TFLOP/s"
    try:
        import cupy

        ca, cb = cupy.asarray(a), cupy.asarray(b)
        t_cp = _timed(lambda: cupy.matmul(ca, cb), 3)
        line += f"   CuPy {2 * m ** 3 / t_cp / 1e12:6.2f} TFLOP/s"
    except ImportError:
        try:
            import torch

            ta, tb = torch.randn(m, m, device="cuda"), torch.randn(m, m, device="cuda")
            t_t = _timed(lambda: torch.mm(ta, tb), 3)
            line += f"   PyTorch {2 * m ** 3 / t_t / 1e12:6.2f} TFLOP/s"
        except ImportError:
            line += "   (neither CuPy nor PyTorch installed)"
    print(line)

    alloc = storage.allocator(0)
    nbytes, reps = 1 << 20, 2000
    alloc.free(alloc.malloc(nbytes))
    t = time.perf_counter()
    for _ in range(reps):
        alloc.free(alloc.malloc(nbytes))
    t_cached = (time.perf_counter() - t) / reps
    raw = raw_backends.NumbaRawBackend(0)
    t = time.perf_counter()
    for _ in range(reps // 10):
        raw.free(raw.malloc(nbytes))
    cuda.synchronize()
    t_raw = (time.perf_counter() - t) / (reps // 10)
    print(f"1 MiB malloc+free: caching allocator {t_cached * 1e6:7.1f} us   raw device allocation "
          f"{t_raw * 1e6:7.1f} us")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-tests", action="store_true", help="only the real-size checks and figures")
    parser.add_argument("--quick", action="store_true", help="smaller benchmark sizes")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "packages" / "core" / "src"))
    from numba import config

    if config.ENABLE_CUDASIM:
        print("gpu_check: needs a real GPU; unset NUMBA_ENABLE_CUDASIM", file=sys.stderr)
        return 2
    import ember.core as E

    if not E.cuda.is_available():
        print("gpu_check: no CUDA device", file=sys.stderr)
        return 2
    ok = True
    start = time.perf_counter()
    if not args.skip_tests:
        ok = run_tests() and ok
    ok = check_real_sizes() and ok
    bench(args.quick)
    print(f"gpu_check: {'ok' if ok else 'FAILED'} in {time.perf_counter() - start:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
