"""nn modules on nested tensors (ember.core.nested): a strided nested tensor has no shape, so LayerNorm leaves its
check to F.layer_norm, which normalizes each component; Linear and LayerNorm on a jagged one act on its buffer."""

import numpy as np
import pytest

import ember.autograd as E
import ember.nn as nn
from ember.core.nested import jagged, nested_tensor

RNG = np.random.default_rng(5)
PARTS = [RNG.standard_normal((2, 4)), RNG.standard_normal((3, 4))]


def _layer_norm(x, w, b, eps=1e-5):
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


@pytest.mark.parametrize("layout", [None, jagged])
def test_layer_norm_and_linear_per_component(layout):
    ln, lin = nn.LayerNorm(4).double(), nn.Linear(4, 3).double()
    with E.no_grad():
        ln.weight.copy_(E.tensor([1.0, 2.0, 0.5, -1.0]))
        ln.bias.copy_(E.tensor([0.1, 0.0, -0.2, 0.3]))
    nt = nested_tensor([E.tensor(p) for p in PARTS], layout=layout)
    out = lin(ln(nt))
    assert out.is_nested and out.layout is nt.layout
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    for got, p in zip(out.unbind(), PARTS):
        ref = _layer_norm(p, ln.weight.detach().numpy(), ln.bias.detach().numpy()) @ w.T + b
        np.testing.assert_allclose(got.detach().numpy(), ref, rtol=1e-10, atol=1e-12)


def test_layer_norm_of_strided_nested_needs_affine():
    nt = nested_tensor([E.tensor(p) for p in PARTS])
    with pytest.raises(ValueError, match="^NestedTensor layer_norm requires weight and bias$"):
        nn.LayerNorm(4, elementwise_affine=False).double()(nt)


def test_rms_norm_on_jagged_buffer():
    nt = nested_tensor([E.tensor(p) for p in PARTS], layout=jagged)
    out = nn.RMSNorm(4).double()(nt)
    for got, p in zip(out.unbind(), PARTS):
        ref = p / np.sqrt((p * p).mean(-1, keepdims=True) + np.finfo(np.float64).eps)
        np.testing.assert_allclose(got.detach().numpy(), ref, rtol=1e-10)


@pytest.mark.parametrize("train, same, reason", [
    (True, True, "training is enabled"),
    (False, False, "non-self attention was used (query, key, and value are not the same Tensor)"),
    (False, True, "some Tensor argument has_torch_function")])
def test_multihead_attention_refuses_nested_as_pytorch(train, same, reason):
    nt = nested_tensor([E.tensor(p) for p in PARTS], layout=jagged)
    mha = nn.MultiheadAttention(4, 2, batch_first=True).double().train(train)
    with pytest.raises(AssertionError, match="^MultiheadAttention does not support NestedTensor outside of its fast "
                                             f"path. The fast path was not hit because {reason}$".replace("(", "\\(")
                                             .replace(")", "\\)")):
        mha(nt, nt if same else nt.clone(), nt)


def test_encoder_fast_path_warns_pytorchs_nested_prototype_warning_once():
    """PyTorch packs the unpadded tokens into a strided nested tensor there, which warns once a process."""
    import warnings

    from ember.core.ops import _util

    _util._warned_once.discard(_util.NESTED_PROTOTYPE)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2).eval()
    mask = E.tensor([[False] * 5, [False] * 3 + [True] * 2])
    with warnings.catch_warnings(record=True) as seen, E.no_grad():
        warnings.simplefilter("always")
        enc(E.randn(2, 5, 8), src_key_padding_mask=mask)
        enc(E.randn(2, 5, 8), src_key_padding_mask=mask)
    assert [str(w.message) for w in seen] == [_util.NESTED_PROTOTYPE]
