"""`torch.nn.modules.loss`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.loss import (
    BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss, GaussianNLLLoss, HingeEmbeddingLoss,
    HuberLoss, KLDivLoss, L1Loss, MSELoss, MarginRankingLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, NLLLoss,
    PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss, TripletMarginLoss,
)
from ember.nn.modules.loss import _Loss, _WeightedLoss  # noqa: F401 - base classes programs subclass

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CosineEmbeddingLoss", "CrossEntropyLoss", "GaussianNLLLoss",
    "HingeEmbeddingLoss", "HuberLoss", "KLDivLoss", "L1Loss", "MSELoss", "MarginRankingLoss",
    "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss", "PoissonNLLLoss", "SmoothL1Loss", "SoftMarginLoss",
    "TripletMarginLoss"
]

from ember.nn.modules.loss_extra import (  # noqa: E402
    CTCLoss, MultiLabelMarginLoss, NLLLoss2d, TripletMarginWithDistanceLoss,
)

__all__ += ["CTCLoss", "MultiLabelMarginLoss", "NLLLoss2d", "TripletMarginWithDistanceLoss"]

from ember.nn.modules.linear_cross_entropy import LinearCrossEntropyLoss  # noqa: E402

__all__ += ["LinearCrossEntropyLoss"]
