"""`torch.nested._internal.nested_tensor`: the jagged nested tensor class (`ember.core.nested.NestedTensor`)."""

from ember.core.nested import NestedTensor

__all__ = ["NestedTensor"]
