"""Which launcher modules register CUDA kernels, and which ops still lack one.

`register_all()` runs once, when `ember.core.cuda` is first used; `ptx_check` reads the same
list to compile every kernel ahead of time.
"""

from __future__ import annotations

import importlib

from ember.core.dispatch import registered_ops

__all__ = ["LAUNCHERS", "register_all", "missing_cuda_kernels"]

LAUNCHERS = ("launch_elementwise", "launch_reduce", "launch_linalg", "launch_activation",
             "launch_softmax", "launch_indexing", "launch_join",
             "launch_conv", "launch_pool",
             "launch_random", "launch_sort", "launch_advindex", "launch_optim",
             "launch_select",
             "launch_linalg_solvers", "launch_special", "launch_nn_extra",
             "launch_complex")  # last: it wraps the kernels the others registered


def register_all() -> None:
    """Import every launcher and register its kernels against the ops that exist now."""
    import ember.core  # noqa: F401 - every op of core is declared before the kernels register

    for name in LAUNCHERS:
        importlib.import_module(f"ember.core.cuda.{name}").register()


def missing_cuda_kernels() -> list[str]:
    """Names of declared ops with no kernel for CUDA (neither "cuda" nor "any")."""
    return sorted(name for name, op in registered_ops().items()
                  if "cuda" not in op.kernels and "any" not in op.kernels)
