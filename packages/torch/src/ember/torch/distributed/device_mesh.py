"""`torch.distributed.device_mesh`: ember-distributed's `DeviceMesh` and `init_device_mesh`."""

from ember.distributed.device_mesh import DeviceMesh, init_device_mesh

__all__ = ["DeviceMesh", "init_device_mesh"]
