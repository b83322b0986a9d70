"""scaled_dot_product_attention under the enabled backends (`sdpa_kernel`, `torch.backends.cuda`'s switches):
PyTorch 2.13's CPU choice between its flash kernel and the math path, and its refusals."""

import warnings

import numpy as np
import pytest

import ember.autograd as torch
from ember.autograd.backends import cuda
from ember.nn import functional as F
from ember.nn.attention import SDPBackend, _cur_sdpa_kernel_backends, sdpa_kernel

SDP_CPP = "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/transformers/sdp_utils_cpp"


def attention_ref(q, k, v):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


def _qkv(shape=(1, 2, 3, 4), seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for _ in range(3)]


def test_math_backend_names_the_math_graph_and_computes_the_same_values():
    q, k, v = _qkv()
    args = [torch.tensor(a, requires_grad=True) for a in (q, k, v)]
    default = F.scaled_dot_product_attention(*args)
    with sdpa_kernel(SDPBackend.MATH):
        math = F.scaled_dot_product_attention(*args)
        low = F.scaled_dot_product_attention(*(a.detach().bfloat16().requires_grad_() for a in args))
    assert default.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert math.grad_fn.name() == "UnsafeViewBackward0" and low.grad_fn.name() == "ToCopyBackward0"
    np.testing.assert_allclose(math.detach().numpy(), attention_ref(q, k, v), rtol=1e-12)
    np.testing.assert_allclose(default.detach().numpy(), attention_ref(q, k, v), rtol=1e-12)


def test_flash_alone_refuses_what_its_kernel_cannot_take_after_saying_why():
    q = torch.randn(2, 3, 4)
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert tuple(F.scaled_dot_product_attention(q[None], q[None], q[None]).shape) == (1, 2, 3, 4)
        with pytest.raises(RuntimeError, match=r"^No available kernel\.  Aborting execution\.$"):
            F.scaled_dot_product_attention(q, q, q)
        with pytest.raises(RuntimeError, match="No available kernel"):
            F.scaled_dot_product_attention(q[None], q[None], q[None], dropout_p=0.1)
    assert [str(w.message) for w in seen] == [
        f"Flash attention kernel not used because: {SDP_CPP}.cpp:99.)",
        "All fused kernels requires query, key and value to be 4 dimensional, but got Query dim: 3, Key dim: 3, "
        f"Value dim: 3 instead. {SDP_CPP}.h:327.)",
        f"Flash attention kernel not used because: {SDP_CPP}.cpp:99.)",
        f"Both fused kernels do not support non-zero dropout. {SDP_CPP}.h:241.)"]


@pytest.mark.parametrize("backends", [SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION, []])
def test_neither_flash_nor_math_enabled_has_no_viable_backend(backends):
    q = torch.randn(1, 2, 3, 4)
    with sdpa_kernel(backends), pytest.raises(RuntimeError) as info:
        F.scaled_dot_product_attention(q, q, q)
    assert str(info.value) == ("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                               "turning off both the math kernel and the fused kernels.")
    with sdpa_kernel(backends):  # empty inputs need no kernel
        assert tuple(F.scaled_dot_product_attention(q[:0], q[:0], q[:0]).shape) == (0, 2, 3, 4)


def test_math_path_refuses_a_causal_flag_with_a_mask_and_a_mask_that_grows_the_scores():
    q = torch.randn(1, 2, 3, 4)
    mask = torch.ones(3, 3, dtype=torch.bool)
    assert tuple(F.scaled_dot_product_attention(q, q, q, attn_mask=mask, is_causal=True).shape) == (1, 2, 3, 4)
    with sdpa_kernel(SDPBackend.MATH), pytest.raises(RuntimeError, match="Explicit attn_mask should not be set"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=mask, is_causal=True)
    with pytest.raises(RuntimeError) as info:
        F.scaled_dot_product_attention(q, q, q, attn_mask=torch.zeros(1, 1, 1, 3, 3))
    assert str(info.value) == "output with shape [1, 2, 3, 3] doesn't match the broadcast shape [1, 1, 2, 3, 3]"
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\)"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=torch.zeros(2, 3))


def test_a_zero_head_dim_gives_an_empty_output():
    e = torch.randn(2, 2, 3, 0)
    assert tuple(F.scaled_dot_product_attention(e, e, e).shape) == (2, 2, 3, 0)


def test_sdpa_kernel_and_the_backend_switches_are_one_record():
    assert _cur_sdpa_kernel_backends(with_priority=True) == [
        SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH, SDPBackend.CUDNN_ATTENTION,
        SDPBackend.OVERRIDEABLE]
    with sdpa_kernel(SDPBackend.MATH):
        assert (cuda.flash_sdp_enabled(), cuda.math_sdp_enabled(), cuda.mem_efficient_sdp_enabled()) == (
            False, True, False)
    assert cuda.flash_sdp_enabled() and cuda.cudnn_sdp_enabled()
    q = torch.randn(1, 1, 2, 3, requires_grad=True)
    cuda.enable_flash_sdp(False)
    try:
        assert SDPBackend.FLASH_ATTENTION not in _cur_sdpa_kernel_backends()
        assert F.scaled_dot_product_attention(q, q, q).grad_fn.name() == "UnsafeViewBackward0"
    finally:
        cuda.enable_flash_sdp(True)
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION], set_priority=True):
        assert _cur_sdpa_kernel_backends(with_priority=True) == [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]
    assert _cur_sdpa_kernel_backends(with_priority=True)[:3] == [
        SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]
