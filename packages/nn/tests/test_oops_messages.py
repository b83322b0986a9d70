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


def _raises(kind, message, fn):
    with pytest.raises(kind, match="^" + re.escape(message) + "$"):
        fn()


def _identity(x):
    return x


def test_a_non_module_is_named_as_torch_typename_names_it():
    from ember import nn

    _raises(TypeError, "ember.nn.modules.activation.ReLU is not a Module subclass", lambda: nn.Sequential(nn.ReLU))
    _raises(TypeError, f"{__name__}._identity is not a Module subclass", lambda: nn.Sequential(_identity))
    _raises(TypeError, "ember._VariableFunctionsClass.relu is not a Module subclass", lambda: nn.Sequential(torch.relu))
    _raises(TypeError, "ember.nn.functional.relu is not a Module subclass", lambda: nn.Sequential(F.relu))
    _raises(TypeError, "str is not a Module subclass", lambda: nn.ModuleList(["relu"]))


def test_parameter_of_a_non_tensor_and_a_missing_parameter_dict_key():
    from ember import nn

    _raises(AttributeError, "'list' object has no attribute 'detach'", lambda: nn.Parameter([1.0, 2.0]))
    pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(1))})
    _raises(AttributeError, "'ParameterDict' object has no attribute 'v'", lambda: pd["v"])
    assert pd.get("v") is None and pd["w"].shape == (1,)


_PAD = "pad(): argument 'pad' (position 2) must be tuple of ints"


@pytest.mark.parametrize("pad, message", [
    (1, f"{_PAD}, not int"), (None, f"{_PAD}, not NoneType"), ("ab", f"{_PAD}, not str"),
    ((1.0, 1), f"{_PAD}, but found element of type float at pos 0"),
    ((True, 1), f"{_PAD}, but found element of type bool at pos 0"),
    ((torch.tensor(1.0), 1), f"{_PAD}, but found element of type Tensor at pos 0"),
    ((1, 1.5), "pad(): argument 'pad' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but "
               "got float\""),
])
def test_pad_refuses_what_is_no_tuple_of_ints(pad, message):
    _raises(TypeError, message, lambda: F.pad(_r(1, 2, 4, 4), pad))


def test_pad_takes_int_likes():
    import numpy as np

    assert F.pad(_r(1, 2, 4, 4), (torch.tensor(1), np.int64(1))).shape == (1, 2, 4, 6)


def test_clip_grad_norm_reads_norm_type_before_looking_for_gradients():
    from ember import nn

    _raises(ValueError, "could not convert string to float: 'l2'",
            lambda: nn.utils.clip_grad_norm_([torch.ones(1, requires_grad=True)], 1.0, norm_type="l2"))
