"""`torch.nn.modules.transformer`: PyTorch's module path for these ember.nn layers and its helpers."""

from ember.nn.modules.transformer import (
    Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer,
)
from ember.nn.modules.transformer import (  # noqa: F401 - private helpers that code imports from this path
    _detect_is_causal_mask, _generate_square_subsequent_mask, _get_activation_fn, _get_clones, _get_seq_len,
)

__all__ = [
    "Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
    "TransformerEncoderLayer"
]
