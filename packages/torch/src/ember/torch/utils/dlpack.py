"""`torch.utils.dlpack`: DLPack exchange with other array libraries (numpy, CuPy, JAX): `from_dlpack`, the legacy
`to_dlpack` capsule, and the device codes `__dlpack_device__` reports."""

from ember.core.cuda.interop import DLDeviceType, from_dlpack, to_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]
