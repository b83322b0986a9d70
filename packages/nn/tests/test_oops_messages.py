"""Users' common mistakes (tests/api_programs/oops_*.py): PyTorch 2.13's exception type and message, hard-coded."""

from __future__ import annotations

import re

import pytest

import ember.autograd as torch
from ember.nn import functional as F


def _r(*shape, dtype=torch.float32):
    return torch.ones(*shape, dtype=dtype)


_L = torch.int64
ERRORS = [
    ("sdpa with another key size",
     lambda: F.scaled_dot_product_attention(_r(2, 4, 5, 8), _r(2, 4, 6, 6), _r(2, 4, 6, 8)),
     RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [8, 8] but got: [8, 6]."),
    ("sdpa 2-D with another key size", lambda: F.scaled_dot_product_attention(_r(5, 8), _r(6, 6), _r(6, 8)),
     RuntimeError, "mat1 and mat2 shapes cannot be multiplied (5x8 and 6x6)"),
    ("cross_entropy of integer logits", lambda: F.cross_entropy(_r(4, 3, dtype=_L), _r(4, dtype=_L)),
     NotImplementedError, "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    ("cross_entropy of 3-D integer logits", lambda: F.cross_entropy(_r(4, 3, 2, dtype=_L), _r(4, 2, dtype=_L)),
     NotImplementedError, "\"log_softmax_kernel_impl\" not implemented for 'Long'"),
    ("cross_entropy of swapped arguments", lambda: F.cross_entropy(_r(4, dtype=_L), _r(4, 3)),
     NotImplementedError, "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    ("nll_loss of integer input", lambda: F.nll_loss(_r(4, 3, dtype=_L), _r(4, dtype=_L)),
     NotImplementedError, "\"nll_loss_out_frame\" not implemented for 'Long'"),
    ("nll_loss of 3-D integer input", lambda: F.nll_loss(_r(4, 3, 2, dtype=_L), _r(4, 2, dtype=_L)),
     NotImplementedError, "\"nll_loss2d_forward_out_frame\" not implemented for 'Long'"),
    ("cross_entropy with a Long weight", lambda: F.cross_entropy(_r(4, 3), _r(4, dtype=_L), weight=_r(3, dtype=_L)),
     RuntimeError, "expected scalar type Float but found Long"),
    ("cross_entropy with a Float weight", lambda: F.cross_entropy(_r(4, 3, dtype=torch.float64), _r(4, dtype=_L),
                                                                  weight=_r(3)),
     RuntimeError, "expected scalar type Double but found Float"),
    ("nll_loss: the target dtype before the weight's", lambda: F.nll_loss(_r(4, 3), _r(4, dtype=torch.int32),
                                                                          weight=_r(3, dtype=_L)),
     RuntimeError, "expected target dtype to be Long or Byte, but got Int"),
]


@pytest.mark.parametrize("fn, kind, message", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_pytorchs_message(fn, kind, message):
    with pytest.raises(kind, match="^" + re.escape(message) + "$"):
        fn()
