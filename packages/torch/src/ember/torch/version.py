"""`torch.version`: the PyTorch version ember follows and its build facts (no CUDA/ROCm toolkit is
linked: ember's CUDA backend is Numba's, found at run time)."""

from ember.torch._version import __version__

__all__ = ["__version__", "cuda", "hip", "rocm", "xpu", "debug", "git_version"]

cuda = hip = rocm = xpu = None
debug = False
git_version = "Unknown"
