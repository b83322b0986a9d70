"""`torch.nn.modules.distance`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.extra import CosineSimilarity, PairwiseDistance

__all__ = ["CosineSimilarity", "PairwiseDistance"]
