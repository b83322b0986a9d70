"""`torch.version`: the PyTorch release ember follows and what this build was made with (no CUDA
toolkit is linked: ember compiles its CUDA kernels with Numba at run time)."""

from ember.torch._version import __version__ as _torch_version

__version__ = str.__str__(_torch_version)  # a plain str here, as in PyTorch (torch.__version__ is the TorchVersion)

cuda = None
hip = None
xpu = None
debug = False
git_version = "ember"

__all__ = ["__version__", "cuda", "hip", "xpu", "debug", "git_version"]
