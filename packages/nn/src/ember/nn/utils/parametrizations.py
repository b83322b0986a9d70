"""`parametrizations.weight_norm`: weight = g * v / ||v|| as a parametrization (originals
`original0` = g, `original1` = v), PyTorch's current API."""

from __future__ import annotations

from ember.core import Tensor
from ember.nn.modules.module import Module
from ember.nn.utils import parametrize
from ember.nn.utils.weight_norm import norm_except_dim

__all__ = ["weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / norm_except_dim(weight_v, 2, self.dim))

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrise `module.<name>` by its magnitude and direction (Salimans & Kingma, 2016)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module
