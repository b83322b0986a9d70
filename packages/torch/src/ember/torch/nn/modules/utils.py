"""`torch.nn.modules.utils`: PyTorch's module path for ember.nn's argument normalisers."""

from ember.nn.modules.utils import (  # noqa: F401 - private helpers custom layers import
    _list_with_default, _ntuple, _pair, _quadruple, _reverse_repeat_tuple, _single, _triple,
    consume_prefix_in_state_dict_if_present,
)

__all__ = ["consume_prefix_in_state_dict_if_present"]
