"""`torch.__config__`: what this build is made of (`show`) and its threading (`parallel_info`), as text."""

import numpy as np

__all__ = ["show", "parallel_info"]


def show() -> str:
    """The libraries ember computes with, in place of PyTorch's compiler and BLAS report."""
    import numba

    return (f"ember built with:\n  - numpy {np.__version__}\n  - numba {numba.__version__} (CPU kernels; CUDA "
            "kernels compiled at run time)\n")


def parallel_info() -> str:
    """The thread counts of the parallel CPU kernels."""
    from ember.core import get_num_interop_threads, get_num_threads

    return (f"ATen/Parallel:\n\tat::get_num_threads() : {get_num_threads()}\n"
            f"\tat::get_num_interop_threads() : {get_num_interop_threads()}\n")
