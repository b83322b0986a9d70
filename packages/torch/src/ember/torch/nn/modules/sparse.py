"""`torch.nn.modules.sparse`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.sparse import Embedding, EmbeddingBag

__all__ = ["Embedding", "EmbeddingBag"]
