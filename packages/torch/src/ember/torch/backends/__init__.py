"""`torch.backends`: the switches of ember.autograd.backends under PyTorch's module paths, so that
`import torch.backends.cudnn as cudnn` works and `cudnn.benchmark = True` sets the one shared flag."""

from ember.autograd import backends as _backends
from ember.autograd.backends import cuda, cudnn, mha, mkl, mkldnn, mps, openmp

import sys as _sys

# each switch object stands as its own submodule, as PyTorch's do
for _name in ("cudnn", "cuda", "mps", "mkldnn", "mkl", "openmp", "mha"):
    _sys.modules[f"{__name__}.{_name}"] = getattr(_backends, _name)

__all__ = ["cudnn", "cuda", "mps", "mkldnn", "mkl", "openmp", "mha"]
