"""`torch.return_types`: the result tuples of several results (`torch.return_types.max`, `.topk`, `.sort` ...),
importable as a module as PyTorch's is; the classes are ember.core's own. Each is a pytree node, as PyTorch
registers them: its fields are the children (keyed by position), no context."""

from ember.core.ops.structseq import return_types as _classes
from ember.torch.utils._pytree import SequenceKey as _SequenceKey
from ember.torch.utils._pytree import register_pytree_node as _register

globals().update(vars(_classes))
__all__ = sorted(vars(_classes))


def _register_structseq(cls) -> None:
    _register(cls, lambda r: (list(r), None), lambda values, context: cls(values),
              flatten_with_keys_fn=lambda r: ([(_SequenceKey(i), v) for i, v in enumerate(r)], None))


for _cls in vars(_classes).values():
    _register_structseq(_cls)
del _cls
