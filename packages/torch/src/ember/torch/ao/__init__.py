"""`torch.ao`: of PyTorch's architecture-optimization tree, the float module fusion used for inference
(`ao.quantization.fuse_modules`) and the fused module classes it builds (`ao.nn.intrinsic`); quantization is absent."""

from ember.torch.ao import nn, quantization  # noqa: F401
