"""`Chi2(df)`: the sum of `df` squared standard normals, Gamma(df / 2, 1 / 2)."""

from __future__ import annotations

from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions.gamma import Gamma
from ember.torch.distributions.utils import broadcast_all

__all__ = ["Chi2"]


class Chi2(Gamma):
    """The chi-squared distribution with `df` degrees of freedom (reparametrised through Gamma)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args: bool | None = None) -> None:
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(Size(batch_shape), new)

    @property
    def df(self):
        return self.concentration * 2
