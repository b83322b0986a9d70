"""`torch.special`: the special functions ember.core implements, under PyTorch's names. Functions ember
does not implement (gammaln, digamma, i0, ndtr ...) are absent rather than approximated."""

from ember.autograd import erf, erfinv, exp2, expm1, log1p, log_softmax, logsumexp, round, softmax, xlogy
from ember.autograd import sigmoid as expit

__all__ = ["erf", "erfinv", "exp2", "expit", "expm1", "log1p", "log_softmax", "logsumexp", "round", "softmax",
           "xlogy"]
