"""`torch.nn.attention.varlen`: PyTorch's CPU refusal, and the math path ember runs on CUDA, against per-sequence
scaled dot product attention."""

import numpy as np
import pytest

import ember.autograd as torch
import ember.nn.functional as F
from ember.nn.attention.varlen import AuxRequest, _varlen_math, varlen_attn, varlen_attn_out


def _packed():
    torch.manual_seed(0)
    q, k, v = (torch.randn(7, 2, 4, dtype=torch.float64) for _ in range(3))
    return q, k, v, torch.tensor([0, 3, 7], dtype=torch.int32)


def test_cpu_tensors_are_refused_after_the_head_checks():
    q, k, v, cu = _packed()
    with pytest.raises(NotImplementedError, match="^Could not run 'aten::_flash_attention_forward' with arguments "
                                                  "from the 'CPU' backend"):
        varlen_attn(q, k, v, cu, cu, 4, 4)
    with pytest.raises(NotImplementedError, match="_flash_attention_forward_no_dropout_inplace"):
        varlen_attn_out(torch.empty_like(q), q, k, v, cu, cu, 4, 4)
    with pytest.raises(ValueError, match=r"^Expect query and key/value to have the same number of heads but got "
                                         r"Hq=2 and Hkv=3\. Try setting enable_gqa=True for GQA\.$"):
        varlen_attn(q, torch.randn(7, 3, 4), v, cu, cu, 4, 4)
    with pytest.raises(ValueError, match="^Expect number of query heads to be a multiple of kv heads for GQA"):
        varlen_attn(q, torch.randn(7, 3, 4), v, cu, cu, 4, 4, enable_gqa=True)
    assert AuxRequest() == (False,) and AuxRequest._fields == ("lse",)


@pytest.mark.parametrize("window, causal", [((-1, -1), False), ((-1, 0), True)])
def test_math_path_matches_each_sequence_attention(window, causal):
    q, k, v, cu = _packed()
    out, lse = _varlen_math(q, k, v, cu, cu, None, window, False, None)
    for a, b in ((0, 3), (3, 7)):
        ref = F.scaled_dot_product_attention(q[a:b].transpose(0, 1), k[a:b].transpose(0, 1), v[a:b].transpose(0, 1),
                                             is_causal=causal).transpose(0, 1)
        np.testing.assert_allclose(out[a:b].numpy(), ref.numpy(), rtol=1e-12, atol=1e-12)
    scores = np.einsum("qhd,khd->hqk", q[:3].numpy(), k[:3].numpy()) / 2.0
    if causal:
        scores = np.where(np.tril(np.ones((3, 3), bool)), scores, -np.inf)
    ref_lse = np.log(np.exp(scores).sum(-1)).T
    np.testing.assert_allclose(lse[:3].numpy(), ref_lse, rtol=1e-12)
