"""ember.nn.utils: gradient clipping and parameter/vector conversion."""

import math

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn
from ember.nn.utils import clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters


def params_with_grads():
    ps = [nn.Parameter(torch.zeros(3, dtype=torch.float64)), nn.Parameter(torch.zeros(2, 2, dtype=torch.float64))]
    ps[0].grad = torch.tensor([3.0, -4.0, 0.0], dtype=torch.float64)
    ps[1].grad = torch.tensor([[1.0, 2.0], [-2.0, 0.0]], dtype=torch.float64)
    return ps


def test_clip_grad_norm_scales_all_gradients_together():
    ps = params_with_grads()
    total = math.sqrt(9 + 16 + 1 + 4 + 4)
    norm = clip_grad_norm_(ps, max_norm=1.0)
    assert norm.item() == pytest.approx(total)
    coef = 1.0 / (total + 1e-6)
    np.testing.assert_allclose(ps[0].grad.numpy(), np.array([3.0, -4.0, 0.0]) * coef, rtol=1e-12)
    assert clip_grad_norm_(ps, max_norm=10.0).item() == pytest.approx(total * coef)
    inf_ps = params_with_grads()
    assert clip_grad_norm_(inf_ps, 100.0, norm_type="inf").item() == 4.0
    assert clip_grad_norm_(params_with_grads(), 100.0, norm_type=1).item() == pytest.approx(12.0)


def test_clip_grad_norm_nonfinite_error():
    ps = params_with_grads()
    ps[0].grad[0] = float("nan")
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)


def test_total_norm_refuses_integer_gradients_in_vector_norms_words():
    with pytest.raises(RuntimeError, match="^linalg.vector_norm: Expected a floating point or complex tensor as "
                                           "input. Got Long$"):
        nn.utils.get_total_norm([torch.tensor([1.0]), torch.tensor([1, 2])])


def test_clip_grad_value():
    ps = params_with_grads()
    clip_grad_value_(ps, 1.5)
    np.testing.assert_array_equal(ps[0].grad.numpy(), [1.5, -1.5, 0.0])
    np.testing.assert_array_equal(ps[1].grad.numpy(), [[1.0, 1.5], [-1.5, 0.0]])


@pytest.mark.parametrize("foreach", [None, False])
def test_clip_grad_value_before_backward_fails_as_pytorchs_grouping(foreach):
    # PyTorch 2.13 groups the (empty) list of gradients by device first, which refuses an empty list
    msg = r"^Expected !nested_tensorlist\[0\]\.empty\(\) to be true, but got false\.  \(Could this error"
    with pytest.raises(RuntimeError, match=msg):
        clip_grad_value_(nn.Linear(2, 2).parameters(), 1.0, foreach=foreach)
    with pytest.raises(RuntimeError, match=msg):
        clip_grad_value_([], 1.0, foreach=foreach)


def test_parameters_vector_round_trip():
    model = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    vec = parameters_to_vector(model.parameters())
    assert vec.shape == (sum(p.numel() for p in model.parameters()),)
    np.testing.assert_array_equal(vec.detach().numpy()[:6], model[0].weight.detach().numpy().ravel())
    vector_to_parameters(torch.arange(vec.numel(), dtype=torch.float32), model.parameters())
    assert model[0].weight.detach().numpy().ravel().tolist() == [0, 1, 2, 3, 4, 5]
    assert model[1].bias.item() == vec.numel() - 1
    with pytest.raises(RuntimeError, match=r"shape '\[2, 3\]' is invalid for input of size 3"):
        vector_to_parameters(torch.zeros(3), model.parameters())


def test_vector_to_parameters_shares_memory_like_pytorch():
    model = nn.Linear(2, 2)
    vec = torch.arange(6, dtype=torch.float32)
    vector_to_parameters(vec.view(-1, 1), model.parameters())  # any leading-dim slicing that views to each shape
    vec.mul_(2)
    np.testing.assert_array_equal(model.weight.detach().numpy(), [[0, 2], [4, 6]])
    np.testing.assert_array_equal(model.bias.detach().numpy(), [8, 10])
    assert isinstance(model.weight, nn.Parameter) and model.weight.requires_grad
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        vector_to_parameters([1.0], model.parameters())


def test_pad_sequence():
    from ember.nn.utils.rnn import pad_sequence

    a, b = torch.arange(6, dtype=torch.float32).reshape(3, 2), torch.ones(1, 2)
    out = pad_sequence([a, b], padding_value=-1.0)
    assert out.shape == (3, 2, 2)
    np.testing.assert_array_equal(out[:, 1].numpy(), [[1, 1], [-1, -1], [-1, -1]])
    left = pad_sequence([a, b], batch_first=True, padding_side="left")
    np.testing.assert_array_equal(left[1].numpy(), [[0, 0], [0, 0], [1, 1]])
    np.testing.assert_array_equal(left[0].numpy(), a.numpy())
    with pytest.raises(RuntimeError, match="Expected padding_side to be one of left or right, but got middle."):
        pad_sequence([a, b], padding_side="middle")


def test_pack_padded_sequence_checks_lengths_like_pytorch():
    from ember.nn.utils.rnn import pack_padded_sequence

    x = torch.zeros(3, 2)
    with pytest.raises(RuntimeError, match=r"Expected `len\(lengths\)` to be equal to batch_size, but got 3 "
                                           r"\(batch_size=2\)"):
        pack_padded_sequence(x, [3, 2, 1])
    with pytest.raises(RuntimeError, match="'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long"):
        pack_padded_sequence(x, torch.tensor([[3, 2]]))
    assert pack_padded_sequence(x, [3.0, 2.0]).batch_sizes.tolist() == [2, 2, 1]
    # unsorted: the batch is index-selected by the lengths' order first, so fewer lengths pack that many sequences
    assert pack_padded_sequence(x, [3], enforce_sorted=False).batch_sizes.tolist() == [1, 1, 1]
    # unsorted 2-D lengths: PyTorch's sort-then-index_select fails before the rank check
    with pytest.raises(IndexError, match=r"index_select\(\): Index is supposed to be a vector"):
        pack_padded_sequence(x, torch.tensor([[3, 2]]), enforce_sorted=False)


def test_pack_round_trip_and_packed_lstm_equals_per_sequence_runs():
    from ember.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence

    torch.manual_seed(0)
    x = torch.randn(4, 3, 2, dtype=torch.float64)
    lengths = [2, 4, 1]
    packed = pack_padded_sequence(x, lengths, enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [3, 2, 1, 1]
    padded, lens = pad_packed_sequence(packed, padding_value=9.0)
    assert lens.tolist() == lengths
    for b, n in enumerate(lengths):
        np.testing.assert_array_equal(padded[:n, b].numpy(), x[:n, b].numpy())
        assert (padded[n:, b].numpy() == 9.0).all()
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        pack_padded_sequence(x, lengths)
    lstm = nn.LSTM(2, 3, bidirectional=True).double()
    out, (h, c) = lstm(packed)
    out_padded, _ = pad_packed_sequence(out)
    for b, n in enumerate(lengths):
        ref, (rh, rc) = lstm(x[:n, b:b + 1])
        np.testing.assert_allclose(out_padded[:n, b].detach().numpy(), ref[:, 0].detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(h[:, b].detach().numpy(), rh[:, 0].detach().numpy(), rtol=1e-12)
    seqs = pack_sequence([torch.ones(3, 2), torch.ones(1, 2)])
    assert seqs.data.shape == (4, 2) and seqs.sorted_indices is None


def test_weight_norm_reparametrises_and_removes():
    lin = nn.Linear(4, 3).double()
    w0 = lin.weight.detach().numpy().copy()
    with pytest.warns(FutureWarning, match="deprecated"):
        nn.utils.weight_norm(lin)
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(lin.weight_g.detach().numpy()[:, 0], np.linalg.norm(w0, axis=1), rtol=1e-12)
    with torch.no_grad():
        lin.weight_g.mul_(2.0)
    x = torch.randn(2, 4, dtype=torch.float64)
    np.testing.assert_allclose(lin(x).detach().numpy(), x.numpy() @ (2 * w0).T + lin.bias.detach().numpy(),
                               rtol=1e-12)
    nn.utils.remove_weight_norm(lin)
    assert isinstance(lin.weight, nn.Parameter)
    np.testing.assert_allclose(lin.weight.detach().numpy(), 2 * w0, rtol=1e-12)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        nn.utils.remove_weight_norm(lin)


def test_weight_norm_of_a_bias_keeps_one_magnitude_per_element():
    """A 1-D parameter's norms over every dim but 0 are its elements' magnitudes (PyTorch's g of shape (n,)), so the
    normalised bias is the bias, and it follows g's signs-free scale."""
    from ember.nn.utils import parametrizations

    conv = nn.Conv1d(2, 3, 3).double()
    b0 = conv.bias.detach().numpy().copy()
    with pytest.warns(FutureWarning, match="deprecated"):
        nn.utils.weight_norm(conv, name="bias")
    np.testing.assert_allclose(conv.bias_g.detach().numpy(), np.abs(b0), rtol=1e-12)
    np.testing.assert_allclose(conv.bias.detach().numpy(), b0, rtol=1e-12)
    with torch.no_grad():
        conv.bias_g.mul_(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))
    np.testing.assert_allclose(conv(torch.zeros(1, 2, 3, dtype=torch.float64)).detach().numpy()[0, :, 0],
                               b0 * [1.0, 2.0, 3.0], rtol=1e-12)
    p = parametrizations.weight_norm(nn.Linear(2, 4), name="bias")
    assert p.parametrizations.bias.original0.shape == (4,)


def test_weight_norms_refuse_a_dim_out_of_range_as_pytorch():
    from ember.nn.utils import parametrizations

    message = r"^Dimension out of range \(expected to be in range of \[-4, 3\], but got 5\)$"
    with pytest.raises(IndexError, match=message):
        parametrizations.weight_norm(nn.Conv2d(2, 3, 3), dim=5)
    with pytest.raises(IndexError, match=message), pytest.warns(FutureWarning):
        nn.utils.weight_norm(nn.Conv2d(2, 3, 3), dim=5)
    g = parametrizations.weight_norm(nn.Conv2d(2, 3, 3), dim=-2).parametrizations.weight.original0
    assert g.shape == (1, 1, 3, 1)  # a negative dim other than -1 counts from the end


def test_weight_norms_use_the_fused_node_for_the_first_and_last_dim():
    # PyTorch's torch._weight_norm: WeightNormInterfaceBackward0 for dim 0 or the last, the composite otherwise
    from ember.nn.utils import parametrizations

    names = {}
    for dim in (0, 1, 2, -1, None):
        conv = parametrizations.weight_norm(nn.Conv1d(2, 3, 3).double(), dim=dim)
        names[dim] = type(conv.weight.grad_fn).__name__
        v = conv.parametrizations.weight.original1.detach().numpy()
        g = conv.parametrizations.weight.original0.detach().numpy()
        axes = tuple(range(3)) if dim in (-1, None) else tuple(i for i in range(3) if i != dim)
        np.testing.assert_allclose(conv.weight.detach().numpy(),
                                   v * g / np.sqrt((v * v).sum(axes, keepdims=True)), rtol=1e-12)
    assert names == {0: "WeightNormInterfaceBackward0", 1: "MulBackward0", 2: "WeightNormInterfaceBackward0",
                     -1: "MulBackward0", None: "MulBackward0"}
    conv = parametrizations.weight_norm(nn.Conv1d(2, 3, 3), dim=0)  # one node over v and g, as PyTorch's
    v, g = conv.parametrizations.weight.original1, conv.parametrizations.weight.original0
    nodes = conv.weight.grad_fn.next_functions
    assert len(nodes) == 2 and nodes[0][0].variable is v and nodes[1][0].variable is g
    w, norms = torch._weight_norm_interface(torch.ones(2, 3, requires_grad=True), torch.full((2, 1), 2.0), 0)
    np.testing.assert_allclose(w.detach().numpy(), np.full((2, 3), 2 / math.sqrt(3)), rtol=1e-6)
    assert norms.grad_fn is None and norms.shape == (2, 1)
    with pytest.raises(RuntimeError, match="fused kernels can only be applied for first or last dim"):
        torch._weight_norm_interface(torch.ones(2, 3, 4), torch.ones(1, 3, 1), 1)
    with pytest.warns(FutureWarning):
        legacy = nn.utils.weight_norm(nn.Linear(3, 2))
    assert type(legacy.weight.grad_fn).__name__ == "WeightNormInterfaceBackward0"


def test_parametrization_registration_and_assignment_errors_are_pytorchs():
    from ember.nn.utils import parametrize

    class Keep(nn.Module):
        def __init__(self, inverse=None):
            super().__init__()
            if inverse is not None:
                self.right_inverse = inverse

        def forward(self, *xs):
            return sum(xs)

    with pytest.raises(ValueError, match=r"^When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                         r"original.dtype: .*float32\nright_inverse\(original\).dtype: .*float64$"):
        parametrize.register_parametrization(nn.Linear(2, 2), "weight", Keep(lambda x: x.double()))
    with pytest.raises(ValueError, match=r"^'right_inverse' must return a Tensor or a Sequence of tensors "
                                         r"\(list, tuple...\). Got int$"):
        parametrize.register_parametrization(nn.Linear(2, 2), "weight", Keep(lambda x: 3))
    stacked = parametrize.register_parametrization(nn.Linear(2, 2), "weight", Keep())
    with pytest.raises(ValueError, match=r"^The tensor returned by parametrization.right_inverse must have the same "
                                         r"shape as module.weight, unless the `unsafe` flag is enabled.\n"
                                         r"module.weight.shape: .*\[2, 2\]\)\nreturned shape: .*\[1, 2\]\)$"):
        parametrize.register_parametrization(stacked, "weight", Keep(lambda x: x[:1]))
    with pytest.raises(ValueError, match=r"^Registering a parametrization may not change the shape of the tensor, "
                                         r"unless the `unsafe` flag is enabled.\nmodule.weight.shape: .*\n"
                                         r"parametrization\(module.weight\).shape: .*\[2, 3\]\)$"):
        parametrize.register_parametrization(stacked, "weight", nn.Linear(2, 3))
    unsafe = parametrize.register_parametrization(nn.Linear(2, 2), "weight", Keep(), unsafe=True)
    with pytest.raises(RuntimeError, match="^parametrization Keep does not implement right_inverse.$"):
        unsafe.weight = torch.ones(2, 2)
    two = parametrize.register_parametrization(nn.Linear(2, 2), "weight",
                                               Keep(lambda x: [x, x] if x.sum() != 4 else [x]))
    with pytest.raises(ValueError, match=r"^'right_inverse' must return a sequence of tensors of length 2. Got a "
                                         r"sequence of length 1.$"):
        two.weight = torch.ones(2, 2)
    ints = parametrize.register_parametrization(nn.Linear(2, 2), "weight",
                                                Keep(lambda x: x if x.sum() != 4 else x.int()))
    with pytest.raises(ValueError, match=r"^The tensor returned by `right_inverse` has dtype .*int32 while "
                                         r"`original` has dtype .*float32$"):
        ints.weight = torch.ones(2, 2)


def test_register_parametrization_property_right_inverse_and_removal():
    from ember.nn.utils import parametrize

    class Scale(nn.Module):
        def forward(self, x):
            return 2 * x

        def right_inverse(self, y):
            return y / 2

    lin = nn.Linear(2, 2).double()
    w0 = lin.weight.detach().numpy().copy()
    parametrize.register_parametrization(lin, "weight", Scale())
    assert parametrize.is_parametrized(lin) and parametrize.is_parametrized(lin, "weight")
    np.testing.assert_allclose(lin.weight.detach().numpy(), w0, rtol=1e-12)
    np.testing.assert_allclose(lin.parametrizations.weight.original.detach().numpy(), w0 / 2, rtol=1e-12)
    lin.weight = torch.ones(2, 2, dtype=torch.float64)
    np.testing.assert_allclose(lin.parametrizations.weight.original.detach().numpy(), 0.5)
    assert parametrize.type_before_parametrizations(lin) is nn.Linear
    parametrize.remove_parametrizations(lin, "weight", leave_parametrized=False)
    np.testing.assert_allclose(lin.weight.detach().numpy(), 0.5)
    assert type(lin) is nn.Linear and not parametrize.is_parametrized(lin)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        parametrize.register_parametrization(lin, "nope", Scale())


def test_assigning_a_parametrized_tensor_sets_the_originals_as_pytorch():
    """PyTorch `set_`s right_inverse's results into the originals: they take its shape and share its storage."""
    from ember.nn.utils import parametrize

    class LowRank(nn.Module):
        def forward(self, u, v):
            return u @ v.T

        def right_inverse(self, w):
            return w[:, :1].clone(), torch.ones(w.shape[1], 1)

    class Same(nn.Module):
        def forward(self, x):
            return x

        def right_inverse(self, x):
            return x

    lin = nn.Linear(4, 4)
    parametrize.register_parametrization(lin, "weight", LowRank())
    lin.weight = torch.arange(6.0).reshape(3, 2)
    assert lin.parametrizations.weight.original0.shape == (3, 1) and lin.weight.shape == (3, 2)
    np.testing.assert_allclose(lin.weight.detach().numpy(), [[0, 0], [2, 2], [4, 4]])
    lin = nn.Linear(2, 2)
    parametrize.register_parametrization(lin, "bias", Same())
    new = torch.zeros(2)
    lin.bias = new
    new.add_(3.0)
    np.testing.assert_allclose(lin.parametrizations.bias.original.detach().numpy(), [3.0, 3.0])


def test_parametrized_weight_norm_loads_an_old_weight_norm_state_dict():
    import warnings

    old = nn.Linear(3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        nn.utils.weight_norm(old)
    with torch.no_grad():
        old.weight_g.mul_(2.0)
    new = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2))
    result = new.load_state_dict(old.state_dict())
    assert not result.missing_keys and not result.unexpected_keys
    np.testing.assert_allclose(new.parametrizations.weight.original0.detach().numpy(), old.weight_g.detach().numpy())
    x = torch.ones(1, 3)
    np.testing.assert_allclose(new(x).detach().numpy(), old(x).detach().numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match=r"^Mode fan not supported, please use one of \['fan_in', 'fan_out'\]$"):
        nn.init.kaiming_normal_(torch.empty(3, 3), mode="fan")


def test_remove_weight_norm_leaves_a_parameter_when_only_v_requires_grad():
    # DINO freezes weight_norm's g; PyTorch still leaves `weight` a Parameter, since v requires grad
    from ember.nn.utils import parametrize

    lin = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2, bias=False))
    lin.parametrizations.weight.original0.requires_grad = False
    w = lin.weight.detach().numpy().copy()
    parametrize.remove_parametrizations(lin, "weight")
    assert [n for n, _ in lin.named_parameters()] == ["weight"] and lin.weight.is_leaf
    np.testing.assert_allclose(lin.weight.detach().numpy(), w)
    frozen = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2, bias=False)).requires_grad_(False)
    parametrize.remove_parametrizations(frozen, "weight")
    assert [n for n, _ in frozen.named_buffers()] == ["weight"] and not list(frozen.parameters())


def test_parametrize_cached_computes_each_tensor_once_per_block():
    from ember.nn.utils import parametrize

    calls = []

    class Scale(nn.Module):
        def forward(self, x):
            calls.append(1)
            return 3 * x

    lin = nn.Linear(2, 2).double()
    parametrize.register_parametrization(lin, "weight", Scale())
    assert len(calls) == 1  # registering evaluates it once (PyTorch's shape and dtype check)
    calls.clear()
    original = lin.parametrizations.weight.original
    x = torch.tensor([[1.0, -1.0]], dtype=torch.float64)
    with parametrize.cached():
        with parametrize.cached():  # nested: still the same tensor
            assert lin.weight is lin.weight
        w = lin.weight
        out = lin(x) + lin(x)  # two uses, one evaluation
    assert len(calls) == 1 and lin.weight is not w and len(calls) == 2
    out.sum().backward()
    # d/d original of sum(2 * x @ (3 W)^T) = 6 * x, for each output row
    np.testing.assert_allclose(original.grad.numpy(), [[6.0, -6.0], [6.0, -6.0]], rtol=1e-12)


def test_spectral_norm_bounds_the_largest_singular_value():
    torch.manual_seed(0)
    lin = nn.utils.parametrizations.spectral_norm(nn.Linear(6, 4).double())
    for _ in range(10):
        lin(torch.randn(3, 6, dtype=torch.float64))
    s = np.linalg.svd(lin.weight.detach().numpy(), compute_uv=False)
    assert s[0] == pytest.approx(1.0, rel=1e-6)
    lin.eval()
    w = lin.weight.detach().numpy()
    np.testing.assert_array_equal(lin.weight.detach().numpy(), w)
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nope'"):
        nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2), name="nope")


def test_clip_grad_norm_is_tensor_arithmetic_and_leaves_small_gradients_exact():
    g = np.array([0.1, -0.2, 0.3], dtype=np.float32)
    p = torch.zeros(3, requires_grad=True)
    p.grad = torch.tensor(g)
    clip_grad_norm_([p], max_norm=10.0)  # factor 1: the very same values
    np.testing.assert_array_equal(p.grad.numpy(), g)
    big = g * 100
    p.grad = torch.tensor(big)
    norm = clip_grad_norm_([p], max_norm=1.0)
    total = np.float32(np.sqrt(np.sum(big.astype(np.float64) ** 2)))
    coef = np.float32(1.0) / (total + np.float32(1e-6))  # in the gradients' dtype, as PyTorch's clamp(coef, max=1)
    assert norm.dtype == torch.float32
    np.testing.assert_allclose(p.grad.numpy(), big * coef, rtol=1e-6)


@pytest.mark.torch
def test_clip_grad_norm_matches_pytorch():
    t = pytest.importorskip("torch")
    g = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    for max_norm in (0.5, 100.0):
        p, q = torch.zeros(4, 5, requires_grad=True), t.zeros(4, 5, requires_grad=True)
        p.grad, q.grad = torch.tensor(g), t.tensor(g)
        a, b = clip_grad_norm_([p], max_norm), t.nn.utils.clip_grad_norm_([q], max_norm)
        np.testing.assert_allclose(a.item(), b.item(), rtol=1e-6)
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6)


def test_total_norm_is_the_norm_of_the_per_tensor_norms_in_their_dtype():
    """PyTorch stacks each gradient's float32 norm and takes their norm: two grads of [3, 3] give 5.9999995
    (printed tensor(6.0000)), not the 6.0 of one float64 pass."""
    grads = [torch.full((2,), 3.0), torch.full((2,), 3.0)]
    per = np.float32(np.sqrt(18.0))
    want = np.float32(np.sqrt(2 * np.float64(per) ** 2))
    total = nn.utils.get_total_norm(grads)
    assert total.dtype == torch.float32 and total.item() == want != 6.0
    mixed = nn.utils.get_total_norm([torch.ones(2, dtype=torch.float16), torch.ones(2)])
    assert mixed.dtype == torch.float32  # the stack of a float16 and a float32 norm promotes


def test_packing_checks_the_batch_and_padding_side_as_pytorch():
    from ember.nn.utils import rnn as rnn_utils

    with pytest.raises(RuntimeError, match=r"^Expected `len\(lengths\)` to be equal to batch_size, but got 3 "
                                           r"\(batch_size=2\)$"):
        rnn_utils.pack_padded_sequence(torch.ones(3, 2), [3, 2, 1])
    with pytest.raises(RuntimeError, match="^Expected padding_side to be one of left or right, but got middle.$"):
        rnn_utils.pad_sequence([torch.ones(2)], padding_side="middle")


def test_unsorted_packing_checks_the_batch_after_selecting_it():
    """With enforce_sorted=False PyTorch index_selects the sorted rows first: fewer lengths than rows pack them."""
    from ember.nn.utils import rnn as rnn_utils

    packed = rnn_utils.pack_padded_sequence(torch.ones(4, 8, 2), torch.tensor([5, 8, 3]), batch_first=True,
                                            enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [3, 3, 3, 2, 2, 1, 1, 1]


def test_right_inverse_changing_the_shape_is_refused_unless_unsafe():
    import ember.nn.utils.parametrize as P

    class FirstRow(nn.Module):
        def forward(self, X):
            return X

        def right_inverse(self, X):
            return X[:1]

    with pytest.raises(ValueError, match=r"may not change the shape of the tensor, unless `unsafe`(.|\n)*"
                                         r"unparametrized shape: \S*\(\[2, 3\]\)"):
        P.register_parametrization(nn.Linear(3, 2), "weight", FirstRow())
    lin = nn.Linear(3, 2)
    P.register_parametrization(lin, "weight", FirstRow(), unsafe=True)
    assert tuple(lin.weight.shape) == (1, 3)


def test_linear_with_a_vector_weight_and_a_bias_is_refused_as_addmm():
    with pytest.raises(RuntimeError, match="mat2 must be a matrix, got 1-D tensor"):
        nn.functional.linear(torch.ones(1, 3), torch.ones(6), torch.ones(2))
    assert nn.functional.linear(torch.ones(2, 1, 3), torch.ones(3), torch.ones(())).shape == (2, 1)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf])
def test_clip_grad_norm_of_complex_gradients_uses_their_moduli(norm_type):
    # PyTorch: the norm of a complex gradient is real (float32 for complex64), the moduli's norm
    z = np.array([1 + 2j, 3 - 1j], np.complex64)
    w = np.array([0.5j, -2.0], np.complex64)
    a, b = nn.Parameter(torch.zeros(2, dtype=torch.complex64)), nn.Parameter(torch.zeros(2, dtype=torch.complex64))
    a.grad, b.grad = torch.tensor(z), torch.tensor(w)
    total = clip_grad_norm_([a, b], 0.5, norm_type=norm_type)
    moduli = np.abs(np.concatenate([z, w])).astype(np.float64)
    want = moduli.max() if norm_type == math.inf else (moduli ** norm_type).sum() ** (1 / norm_type)
    assert total.dtype == torch.float32
    np.testing.assert_allclose(total.item(), want, rtol=1e-6)
    np.testing.assert_allclose(a.grad.numpy(), z * (0.5 / (want + 1e-6)), rtol=1e-5)


def test_padding_and_packing_record_pytorchs_nodes():
    from ember.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence

    a = torch.arange(6.0).reshape(3, 2).requires_grad_()
    b = torch.ones(1, 2)
    assert pad_sequence([a, b]).grad_fn.name() == "torch::autograd::CopySlices"
    assert pad_sequence([a, b], batch_first=True, padding_side="left").grad_fn.name() == "torch::autograd::CopySlices"
    packed = pack_sequence([a, b])
    assert type(packed.data.grad_fn).__name__ == "PackPaddedSequenceBackward0"
    padded, _ = pad_packed_sequence(packed, padding_value=-1.0, total_length=4)
    assert padded.grad_fn.name() == "torch::autograd::CopySlices"
    assert padded.detach().numpy()[:, 1, 0].tolist() == [1.0, -1.0, -1.0, -1.0]
    (padded * torch.arange(8.0).reshape(4, 2, 1)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[0.0, 0.0], [2.0, 2.0], [4.0, 4.0]])
    unsorted = pack_sequence([b, a], enforce_sorted=False)
    assert type(pad_packed_sequence(unsorted, batch_first=True)[0].grad_fn).__name__ == "IndexSelectBackward0"
    assert pack_padded_sequence(torch.zeros(3, 2, 1), [3, 1]).data.grad_fn is None
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dimensions$"):
        pad_sequence([torch.ones(2), torch.ones(())])
    with pytest.raises(RuntimeError, match="^ArrayRef: invalid slice, N = 1; size = 0$"):
        pad_sequence([torch.ones(())])
    with pytest.raises(RuntimeError, match="size of tensor a \\(3\\) must match the size of tensor b \\(2\\) at "
                                           "non-singleton dimension 1"):
        pad_sequence([torch.ones(2, 3), torch.ones(2)])


def test_packed_sequence_constructor_fills_unsorted_indices_and_takes_a_pair():
    from ember.nn.utils.rnn import PackedSequence, PackedSequence_, pad_packed_sequence

    p = PackedSequence(torch.arange(3.0), torch.tensor([2, 1]), torch.tensor([1, 0]))
    assert p.unsorted_indices.tolist() == [1, 0] and isinstance(p, PackedSequence_)
    padded, lengths = pad_packed_sequence(p)
    assert padded.tolist() == [[1.0, 0.0], [0.0, 2.0]] and lengths.tolist() == [1, 2]
    pair = PackedSequence((torch.arange(3.0), torch.tensor([2, 1])))
    assert pair.batch_sizes.tolist() == [2, 1] and pair.sorted_indices is None and pair.unsorted_indices is None
    assert pair._replace(data=pair.data * 2).data.tolist() == [0.0, 2.0, 4.0]
    with pytest.raises(AttributeError, match="'list' object has no attribute 'device'"):
        PackedSequence(torch.ones(3), [2, 1])
    with pytest.raises(AssertionError, match="Expected data to be a list or tuple of length 2"):
        PackedSequence(torch.ones(3))


def test_parameters_to_vector_views_each_parameter_as_pytorch_does():
    w = torch.arange(6.0).view(2, 3).requires_grad_()
    vec = parameters_to_vector([w, torch.ones(2)])
    assert vec.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 1.0, 1.0] and type(vec.grad_fn).__name__ == "CatBackward0"
    with pytest.raises(RuntimeError, match="^view size is not compatible with input tensor's size and stride"):
        parameters_to_vector([w.detach().t()])
