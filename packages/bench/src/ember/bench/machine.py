"""What the numbers were measured on: CPU, cores, BLAS, library versions."""

from __future__ import annotations

import os
import platform
import sys
from importlib.metadata import PackageNotFoundError, version

import numpy as np

__all__ = ["describe_machine"]


def _version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def _blas() -> str:
    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg.get("Build Dependencies", {}).get("blas", {})
        return f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:  # noqa: BLE001 - numpy's config layout varies between versions
        return "unknown"


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe_machine() -> dict:
    return {
        "cpu": _cpu(),
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "blas": _blas(),
        "versions": {d: _version(d) for d in ("ember-core", "ember-autograd", "ember-nn", "ember-data",
                                             "ember-bench", "numpy", "numba", "numba-cuda", "torch")},
    }
