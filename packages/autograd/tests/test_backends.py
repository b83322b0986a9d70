"""`torch.backends` boilerplate runs, and availability answers are truthful."""

import warnings

import pytest

import ember.autograd as ea


def test_cudnn_flags_are_settable_and_cudnn_is_not_available():
    ea.backends.cudnn.benchmark = True
    ea.backends.cudnn.deterministic = True
    assert ea.backends.cudnn.benchmark is True
    assert ea.backends.cudnn.is_available() is False
    ea.backends.cudnn.benchmark = False


def test_mps_and_tf32_switches():
    assert ea.backends.mps.is_available() is False
    ea.backends.cuda.matmul.allow_tf32 = False
    assert ea.backends.cuda.matmul.allow_tf32 is False


def test_matmul_allow_tf32_follows_and_sets_the_float32_matmul_precision():
    """PyTorch keeps one state: precision "high"/"medium" reads as allow_tf32 True, and setting allow_tf32
    writes "high" (True) or "highest" (False)."""
    matmul = ea.backends.cuda.matmul
    try:
        ea.set_float32_matmul_precision("medium")
        assert matmul.allow_tf32 is True
        ea.set_float32_matmul_precision("highest")
        assert matmul.allow_tf32 is False
        matmul.allow_tf32 = True
        assert ea.get_float32_matmul_precision() == "high"
        matmul.allow_tf32 = False
        assert ea.get_float32_matmul_precision() == "highest"
    finally:
        ea.set_float32_matmul_precision("highest")


def test_unknown_matmul_precision_warns_pytorchs_message_and_keeps_the_setting():
    """PyTorch's C++ warning, with its source location, every call; the precision stays as it was."""
    with pytest.warns(UserWarning, match=r"^low is not one of 'highest', 'high', or 'medium'; the "
                                         r"currentsetFloat32MatmulPrecision call has no effect\. \(Triggered "
                                         r"internally at /__w/pytorch/pytorch/aten/src/ATen/Context\.cpp:458\.\)$"):
        ea.set_float32_matmul_precision("low")
    assert ea.get_float32_matmul_precision() == "highest"


def test_sdp_backend_switches_default_on_and_sdp_kernel_sets_and_restores_them():
    cuda = ea.backends.cuda
    assert (cuda.flash_sdp_enabled(), cuda.mem_efficient_sdp_enabled(), cuda.math_sdp_enabled(),
            cuda.cudnn_sdp_enabled()) == (True, True, True, True)
    with pytest.warns(FutureWarning, match="sdp_kernel\\(\\)` is deprecated") as rec:
        block = cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False)  # PyTorch warns here, not on entry
    assert rec[0].filename.endswith("contextlib.py")  # from contextlib's call of the generator, as PyTorch's
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with block:
            assert not cuda.flash_sdp_enabled() and not cuda.mem_efficient_sdp_enabled() and cuda.math_sdp_enabled()
    assert cuda.flash_sdp_enabled() and cuda.mem_efficient_sdp_enabled()
    cuda.enable_flash_sdp(False)
    assert not cuda.flash_sdp_enabled()
    cuda.enable_flash_sdp(True)


def test_flag_defaults_are_pytorchs():
    """The class defaults (tests elsewhere set the instances): cudnn.deterministic False, cudnn.allow_tf32 True,
    the reduced-precision matmul reductions allowed, matmul TF32 off."""
    cudnn, matmul = type(ea.backends.cudnn), type(ea.backends.cuda.matmul)
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, ea.backends.cudnn.allow_tf32) == \
        (True, False, False, True)
    assert (ea.backends.cuda.matmul.allow_tf32, matmul.allow_fp16_reduced_precision_reduction,
            matmul.allow_bf16_reduced_precision_reduction) == (False, True, True)


def test_opt_einsum_is_unavailable_and_refuses_to_be_enabled():
    import pytest

    oe = ea.backends.opt_einsum
    assert (oe.is_available(), oe.enabled, oe.strategy, oe.get_opt_einsum()) == (False, False, None, None)
    with pytest.raises(ValueError, match="^opt_einsum is not available, so setting `enabled` to True will not"):
        oe.set_flags(True)
    with pytest.raises(ValueError, match="^opt_einsum is not available, so setting `strategy` to auto will not"):
        with oe.flags(strategy="auto"):
            pass
    assert oe.set_flags(False) == (False, None)
    with oe.flags(enabled=False):
        assert oe.enabled is False
    assert oe.enabled is False


def test_fp32_precision_switches_share_the_legacy_state_as_pytorchs():
    """PyTorch 2.9's new API: `cuda.matmul`, `cudnn`, `cudnn.conv`/`rnn`, `mkldnn.*` carry `fp32_precision`; the
    legacy `allow_tf32` setters write the same table, and a mix that disagrees makes the legacy getters raise."""
    import pytest

    from ember.core import fp32_precision as P

    b = ea.backends
    table, legacy = dict(P._table), list(P._cudnn_legacy)
    try:
        b.mkldnn.matmul.fp32_precision = "none"
        b.cuda.matmul.allow_tf32 = True
        assert b.cuda.matmul.fp32_precision == "tf32" and b.mkldnn.matmul.fp32_precision == "none"
        assert ea.get_float32_matmul_precision() == "high"
        b.cuda.matmul.allow_tf32 = False
        assert b.cuda.matmul.fp32_precision == "ieee"
        b.cudnn.allow_tf32 = False
        assert (b.cudnn.conv.fp32_precision, b.cudnn.allow_tf32) == ("none", False)
        b.cudnn.allow_tf32 = True
        b.cudnn.conv.fp32_precision = "ieee"
        with pytest.raises(RuntimeError, match="^PyTorch is checking whether allow_tf32 is enabled for cuDNN"):
            b.cudnn.allow_tf32
        b.mkldnn.fp32_precision = "bf16"  # PyTorch 2.13 writes the generic entry here
        assert (b.mkldnn.conv.fp32_precision, b.cuda.matmul.fp32_precision) == ("bf16", "none")
        with pytest.raises(RuntimeError, match="^backend 'cuda' does not support precision 'bf16'$"):
            b.cuda.matmul.fp32_precision = "bf16"
    finally:
        P._table.update(table)
        P._cudnn_legacy[:] = legacy
        ea.set_float32_matmul_precision("highest")
        P._table.update(table)


def test_cudnn_flags_context_sets_pytorchs_defaults_and_restores_every_switch():
    """`with torch.backends.cudnn.flags(enabled=False):` around a double backward (PyTorch 2.13's values)."""
    c = ea.backends.cudnn
    c.enabled, c.benchmark, c.deterministic, c.allow_tf32 = True, True, False, False
    try:
        with c.flags(enabled=False):
            assert (c.enabled, c.benchmark, c.deterministic, c.allow_tf32) == (False, False, False, True)
            assert (c.fp32_precision, c.conv.fp32_precision, c.rnn.fp32_precision) == ("none", "tf32", "tf32")
            with c.flags(enabled=True, deterministic=True, allow_tf32=False):
                assert (c.enabled, c.deterministic, c.allow_tf32, c.conv.fp32_precision) == (True, True, False, "none")
            assert (c.enabled, c.deterministic, c.allow_tf32) == (False, False, True)
        assert (c.enabled, c.benchmark, c.deterministic, c.allow_tf32) == (True, True, False, False)
        assert c.set_flags() == (True, True, None, False, False, "none", "auto") and c.benchmark_limit is None
    finally:
        c.benchmark, c.allow_tf32 = False, True


def test_precision_switches_refuse_unknown_attributes_as_pytorchs():
    b = ea.backends
    for switch in (b.cuda.matmul, b.cudnn.conv, b.mkldnn.matmul, b.mkldnn.rnn):
        with pytest.raises(AttributeError, match="^Unknown attribute foo$"):
            switch.foo = 3
        with pytest.raises(AttributeError, match="^Unknown attribute bar$"):
            switch.bar
    before = b.cuda.matmul.allow_fp16_reduced_precision_reduction
    b.cuda.matmul.allow_fp16_reduced_precision_reduction = before  # known attributes stay settable
    b.cudnn.rnn.foo = 3  # a module in PyTorch: anything goes
    with pytest.raises(AttributeError, match="^module 'torch.backends.cudnn.rnn' has no attribute 'bar'$"):
        b.cudnn.rnn.bar
