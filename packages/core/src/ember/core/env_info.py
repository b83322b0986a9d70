"""The environment a bug report needs: ember's packages, numpy, Numba, the BLAS and its threads,
the CPU and its features, and the CUDA driver and device (PyTorch's `collect_env`).

Run `python -m ember.core.env_info` and paste its output into the report.
"""

from __future__ import annotations

import os
import platform
import sys
from importlib.metadata import PackageNotFoundError, distributions, version

__all__ = ["collect_env", "get_pretty_env_info", "main"]

# the CPU features that decide which kernels Numba and the BLAS can use
_CPU_FEATURES = ("sse4.2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512bf16",
                 "avx512fp16", "amx-tile", "neon", "sve")


def _version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def _ember_packages() -> dict[str, str]:
    found = {d.metadata["Name"]: d.version for d in distributions() if (d.metadata["Name"] or "").startswith("ember-")}
    return dict(sorted(found.items()))


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _cpu() -> dict:
    info: dict = {"model": _cpu_model(), "machine": platform.machine(), "logical_cores": os.cpu_count()}
    if hasattr(os, "sched_getaffinity"):
        info["usable_cores"] = len(os.sched_getaffinity(0))
    try:
        import llvmlite.binding as llvm

        features = llvm.get_host_cpu_features()
        info["llvm_name"] = llvm.get_host_cpu_name()
        info["features"] = [f for f in _CPU_FEATURES if features.get(f, False)]
    except Exception as exc:  # noqa: BLE001 - a report should say what it could not read, not fail
        info["features"] = f"unavailable ({type(exc).__name__})"
    return info


def _threads() -> dict:
    from threadpoolctl import threadpool_info

    import numba

    pools = [{k: pool.get(k) for k in ("user_api", "internal_api", "version", "num_threads", "threading_layer",
                                        "architecture", "filepath")} for pool in threadpool_info()]
    return {"numba_threads": numba.get_num_threads(), "numba_threading_layer": numba.config.THREADING_LAYER,
            "pools": pools}


def _cuda() -> dict:
    """Driver, runtime and devices; `available: False` with the reason where there is no GPU."""
    simulator = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
    try:
        from numba import cuda
    except ImportError as exc:
        return {"available": False, "reason": f"numba.cuda cannot be imported ({exc})"}
    if simulator:
        return {"available": True, "simulator": True}
    try:
        if not cuda.is_available():
            from numba.cuda.cudadrv import driver

            try:
                driver.driver.get_version()
                reason = "no CUDA device"
            except Exception as exc:  # noqa: BLE001 - Numba raises its own CudaSupportError
                reason = " ".join(str(exc).split()).rstrip(": ") or type(exc).__name__
            return {"available": False, "reason": reason}
        from numba.cuda.cudadrv import driver, runtime

        devices = [{"name": d.name.decode() if isinstance(d.name, bytes) else d.name,
                    "compute_capability": ".".join(map(str, d.compute_capability))} for d in cuda.list_devices()]
        return {"available": True, "driver": ".".join(map(str, driver.driver.get_version())),
                "runtime": ".".join(map(str, runtime.runtime.get_version())), "devices": devices}
    except Exception as exc:  # noqa: BLE001 - a report should say what it could not read, not fail
        return {"available": False, "reason": f"{type(exc).__name__}: {exc}"}


def collect_env() -> dict:
    """The environment as a dict (what `ember-bench` stores in its results.json)."""
    return {
        "ember": _ember_packages(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "versions": {d: _version(d) for d in ("numpy", "numba", "llvmlite", "numba-cuda", "threadpoolctl")},
        "cpu": _cpu(),
        "threads": _threads(),
        "cuda": _cuda(),
        "environment_variables": {k: v for k, v in sorted(os.environ.items())
                                  if k.startswith(("EMBER_", "NUMBA_", "OMP_", "OPENBLAS_", "MKL_"))},
    }


def _lines(value: object, indent: str) -> list[str]:
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                out += [f"{indent}{key}:", *_lines(item, indent + "  ")]
            else:
                out.append(f"{indent}{key}: {item}")
        return out
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [f"{indent}{', '.join(value)}"]
    if isinstance(value, list):  # of dicts: a YAML-like item per entry
        out = []
        for item in value:
            lines = _lines(item, indent + "  ")
            out += [indent + "- " + lines[0].lstrip(), *lines[1:]]
        return out
    return [f"{indent}{value}"]


def get_pretty_env_info() -> str:
    """The environment as indented text, one fact a line."""
    return "\n".join(_lines(collect_env(), ""))


def main() -> None:
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()
