"""`torch.return_types`: the named tuples of several results (`torch.return_types.max`, `.topk`, `.sort` ...),
importable as a module as PyTorch's is; the classes are ember.core's own."""

from ember.core.ops.structseq import return_types as _classes

globals().update(vars(_classes))
__all__ = sorted(vars(_classes))
