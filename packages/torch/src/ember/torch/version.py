"""`torch.version`: the PyTorch release ember follows and what this build was made with (no CUDA
toolkit is linked: ember compiles its CUDA kernels with Numba at run time)."""

from ember.torch._version import __version__

cuda = None
hip = None
xpu = None
debug = False
git_version = "ember"

__all__ = ["__version__", "cuda", "hip", "xpu", "debug", "git_version"]
