"""`torch.nested`: nested (ragged) tensors in the strided and jagged layouts (`ember.core.nested`,
NOTE [ Nested tensors ])."""

from ember.core.nested import (
    as_nested_tensor, masked_select, narrow, nested_tensor, nested_tensor_from_jagged, to_padded_tensor,
)

__all__ = ["nested_tensor", "as_nested_tensor", "nested_tensor_from_jagged", "to_padded_tensor", "narrow",
           "masked_select"]
