"""The `torch.*` spellings of functional layers and losses: ATen's signatures (integer reductions)
over ember.nn.functional, against PyTorch's values and against the functional forms."""

from __future__ import annotations

import numpy as np
import pytest

import ember.nn.functional as F
import ember.torch as et


def _t(a):
    return et.tensor(a)


def test_integer_reductions_map_to_the_functional_ones():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 4)), rng.uniform(0.1, 1, (3, 4))
    for code, name in enumerate(("none", "mean", "sum")):
        np.testing.assert_allclose(et.kl_div(_t(x), _t(y), code).numpy(),
                                   F.kl_div(_t(x), _t(y), reduction=name).numpy() if name != "mean" else
                                   F.kl_div(_t(x), _t(y), reduction="sum").numpy() / 12)
    with pytest.raises(ValueError, match="5 is not a valid value for reduction"):
        et.hinge_embedding_loss(_t(x), _t(np.sign(y)), 1.0, 5)
    z = _t(np.array([-1.0, 2.0]))
    assert et.threshold_(z, 0.0, 5.0) is z and z.tolist() == [5.0, 2.0]


@pytest.mark.torch
def test_torch_spellings_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal((4, 5)) for _ in range(3))
    s = np.sign(rng.standard_normal(4))
    cases = [
        ("cosine_embedding_loss", (a, b, s, 0.2, 0)), ("hinge_embedding_loss", (a, np.sign(b), 0.5, 2)),
        ("margin_ranking_loss", (a[:, 0], b[:, 0], s, 0.1, 1)), ("kl_div", (a, np.abs(b), 1)),
        ("poisson_nll_loss", (a, np.abs(b), True, True, 1e-8, 0)),
        ("triplet_margin_loss", (a, b, c, 1.0, 2.0, 1e-6, True, 1)),
        ("binary_cross_entropy_with_logits", (a, np.abs(b) / 3, None, np.ones(5) * 2, 2)),
        ("pairwise_distance", (a, b, 1.5, 1e-6, True)),
        ("conv_tbc", (rng.standard_normal((6, 2, 3)), rng.standard_normal((2, 3, 4)), rng.standard_normal(4), 1)),
        ("channel_shuffle", (rng.standard_normal((2, 6, 2)), 3)),
        ("native_channel_shuffle", (rng.standard_normal((2, 6, 2)), 2)),
    ]
    for name, args in cases:
        want = getattr(torch, name)(*[torch.tensor(v) if isinstance(v, np.ndarray) else v for v in args])
        got = getattr(et, name)(*[_t(v) if isinstance(v, np.ndarray) else v for v in args])
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, err_msg=name)
    x = rng.standard_normal((2, 3, 8))
    want = torch.max_pool1d_with_indices(torch.tensor(x), 3, 2, 1)
    got = et.max_pool1d_with_indices(_t(x), 3, 2, 1)
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    for fn in ("alpha_dropout", "feature_alpha_dropout"):
        assert getattr(et, fn)(_t(a), 0.5, False).tolist() == getattr(torch, fn)(torch.tensor(a), 0.5, False).tolist()
