"""nn.utils: prune, fusion, stateless, spectral_norm, skip_init, clipping and sequence helpers, against numpy
float64 and (torch session) PyTorch's masks and state-dict layouts."""

import warnings

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn, optim
from ember.nn.utils import prune, stateless
from ember.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_sequence, unpack_sequence, unpad_sequence


def np_of(t):
    return t.detach().numpy().astype(np.float64)


# --- prune -------------------------------------------------------------------------------------
def test_l1_unstructured_masks_the_smallest_magnitudes_and_trains_the_original():
    fc = nn.Linear(5, 4).double()
    w = np_of(fc.weight)
    prune.l1_unstructured(fc, "weight", amount=0.3)
    n = round(0.3 * w.size)
    expected = np.ones(w.size)
    expected[np.argsort(np.abs(w).reshape(-1))[:n]] = 0
    np.testing.assert_array_equal(fc.weight_mask.numpy().reshape(-1), expected)
    assert [n for n, _ in fc.named_parameters()] == ["bias", "weight_orig"]
    assert "weight_mask" in fc.state_dict() and prune.is_pruned(fc)
    x = torch.randn(3, 5, dtype=torch.float64)
    fc(x).sum().backward()
    np.testing.assert_allclose(np_of(fc(x)), x.numpy() @ (w * expected.reshape(w.shape)).T + np_of(fc.bias))
    # d/dW_orig of sum(x (W_orig * M)^T) = M * column sums of x
    np.testing.assert_allclose(fc.weight_orig.grad.numpy(), expected.reshape(w.shape) * x.numpy().sum(0)[None, :])
    prune.remove(fc, "weight")
    assert not prune.is_pruned(fc) and isinstance(fc.weight, nn.Parameter)
    np.testing.assert_array_equal(np_of(fc.weight), w * expected.reshape(w.shape))


def test_pruning_twice_prunes_among_the_kept_entries():
    fc = nn.Linear(4, 5, bias=False).double()
    w = np_of(fc.weight).reshape(-1)
    prune.l1_unstructured(fc, "weight", amount=4)
    prune.l1_unstructured(fc, "weight", amount=3)
    assert isinstance(fc._forward_pre_hooks[next(iter(fc._forward_pre_hooks))], prune.PruningContainer)
    expected = np.ones(w.size)
    expected[np.argsort(np.abs(w))[:7]] = 0
    np.testing.assert_array_equal(fc.weight_mask.numpy().reshape(-1), expected)


def test_ln_structured_removes_the_channels_of_smallest_norm():
    conv = nn.Conv2d(3, 6, 2).double()
    w = np_of(conv.weight)
    prune.ln_structured(conv, "weight", amount=0.5, n=2, dim=0)
    norms = np.sqrt((w ** 2).sum(axis=(1, 2, 3)))
    pruned = set(np.argsort(norms)[:3])
    mask = conv.weight_mask.numpy()
    for c in range(6):
        assert np.all(mask[c] == (0 if c in pruned else 1))


def test_global_unstructured_prunes_the_smallest_entries_across_tensors():
    a, b = nn.Linear(3, 2).double(), nn.Linear(2, 4).double()
    values = np.concatenate([np_of(a.weight).reshape(-1), np_of(b.weight).reshape(-1)])
    prune.global_unstructured([(a, "weight"), (b, "weight")], prune.L1Unstructured, amount=5)
    masks = np.concatenate([a.weight_mask.numpy().reshape(-1), b.weight_mask.numpy().reshape(-1)])
    expected = np.ones(values.size)
    expected[np.argsort(np.abs(values))[:5]] = 0
    np.testing.assert_array_equal(masks, expected)


def test_random_and_custom_pruning_and_errors():
    fc = nn.Linear(10, 10)
    prune.random_unstructured(fc, "weight", amount=0.25)
    assert int((fc.weight_mask == 0).sum()) == 25
    prune.custom_from_mask(fc, "bias", mask=torch.tensor([0.0, 1.0] * 5))
    np.testing.assert_array_equal(fc.bias.detach().numpy()[::2], 0)
    conv = nn.Conv2d(2, 8, 1)
    prune.random_structured(conv, "weight", amount=3, dim=0)
    assert int((conv.weight_mask.sum(dim=(1, 2, 3)) == 0).sum()) == 3
    with pytest.raises(ValueError, match=r"amount=1.5 should either be a float in the range \[0, 1\]"):
        prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5)
    with pytest.raises(ValueError, match="amount=9 should be smaller than the number of parameters to prune=4"):
        prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=9)
    with pytest.raises(ValueError, match="Structured pruning can only be applied to multidimensional tensors"):
        prune.ln_structured(nn.Linear(2, 2), "bias", amount=1, n=2, dim=0)
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(nn.Linear(2, 2), "weight")


def test_a_method_never_applied_has_no_tensor_name():
    # PyTorch's methods get `_tensor_name` from `apply`; before, using one raises AttributeError
    method = prune.L1Unstructured(1)
    for call in (lambda: method.apply_mask(nn.Linear(2, 2)), lambda: method(nn.Linear(2, 2), None),
                 lambda: prune.PruningContainer(prune.L1Unstructured(1))):
        with pytest.raises(AttributeError, match="^'L1Unstructured' object has no attribute '_tensor_name'$"):
            call()
    with pytest.raises(AttributeError, match="^'PruningContainer' object has no attribute '_tensor_name'$"):
        prune.PruningContainer().add_pruning_method(method)


@pytest.mark.torch
def test_pruning_type_belongs_to_the_methods_not_the_base_class():
    """A custom method without PRUNING_TYPE prunes alone but cannot join a container (PyTorch's AttributeError)."""

    class Half(prune.BasePruningMethod):
        def compute_mask(self, t, default_mask):
            return default_mask * (t.abs() > 0.5).to(dtype=t.dtype)

    assert not hasattr(prune.PruningContainer(), "PRUNING_TYPE")
    fc = nn.Linear(4, 4)
    prune.l1_unstructured(fc, "weight", amount=2)
    with pytest.raises(AttributeError, match="'Half' object has no attribute 'PRUNING_TYPE'"):
        Half.apply(fc, "weight")


def test_global_unstructured_reads_a_generator_once_as_pytorch():
    """PyTorch iterates `parameters` twice, so a generator yields no masks: torch.cat of an empty list."""
    layers = [nn.Linear(3, 3), nn.Linear(3, 2)]
    with pytest.raises(ValueError, match=r"torch.cat\(\): expected a non-empty list of Tensors"):
        prune.global_unstructured(((m, "weight") for m in layers), prune.L1Unstructured, amount=2)
    assert not any(prune.is_pruned(m) for m in layers)


def test_deterministic_pruning_gives_pytorchs_masks():
    pt = pytest.importorskip("torch")
    import torch.nn.utils.prune as pt_prune

    w = np.random.default_rng(0).standard_normal((6, 4, 3)).astype(np.float32)
    for fn, kw in [(lambda p, m: p.l1_unstructured(m, "weight", amount=0.4), {}),
                   (lambda p, m: p.ln_structured(m, "weight", amount=2, n=1, dim=1), {}),
                   (lambda p, m: (p.l1_unstructured(m, "weight", amount=10),
                                  p.ln_structured(m, "weight", amount=0.5, n=2, dim=0)), {})]:
        ours, theirs = nn.Conv1d(4, 6, 3), pt.nn.Conv1d(4, 6, 3)
        with torch.no_grad():
            ours.weight.copy_(torch.tensor(w))
        with pt.no_grad():
            theirs.weight.copy_(pt.tensor(w))
        fn(prune, ours)
        fn(pt_prune, theirs)
        np.testing.assert_array_equal(ours.weight_mask.numpy(), theirs.weight_mask.numpy())
        assert list(ours.state_dict()) == list(theirs.state_dict())


# --- fusion ------------------------------------------------------------------------------------
def _eval_bn(n, dtype=torch.float64):
    bn = nn.BatchNorm2d(n).to(dtype)
    with torch.no_grad():
        bn.running_mean.copy_(torch.randn(n, dtype=dtype))
        bn.running_var.copy_(torch.rand(n, dtype=dtype) + 0.5)
        bn.weight.copy_(torch.randn(n, dtype=dtype))
        bn.bias.copy_(torch.randn(n, dtype=dtype))
    return bn.eval()


@pytest.mark.parametrize("transpose", [False, True])
def test_fused_conv_bn_equals_conv_then_bn(transpose):
    conv = (nn.ConvTranspose2d(3, 4, 3) if transpose else nn.Conv2d(3, 4, 3)).double().eval()
    bn = _eval_bn(4)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    x = torch.randn(2, 3, 5, 5, dtype=torch.float64)
    np.testing.assert_allclose(np_of(fused(x)), np_of(bn(conv(x))), rtol=1e-10, atol=1e-12)
    assert fused is not conv and isinstance(fused.bias, nn.Parameter)


def test_fused_linear_bn_equals_linear_then_bn_and_eval_is_required():
    fc = nn.Linear(3, 4).double().eval()
    bn = nn.BatchNorm1d(4).double()
    with torch.no_grad():
        bn.running_var.copy_(torch.tensor([0.5, 2.0, 1.0, 3.0], dtype=torch.float64))
        bn.running_mean.copy_(torch.tensor([0.1, -0.2, 0.3, 0.0], dtype=torch.float64))
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_linear_bn_eval(fc, bn)
    bn.eval()
    fused = nn.utils.fuse_linear_bn_eval(fc, bn)
    x = torch.randn(5, 3, dtype=torch.float64)
    np.testing.assert_allclose(np_of(fused(x)), np_of(bn(fc(x))), rtol=1e-10, atol=1e-12)


# --- stateless ---------------------------------------------------------------------------------
def test_functional_call_uses_the_given_tensors_and_restores_the_module():
    fc = nn.Linear(3, 2).double()
    w0 = np_of(fc.weight)
    w = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    x = torch.randn(4, 3, dtype=torch.float64)
    with pytest.warns(FutureWarning, match="functional_call` is deprecated"):
        out = stateless.functional_call(fc, {"weight": w}, (x,))
    np.testing.assert_allclose(np_of(out), x.numpy() @ w.detach().numpy().T + np_of(fc.bias), rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.tile(x.numpy().sum(0), (2, 1)), rtol=1e-12)
    assert fc.weight.grad is None and isinstance(fc.weight, nn.Parameter)
    np.testing.assert_array_equal(np_of(fc.weight), w0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match=r"Unexpected key\(s\): 'nope'.*\n\tMissing key\(s\): 'bias'"):
            stateless.functional_call(fc, {"weight": w, "nope": w}, (x,), strict=True)


def test_functional_call_follows_tied_weights():
    net = nn.Sequential(nn.Linear(2, 2, bias=False), nn.Linear(2, 2, bias=False))
    net[1].weight = net[0].weight
    w = torch.eye(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = stateless.functional_call(net, {"0.weight": w}, torch.ones(1, 2))
    np.testing.assert_array_equal(out.detach().numpy(), [[1.0, 1.0]])


# --- spectral_norm -----------------------------------------------------------------------------
def test_spectral_norm_divides_by_the_largest_singular_value():
    torch.manual_seed(0)
    fc = nn.utils.spectral_norm(nn.Linear(6, 4).double())
    assert sorted(fc.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    for _ in range(30):
        fc(torch.randn(1, 6, dtype=torch.float64))
    sigma = np.linalg.svd(np_of(fc.weight_orig), compute_uv=False)[0]
    np.testing.assert_allclose(np_of(fc.weight), np_of(fc.weight_orig) / sigma, rtol=1e-8)
    fc.eval()
    u = fc.weight_u.numpy().copy()
    fc(torch.randn(1, 6, dtype=torch.float64))
    np.testing.assert_array_equal(fc.weight_u.numpy(), u)  # no power iteration in eval
    nn.utils.remove_spectral_norm(fc)
    assert isinstance(fc.weight, nn.Parameter) and "weight_orig" not in fc.state_dict()
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
        nn.utils.remove_spectral_norm(fc)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same parameter weight"):
        nn.utils.spectral_norm(nn.utils.spectral_norm(nn.Linear(2, 2)))


def test_spectral_norm_state_dict_records_its_version_and_upgrades_old_checkpoints():
    torch.manual_seed(0)
    fc = nn.utils.spectral_norm(nn.Sequential(nn.Linear(5, 3).double())[0])
    net = nn.Sequential(fc)
    sd = net.state_dict()
    assert sd._metadata["0"] == {"version": 1, "spectral_norm": {"weight.version": 1}}
    for _ in range(5):
        fc(torch.randn(2, 5, dtype=torch.float64))
    fc.eval()
    want = np_of(fc(torch.ones(1, 5, dtype=torch.float64)))
    # a checkpoint from before versioning: the normalised weight stored, no weight_v, no metadata
    old = {"0.weight_orig": fc.weight_orig.detach(), "0.weight": fc.weight.detach(), "0.weight_u": fc.weight_u,
           "0.bias": fc.bias.detach()}
    fresh = nn.Sequential(nn.utils.spectral_norm(nn.Linear(5, 3).double())).eval()
    assert not fresh.load_state_dict(old).missing_keys
    np.testing.assert_allclose(np_of(fresh(torch.ones(1, 5, dtype=torch.float64))), want, rtol=1e-8)
    nn.utils.remove_spectral_norm(fc)
    assert not fc._state_dict_hooks and not fc._load_state_dict_pre_hooks
    assert net.state_dict()._metadata["0"] == {"version": 1}


# --- clipping, sequences, skip_init --------------------------------------------------------------
def test_clip_grads_with_norm_scales_by_the_given_total_and_clip_grad_norm_is_deprecated():
    a = nn.Parameter(torch.ones(3, dtype=torch.float64))
    a.grad = torch.tensor([3.0, 4.0, 0.0], dtype=torch.float64)
    nn.utils.clip_grads_with_norm_([a], max_norm=1.0, total_norm=torch.tensor(10.0))
    np.testing.assert_allclose(a.grad.numpy(), [0.3, 0.4, 0.0], rtol=1e-6)
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated in favor of"):
        total = nn.utils.clip_grad_norm(iter([a]), 0.1)
    assert float(total) == pytest.approx(0.5)
    np.testing.assert_allclose(np.linalg.norm(a.grad.numpy()), 0.1, rtol=1e-5)


def test_unpad_and_unpack_sequence_invert_pad_and_pack():
    seqs = [torch.randn(n, 2) for n in (3, 1, 4)]
    for got in (unpad_sequence(pad_sequence(seqs), torch.tensor([3, 1, 4])),
                unpad_sequence(pad_sequence(seqs, batch_first=True), torch.tensor([3, 1, 4]), batch_first=True),
                unpack_sequence(pack_sequence(seqs, enforce_sorted=False))):
        assert len(got) == 3
        for g, s in zip(got, seqs):
            np.testing.assert_array_equal(g.numpy(), s.numpy())


def test_skip_init_builds_the_module_and_checks_its_arguments():
    fc = nn.utils.skip_init(nn.Linear, 3, 2)
    assert type(fc) is nn.Linear and tuple(fc.weight.shape) == (2, 3)
    with pytest.raises(RuntimeError, match="Expected a Module; got"):
        nn.utils.skip_init(int)
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        nn.utils.skip_init(nn.ReLU)


# --- parametrizations.orthogonal ---------------------------------------------------------------
needs_matrix_exp = pytest.mark.skipif(not hasattr(torch.linalg, "matrix_exp"), reason="needs linalg.matrix_exp")
needs_householder = pytest.mark.skipif(not hasattr(torch.linalg, "householder_product"),
                                       reason="needs linalg.householder_product")


def _positive_qr(a):
    q, r = np.linalg.qr(a)
    return q * np.sign(np.diag(r))[None, :]


@pytest.mark.parametrize("shape, omap", [((4, 4), "cayley"), ((3, 5), "cayley"), ((5, 3), "cayley"),
                                         pytest.param((4, 4), None, marks=needs_matrix_exp),
                                         pytest.param((5, 3), None, marks=needs_householder)])
def test_orthogonal_starts_at_the_orthogonalized_weight_and_stays_orthogonal(shape, omap):
    from ember.nn.utils.parametrizations import orthogonal

    fc = nn.Linear(shape[1], shape[0]).double()
    w0 = np_of(fc.weight)
    orthogonal(fc, orthogonal_map=omap)
    w = np_of(fc.weight)
    tall = w0 if shape[0] >= shape[1] else w0.T
    expected = _positive_qr(tall) if shape[0] >= shape[1] else _positive_qr(tall).T
    np.testing.assert_allclose(w, expected, atol=1e-10)
    opt = optim.SGD(fc.parameters(), lr=0.1)
    for _ in range(5):
        opt.zero_grad()
        (fc(torch.randn(8, shape[1], dtype=torch.float64)) ** 2).sum().backward()
        opt.step()
    w = np_of(fc.weight)
    gram = w.T @ w if shape[0] >= shape[1] else w @ w.T
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-10)
    assert not np.allclose(w, expected)


def test_orthogonal_of_a_complex_weight_is_unitary():
    """PyTorch's complex rule: the skew-Hermitian part (X - X^H), matrix_exp by default, no householder."""
    from ember.nn.utils import parametrizations

    tall = parametrizations.orthogonal(nn.Linear(3, 5, dtype=torch.complex128))
    assert tall.parametrizations.weight[0].orthogonal_map.name == "matrix_exp"
    w = tall.weight.detach().numpy()
    np.testing.assert_allclose(w.conj().T @ w, np.eye(3), atol=1e-10)
    rng = np.random.default_rng(0)
    q = np.linalg.qr(rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3)))[0]
    square = parametrizations.orthogonal(nn.Linear(3, 3, dtype=torch.complex128), orthogonal_map="cayley")
    square.weight = torch.tensor(q)
    np.testing.assert_allclose(square.weight.detach().numpy(), q, atol=1e-10)
    with pytest.raises(ValueError, match="^The householder parametrization does not support complex tensors.$"):
        parametrizations.orthogonal(nn.Linear(3, 3, dtype=torch.complex64), orthogonal_map="householder")


def test_orthogonal_errors():
    from ember.nn.utils.parametrizations import orthogonal

    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions."):
        orthogonal(nn.Linear(2, 2), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder"'):
        orthogonal(nn.Linear(2, 2), orthogonal_map="qr")
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nope'"):
        orthogonal(nn.Linear(2, 2), "nope")
    # the parametrization holds its map as PyTorch's `_OrthMaps` enum (square: matrix_exp, tall: householder)
    maps = [orthogonal(nn.Linear(k, 3)).parametrizations.weight[0].orthogonal_map for k in (3, 2)]
    assert [repr(m) for m in maps] == ["<_OrthMaps.matrix_exp: 1>", "<_OrthMaps.householder: 3>"]
    # registration treats a right_inverse that raises NotImplementedError as the identity (PyTorch's rule);
    # assigning later refuses
    fc = orthogonal(nn.Linear(2, 2), orthogonal_map="cayley", use_trivialization=False)
    with pytest.raises(NotImplementedError, match="not possible to assign to the matrix exponential or the Cayley"):
        fc.weight = torch.eye(2)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3)])
def test_orthogonal_householder_without_trivialization_starts_at_the_positive_qr(shape):
    from ember.nn.utils.parametrizations import orthogonal

    fc = nn.Linear(shape[1], shape[0]).double()
    with torch.no_grad():
        fc.weight.copy_(torch.tensor(np.sin(np.arange(float(np.prod(shape))).reshape(shape) ** 1.7)))
    w0 = np_of(fc.weight)
    orthogonal(fc, orthogonal_map="householder", use_trivialization=False)
    assert "base" not in fc.parametrizations.weight[0]._buffers
    tall = shape[0] >= shape[1]
    expected = _positive_qr(w0) if tall else _positive_qr(w0.T).T
    np.testing.assert_allclose(np_of(fc.weight), expected, atol=1e-10)


@pytest.mark.torch
def test_orthogonal_cayley_trains_like_pytorch():
    pt = pytest.importorskip("torch")
    from ember.nn.utils.parametrizations import orthogonal

    w0 = np.random.default_rng(8).standard_normal((3, 3))
    ours, theirs = nn.Linear(3, 3, bias=False).double(), pt.nn.Linear(3, 3, bias=False).double()
    with torch.no_grad():
        ours.weight.copy_(torch.tensor(w0))
    with pt.no_grad():
        theirs.weight.copy_(pt.tensor(w0))
    orthogonal(ours, orthogonal_map="cayley")
    pt.nn.utils.parametrizations.orthogonal(theirs, orthogonal_map="cayley")
    o1, o2 = optim.SGD(ours.parameters(), lr=0.05), pt.optim.SGD(theirs.parameters(), lr=0.05)
    x = np.random.default_rng(9).standard_normal((4, 3))
    for _ in range(5):
        o1.zero_grad()
        o2.zero_grad()
        (ours(torch.tensor(x)) ** 3).sum().backward()
        (theirs(pt.tensor(x)) ** 3).sum().backward()
        o1.step()
        o2.step()
    np.testing.assert_allclose(np_of(ours.weight), theirs.weight.detach().numpy(), rtol=1e-9, atol=1e-10)


def test_transfer_parametrizations_shares_the_originals():
    from ember.nn.utils import parametrize
    from ember.nn.utils.parametrizations import weight_norm

    src = weight_norm(nn.Linear(3, 2).double())
    dst = nn.Linear(3, 2).double()
    parametrize.transfer_parametrizations_and_params(src, dst)
    assert parametrize.is_parametrized(dst, "weight")
    assert dst.parametrizations.weight.original0 is src.parametrizations.weight.original0
    np.testing.assert_array_equal(np_of(dst.weight), np_of(src.weight))
    with torch.no_grad():
        src.parametrizations.weight.original0.mul_(2.0)
    np.testing.assert_allclose(np_of(dst.weight), np_of(src.weight), rtol=1e-12)
    # weight norm: each row's norm is its magnitude g (original0), now doubled
    np.testing.assert_allclose(np.linalg.norm(np_of(dst.weight), axis=1),
                               np.abs(np_of(dst.parametrizations.weight.original0).reshape(-1)), rtol=1e-12)


def test_pad_sequence_broadcasts_size_one_trailing_dims_and_names_mismatch_as_pytorch():
    """PyTorch copies each sequence into its slice of the output: a trailing size-1 dim broadcasts, another
    mismatch raises copy's broadcast error."""
    out = pad_sequence([torch.ones(2, 3), torch.full((1, 1), 2.0)], batch_first=True)
    assert out.tolist() == [[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], [[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]]]
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(4\) at "
                                           r"non-singleton dimension 1$"):
        pad_sequence([torch.ones(2, 3), torch.ones(2, 4)])


def test_pad_sequence_takes_the_first_sequences_dtype_and_refuses_non_tensors():
    out = pad_sequence([torch.tensor([1, 2]), torch.tensor([3.7])], batch_first=True, padding_value=-1)
    assert out.dtype is torch.int64 and out.tolist() == [[1, 2], [3, -1]]
    assert pad_sequence([torch.tensor([0.5]), torch.tensor([2])]).dtype is torch.float32
    with pytest.raises(TypeError, match=r"^expected Tensor as element 1 in argument 0, but got list$"):
        pad_sequence([torch.ones(2), [3.0]])


def test_packing_a_one_dimensional_input_is_pytorchs_index_error():
    for batch_first in (False, True):
        with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-1, 0\], "
                                             r"but got 1\)$"):
            pack_padded_sequence(torch.ones(3), [3], batch_first=batch_first)


def test_weight_norms_deprecation_is_shown_once_as_pytorchs():
    """PyTorch warns from its own file, so the default filter shows it once, whichever lines call it."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        nn.utils.weight_norm(nn.Linear(2, 2))
        nn.utils.weight_norm(nn.Linear(2, 2))
    assert [w.category for w in seen] == [FutureWarning]
    assert seen[0].filename.endswith("weight_norm.py") and "parametrizations.weight_norm" in str(seen[0].message)
