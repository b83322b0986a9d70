"""torch.nn.attention.flex_attention: the eager math path against numpy, BlockMask's block lists and picture,
and PyTorch's refusals."""

import numpy as np
import pytest

import ember.autograd as torch
from ember.nn.attention.flex_attention import (AuxRequest, BlockMask, and_masks, create_block_mask, create_mask,
                                               flex_attention, noop_mask, or_masks)

RNG = np.random.default_rng(0)
pytestmark = [pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile"),
              pytest.mark.filterwarnings("ignore:return_lse is deprecated")]


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def test_math_path_matches_numpy_with_score_mod_mask_mod_and_gqa():
    q, k, v = (RNG.standard_normal(s).astype(np.float32) for s in ((2, 4, 6, 8), (2, 2, 6, 8), (2, 2, 6, 5)))
    doc = torch.tensor([0, 0, 1, 1, 1, 2])

    def doc_causal(b, h, q_idx, kv_idx):
        return (doc[q_idx] == doc[kv_idx]) & (q_idx >= kv_idx)

    def bias(score, b, h, q_idx, kv_idx):
        return score + 0.1 * (h + 1) * (kv_idx - q_idx) + 0.5 * b

    bm = create_block_mask(doc_causal, 2, 4, 6, 6, "cpu", BLOCK_SIZE=2)
    out, lse = flex_attention(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), score_mod=bias,
                              block_mask=bm, scale=0.3, enable_gqa=True, return_lse=True)
    kk, vv = np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1)
    s = (q @ kk.transpose(0, 1, 3, 2)).astype(np.float64) * 0.3
    bi, hi, qi, ki = np.ogrid[:2, :4, :6, :6]
    s = s + 0.1 * (hi + 1) * (ki - qi) + 0.5 * bi
    d = np.array([0, 0, 1, 1, 1, 2])
    s = np.where((d[qi] == d[ki]) & (qi >= ki), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(out.numpy(), (p / p.sum(-1, keepdims=True)) @ vv, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(lse.numpy(), np.log(np.exp(s).sum(-1)), rtol=1e-5)
    assert out.shape == (2, 4, 6, 5) and lse.dtype is torch.float32


def test_fully_masked_rows_give_zeros_and_minus_inf_lse():
    q = torch.ones(1, 1, 4, 2)
    out, lse = flex_attention(q, q, q, block_mask=create_block_mask(lambda b, h, m, n: m >= 2, 1, 1, 4, 4, "cpu", 2),
                              return_lse=True)
    assert out[0, 0, :2].abs().sum().item() == 0 and lse[0, 0, :2].tolist() == [float("-inf")] * 2
    assert out[0, 0, 2:].tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_block_mask_lists_padding_sparsity_and_picture():
    # padded to 12 x 12 with masked rows and columns: the last row of blocks is partial throughout (PyTorch's lists)
    bm = create_block_mask(causal, None, None, 10, 10, "cpu", BLOCK_SIZE=4)
    assert bm.shape == (1, 1, 10, 10) and bm.BLOCK_SIZE == (4, 4)
    assert bm.kv_num_blocks.tolist() == [[[1, 1, 3]]] and bm.full_kv_num_blocks.tolist() == [[[0, 1, 0]]]
    assert bm.kv_indices[0, 0, 2].tolist() == [0, 1, 2] and bm.full_kv_indices[0, 0, 1].tolist()[:1] == [0]
    assert bm.q_num_blocks.tolist() == [[[2, 2, 1]]] and bm.full_q_num_blocks.tolist() == [[[1, 0, 0]]]
    assert bm.to_dense()[0, 0].tolist() == [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    assert bm.sparsity() == pytest.approx(100 * (1 - 6 * 16 / 100))
    assert str(bm) == ("BlockMask(shape=(1, 1, 10, 10), sparsity=4.00%, \n(0, 0)\n██    \n████  \n██████\n)")
    assert "mask_mod=causal\n)" in repr(bm) and "Size([1, 1, 3, 3]),\n    full_kv_num_blocks=" in repr(bm)
    joint = BlockMask.from_kv_blocks(bm.kv_num_blocks, bm.kv_indices, bm.full_kv_num_blocks, bm.full_kv_indices,
                                     BLOCK_SIZE=4, seq_lengths=(12, 12))
    assert joint.mask_mod is noop_mask and joint.numel() == 144


def test_mask_combinators_and_create_mask_of_a_score_mod():
    both = and_masks(causal, lambda b, h, m, n: m - n < 2)
    either = or_masks(causal, lambda b, h, m, n: n == 3)
    assert create_mask(both, 1, 1, 4, 4, "cpu")[0, 0].int().tolist() == [[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0],
                                                                       [0, 0, 1, 1]]
    assert create_mask(either, 1, 1, 2, 4, "cpu")[0, 0].int().tolist() == [[1, 0, 0, 1], [1, 1, 0, 1]]
    inf_mod = lambda s, b, h, m, n: torch.where(m >= n, s, float("-inf"))  # noqa: E731
    assert create_mask(inf_mod, None, None, 2, 2, "cpu")[0, 0].tolist() == [[True, False], [True, True]]


def test_refusals_in_pytorchs_words():
    q = torch.ones(1, 2, 4, 8)
    with pytest.raises(ValueError, match="same number of heads but got Hq=2 and Hkv=1. Try setting enable_gqa"):
        flex_attention(q, q[:, :1], q[:, :1])
    with pytest.raises(NotImplementedError, match="does not support backward on CPU"):
        flex_attention(q.clone().requires_grad_(), q, q)
    with pytest.raises(ValueError, match=r"created for block_mask.shape=\(1, 1, 8, 8\) but got q_len=4"):
        flex_attention(q, q, q, block_mask=create_block_mask(causal, 1, 1, 8, 8, "cpu", 4))
    with pytest.raises(NotImplementedError, match="Returning max scores is not supported on CPU/MPS."):
        flex_attention(q, q, q, return_aux=AuxRequest(max_scores=True))
    with pytest.raises(AssertionError, match="create-block_mask requires a mask_mod function"):
        create_block_mask(lambda s, b, h, m, n: s, 1, 1, 4, 4, "cpu")
    with pytest.raises(RuntimeError, match="All inputs should be callable mask_mods"):
        and_masks(causal, 1)


def test_block_mask_slicing_keeps_dims_and_resets_mask_mod():
    bm = create_block_mask(causal, 2, 2, 8, 8, "cpu", BLOCK_SIZE=4)
    one = bm[1]
    assert tuple(one.kv_num_blocks.shape) == (1, 2, 2) and one.shape == (1, 2, 8, 8)
    assert tuple(bm[0, -1].kv_indices.shape) == (1, 1, 2, 2)
    rows = bm[:, :, torch.tensor([1])]
    assert tuple(rows.kv_num_blocks.shape) == (2, 2, 1) and rows.full_q_num_blocks[0, 0].tolist() == [1, 0]
    q = torch.ones(1, 2, 8, 4)
    with pytest.raises(RuntimeError, match="^Cannot use mask_mod from a sliced BlockMask$"):
        flex_attention(q, q, q, block_mask=one)
    with pytest.raises(RuntimeError, match="Use base_mask!"):
        one.mask_mod(0, 0, 0, 0)
    one.mask_mod = bm.mask_mod
    assert flex_attention(q, q, q, block_mask=one).shape == (1, 2, 8, 4)


def test_adjust_crops_block_lists_to_the_upper_left_corner_and_to_copies():
    # PyTorch 2.13's lists for a 16 x 16 sliding-window mask in 4 x 4 blocks, cropped to 5 x 11 (3 key blocks)
    bm = create_block_mask(lambda b, h, m, n: (m >= n) & (m - n < 6), 1, 2, 16, 16, "cpu", BLOCK_SIZE=4)
    cut = bm._adjust(5, 11)
    assert cut.shape == (1, 2, 5, 11) and tuple(cut.kv_indices.shape) == (1, 2, 2, 3)
    assert cut.kv_num_blocks.tolist() == [[[1, 2], [1, 2]]] and cut.full_kv_num_blocks.tolist() == [[[0, 0], [0, 0]]]
    assert cut.q_num_blocks.tolist() == [[[2, 1, 0], [2, 1, 0]]] and f"{cut.sparsity():.2f}" == "12.73"
    moved = bm.to("cpu")
    assert moved is not bm and moved.mask_mod is bm.mask_mod and moved.kv_indices.tolist() == bm.kv_indices.tolist()
