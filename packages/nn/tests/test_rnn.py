"""RNN/LSTM/GRU and their cells against float64 numpy recurrences with the same weights."""

import warnings

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn


def sig(x):
    return 1 / (1 + np.exp(-x))


def lstm_cell_ref(x, h, c, w_ih, w_hh, b_ih, b_hh):
    i, f, g, o = np.split(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, axis=-1)
    c = sig(f) * c + sig(i) * np.tanh(g)
    return sig(o) * np.tanh(c), c


def gru_cell_ref(x, h, w_ih, w_hh, b_ih, b_hh):
    ir, iz, in_ = np.split(x @ w_ih.T + b_ih, 3, axis=-1)
    hr, hz, hn = np.split(h @ w_hh.T + b_hh, 3, axis=-1)
    r, z = sig(ir + hr), sig(iz + hz)
    n = np.tanh(in_ + r * hn)
    return (1 - z) * n + z * h


def rnn_cell_ref(x, h, w_ih, w_hh, b_ih, b_hh):
    return np.tanh(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh)


def run_ref(mod, x, states):
    """(L, N, I) reference of a multi-layer, maybe bidirectional, recurrent module."""
    dirs = 2 if mod.bidirectional else 1
    finals = [[] for _ in states]
    inp = x
    for layer in range(mod.num_layers):
        outs = []
        for d in range(dirs):
            sfx = "_reverse" if d else ""
            p = [getattr(mod, f"{k}_l{layer}{sfx}").detach().numpy() for k in ("weight_ih", "weight_hh", "bias_ih",
                                                                                   "bias_hh")]
            st = [s[layer * dirs + d] for s in states]
            seq = [None] * len(inp)
            order = range(len(inp) - 1, -1, -1) if d else range(len(inp))
            for t in order:
                if isinstance(mod, nn.LSTM):
                    st = list(lstm_cell_ref(inp[t], st[0], st[1], *p))
                elif isinstance(mod, nn.GRU):
                    st = [gru_cell_ref(inp[t], st[0], *p)]
                else:
                    st = [rnn_cell_ref(inp[t], st[0], *p)]
                seq[t] = st[0]
            for k in range(len(states)):
                finals[k].append(st[k])
            outs.append(np.stack(seq))
        inp = np.concatenate(outs, -1)
    return inp, [np.stack(f) for f in finals]


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
@pytest.mark.parametrize("num_layers, bidirectional, batch_first", [(1, False, False), (2, True, True),
                                                                    (2, False, True)])
def test_recurrent_layers_match_reference(cls, num_layers, bidirectional, batch_first):
    torch.manual_seed(1)
    mod = cls(3, 4, num_layers=num_layers, bidirectional=bidirectional, batch_first=batch_first).double()
    dirs = 2 if bidirectional else 1
    x = torch.randn(2, 5, 3, dtype=torch.float64) if batch_first else torch.randn(5, 2, 3, dtype=torch.float64)
    h0 = torch.randn(num_layers * dirs, 2, 4, dtype=torch.float64)
    c0 = torch.randn(num_layers * dirs, 2, 4, dtype=torch.float64)
    hx = (h0, c0) if cls is nn.LSTM else h0
    out, hn = mod(x, hx)
    xs = x.detach().numpy()
    xs = xs.transpose(1, 0, 2) if batch_first else xs
    states = [h0.numpy(), c0.numpy()] if cls is nn.LSTM else [h0.numpy()]
    ref_out, ref_finals = run_ref(mod, xs, states)
    ref_out = ref_out.transpose(1, 0, 2) if batch_first else ref_out
    assert out.shape == ((2, 5, 4 * dirs) if batch_first else (5, 2, 4 * dirs))
    np.testing.assert_allclose(out.detach().numpy(), ref_out, rtol=1e-10, atol=1e-12)
    got = hn if cls is nn.LSTM else (hn,)
    for g, r in zip(got, ref_finals):
        assert g.shape == (num_layers * dirs, 2, 4)
        np.testing.assert_allclose(g.detach().numpy(), r, rtol=1e-10, atol=1e-12)


def test_lstm_default_state_unbatched_and_parameter_names():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    names = [n for n, _ in lstm.named_parameters()]
    assert names[:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    assert "weight_ih_l1_reverse" in names and lstm.weight_ih_l1.shape == (16, 8)
    bound = 1 / 2
    assert all(np.abs(p.detach().numpy()).max() <= bound for p in lstm.parameters())
    x = torch.randn(5, 3)
    out, (h, c) = lstm(x)
    assert out.shape == (5, 8) and h.shape == (4, 4) and c.shape == (4, 4)
    out_b, _ = lstm(x.unsqueeze(1))
    np.testing.assert_allclose(out.detach().numpy(), out_b.detach().numpy()[:, 0], rtol=1e-6)


def test_lstm_records_one_node_per_layer_direction_and_float32_matches_reference():
    """A 2-layer bidirectional float32 LSTM records four layer nodes (the steps run inside them);
    its outputs and gradients agree with the float64 recurrence, and every weight gradient comes
    in the parameter's row-major layout."""
    torch.manual_seed(2)
    mod = nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)
    x = torch.randn(2, 6, 3, requires_grad=True)
    out, (h, c) = mod(x)
    seen, stack, layers = set(), [out.grad_fn, h.grad_fn, c.grad_fn], 0
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        layers += type(node).__name__ == "MkldnnRnnLayerBackward0"
        stack.extend(n for n, _ in node.next_functions)
    assert layers == 4
    states = [np.zeros((4, 2, 4)), np.zeros((4, 2, 4))]
    ref_out, _ = run_ref(mod, x.detach().numpy().astype(np.float64).transpose(1, 0, 2), states)
    np.testing.assert_allclose(out.detach().numpy(), ref_out.transpose(1, 0, 2), rtol=1e-5, atol=1e-6)
    (out * out).sum().backward()
    ref = nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True).double()
    ref.load_state_dict({k: v.double() for k, v in mod.state_dict().items()})
    x64 = x.detach().double().requires_grad_()
    out64, _ = ref(x64)
    (out64 * out64).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x64.grad.numpy(), rtol=1e-4, atol=1e-6)
    for p, q in zip(mod.parameters(), ref.parameters()):
        assert p.grad.is_contiguous() and p.grad.dtype == torch.float32
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_recurrent_errors():
    lstm = nn.LSTM(3, 4)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 2"):
        lstm(torch.zeros(5, 1, 2))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 1, 4\), got \[2, 1, 4\]"):
        lstm(torch.zeros(5, 1, 3), (torch.zeros(2, 1, 4), torch.zeros(1, 1, 4)))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(1, 1, 4\), got \[1, 2, 4\]"):
        lstm(torch.zeros(5, 1, 3), (torch.zeros(1, 1, 4), torch.zeros(1, 2, 4)))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 1, 4\), got \[1, 2, 4\]"):
        nn.GRU(3, 4)(torch.zeros(5, 1, 3), torch.zeros(1, 2, 4))
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.GRU(3, 4, dropout=2.0)
    # PyTorch's words differ by class: RNN's says "4D tensor", LSTM's and GRU's "4D"
    with pytest.raises(ValueError, match="^RNN: Expected input to be 2D or 3D, got 4D tensor instead$"):
        nn.RNN(3, 4, nonlinearity="relu")(torch.zeros(5, 1, 3, 1))
    with pytest.raises(ValueError, match="^LSTM: Expected input to be 2D or 3D, got 4D instead$"):
        lstm(torch.zeros(5, 1, 3, 1))
    with pytest.raises(ValueError, match="^GRU: Expected input to be 2D or 3D, got 1D instead$"):
        nn.GRU(3, 4)(torch.zeros(3))


def test_dropout_between_layers_only_in_training():
    torch.manual_seed(0)
    lstm = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = torch.randn(4, 2, 3)
    lstm.eval()
    a, _ = lstm(x)
    b, _ = lstm(x)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    lstm.train()
    c, _ = lstm(x)
    assert not np.allclose(a.detach().numpy(), c.detach().numpy())


def test_cells_match_reference():
    x = torch.randn(3, 5, dtype=torch.float64)
    h = torch.randn(3, 4, dtype=torch.float64)
    c = torch.randn(3, 4, dtype=torch.float64)
    lc = nn.LSTMCell(5, 4).double()
    p = [t.detach().numpy() for t in (lc.weight_ih, lc.weight_hh, lc.bias_ih, lc.bias_hh)]
    h1, c1 = lc(x, (h, c))
    rh, rc = lstm_cell_ref(x.numpy(), h.numpy(), c.numpy(), *p)
    np.testing.assert_allclose(h1.detach().numpy(), rh, rtol=1e-12)
    np.testing.assert_allclose(c1.detach().numpy(), rc, rtol=1e-12)
    gc = nn.GRUCell(5, 4).double()
    p = [t.detach().numpy() for t in (gc.weight_ih, gc.weight_hh, gc.bias_ih, gc.bias_hh)]
    np.testing.assert_allclose(gc(x, h).detach().numpy(), gru_cell_ref(x.numpy(), h.numpy(), *p), rtol=1e-12)
    rc_ = nn.RNNCell(5, 4).double()
    p = [t.detach().numpy() for t in (rc_.weight_ih, rc_.weight_hh, rc_.bias_ih, rc_.bias_hh)]
    np.testing.assert_allclose(rc_(x, h).detach().numpy(), rnn_cell_ref(x.numpy(), h.numpy(), *p), rtol=1e-12)
    assert gc(x[0]).shape == (4,)
    relu_cell = nn.RNNCell(5, 4, nonlinearity="relu")
    assert (relu_cell(x.float()).detach().numpy() >= 0).all()


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
def test_constructor_checks_and_single_layer_dropout_warning(cls):
    with pytest.warns(UserWarning, match=r"non-zero dropout expects num_layers greater than 1, but got dropout=0\.2 "
                                         r"and num_layers=1$"):
        cls(2, 3, dropout=0.2)
    with pytest.raises(TypeError, match="^bias should be of type bool, got: int$"):
        cls(2, 3, bias=1)
    with pytest.raises(TypeError, match="^batch_first should be of type bool, got: int$"):
        cls(2, 3, batch_first=0)
    with pytest.raises(TypeError, match="^input_size should be of type int, got: float$"):
        cls(2.0, 3)
    with pytest.raises(ValueError, match="^input_size must be greater than zero$"):
        cls(0, 3)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        cls(2, 3, dropout="0.1")


def test_packed_sequence_moves_and_casts_like_a_tensor():
    from ember.nn.utils.rnn import PackedSequence, pack_padded_sequence

    x = torch.arange(24.0).reshape(3, 4, 2)
    p = pack_padded_sequence(x, torch.tensor([2, 4, 3]), batch_first=True, enforce_sorted=False)
    d = p.double()
    assert type(d) is PackedSequence and d.data.dtype == torch.float64 and d.batch_sizes.dtype == torch.int64
    np.testing.assert_array_equal(d.data.numpy(), p.data.numpy())
    assert d.sorted_indices.tolist() == [1, 2, 0] and d.unsorted_indices.tolist() == [2, 0, 1]
    assert p.to(torch.float32) is p and p.cpu() is p and p.to(dtype=torch.float16).data.dtype == torch.float16
    assert p.long().data.dtype == torch.int64 and p.byte().data.dtype == torch.uint8
    assert p.is_cuda is False and p.is_pinned() is False and p.count(None) == 0


def test_input_dtype_and_state_rank_errors_as_pytorch():
    lstm = nn.LSTM(2, 3)
    dtype_msg = (r"^RNN input dtype \(.*float64\) does not match weight dtype \(.*float32\)\. Convert input: "
                 r"input\.to\(.*float32\), or convert model: model\.to\(.*float64\)$")
    with pytest.raises(ValueError, match=dtype_msg):
        lstm(torch.ones(4, 1, 2, dtype=torch.float64))
    with pytest.raises(RuntimeError, match=r"^For unbatched 2-D input, hx and cx should also be 2-D but got "
                                           r"\(3-D, 3-D\) tensors$"):
        lstm(torch.ones(4, 2), (torch.zeros(1, 1, 3), torch.zeros(1, 1, 3)))
    with pytest.raises(RuntimeError, match=r"^For batched 3-D input, hx should also be 3-D but got 2-D tensor$"):
        nn.GRU(2, 3)(torch.ones(4, 1, 2), torch.zeros(1, 3))
    with torch.autocast("cpu", dtype=torch.bfloat16):  # autocast casts inside; no dtype refusal
        out, _ = lstm(torch.ones(4, 1, 2, dtype=torch.bfloat16))
    assert out.shape == (4, 1, 3)


def test_lstm_given_a_bare_tensor_state_reads_its_rows_as_h_and_c():
    # PyTorch indexes hx[0], hx[1]: one row is an IndexError, two rows of the wrong rank its rank error
    lstm = nn.LSTM(2, 3)
    with pytest.raises(IndexError, match=r"^index 1 is out of bounds for dimension 0 with size 1$"):
        lstm(torch.ones(4, 2, 2), torch.zeros(1, 2, 3))
    with pytest.raises(RuntimeError, match=r"^For batched 3-D input, hx and cx should also be 3-D but got "
                                           r"\(2-D, 2-D\) tensors$"):
        lstm(torch.ones(4, 2, 2), torch.zeros(2, 2, 3))
    out, (h, c) = lstm(torch.ones(4, 2, 2), torch.zeros(2, 1, 2, 3))
    ref, (h_ref, c_ref) = lstm(torch.ones(4, 2, 2))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(c.detach().numpy(), c_ref.detach().numpy(), rtol=1e-6)


def test_packed_lstm_state_of_another_batch_fails_in_pytorchs_broadcast_words():
    # PyTorch checks no batch of a packed LSTM's (h, c): its kernel's broadcasts speak
    from ember.nn.utils.rnn import pack_sequence

    lstm = nn.LSTM(3, 3)
    packed = pack_sequence([torch.zeros(4, 3), torch.zeros(2, 3)])
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(2\) at "
                                           r"non-singleton dimension 0$"):
        lstm(packed, (torch.zeros(1, 3, 3), torch.zeros(1, 2, 3)))
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size of tensor b \(3\) at "):
        lstm(packed, (torch.zeros(1, 2, 3), torch.zeros(1, 3, 3)))
    with pytest.raises(RuntimeError, match=r"^output with shape \[1, 12\] doesn't match the broadcast shape "
                                           r"\[2, 12\]$"):
        lstm(packed, (torch.zeros(1, 1, 3), torch.zeros(1, 2, 3)))
    _, (h, c) = lstm(packed, (torch.zeros(1, 2, 3), torch.zeros(1, 1, 3)))  # one cell state serves the batch
    assert h.shape == c.shape == (1, 2, 3)


@pytest.mark.parametrize("cls", [nn.RNN, nn.GRU])
def test_rnn_and_gru_refuse_proj_size(cls):
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM, not RNN or GRU"):
        cls(2, 3, proj_size=0)


@pytest.mark.parametrize("cls,name", [(nn.RNN, "TransposeBackward1"), (nn.GRU, "TransposeBackward1"),
                                      (nn.LSTM, "TransposeBackward0")])
def test_batch_first_output_node_is_pytorchs(cls, name):
    """PyTorch's RNN and GRU transpose a batch_first output in place (TransposeBackward1), its LSTM does not."""
    out, _ = cls(2, 3, batch_first=True)(torch.ones(4, 5, 2))
    assert type(out.grad_fn).__name__ == name and out.shape == (4, 5, 3)


def test_lstm_layer_node_is_pytorchs():
    """PyTorch's CPU LSTM records one MkldnnRnnLayerBackward0 (a C++ node: callable, printed without a module) per
    layer direction, with the input and the four weights as its first edges."""
    mod = nn.LSTM(2, 3)
    out, _ = mod(torch.ones(4, 1, 2, requires_grad=True))
    node = out.grad_fn
    assert node.name() == "MkldnnRnnLayerBackward0" and repr(node).startswith("<MkldnnRnnLayerBackward0 object at 0x")
    assert callable(node) and type(node).__module__ == "builtins"
    assert [type(n).__name__ if n is not None else None for n, _ in node.next_functions] == \
        ["AccumulateGrad"] * 5 + [None, None]


def test_lstm_repr_puts_proj_size_second_as_pytorch():
    m = nn.LSTM(2, 3, 2, dropout=0.1, batch_first=True, bidirectional=True, proj_size=1)
    assert repr(m) == "LSTM(2, 3, proj_size=1, num_layers=2, batch_first=True, dropout=0.1, bidirectional=True)"


def test_repr_puts_proj_size_first_and_rnn_gru_refuse_it():
    """PyTorch's extra_repr lists proj_size right after the sizes; RNN and GRU raise on any proj_size keyword."""
    assert repr(nn.LSTM(4, 6, 2, proj_size=3)) == "LSTM(4, 6, proj_size=3, num_layers=2)"
    for cls in (nn.RNN, nn.GRU):
        with pytest.raises(ValueError, match="^proj_size argument is only supported for LSTM, not RNN or GRU$"):
            cls(4, 6, proj_size=0)


def test_wrong_hidden_state_kinds_fail_as_pytorchs_forward():
    # an LSTM's (h, c) given to a GRU/RNN: PyTorch calls hx.dim(); an LSTM indexes hx[0] and hx[1]
    x = torch.ones(3, 5, 7)
    h = torch.zeros(1, 5, 4)
    for m in (nn.GRU(7, 4), nn.RNN(7, 4)):
        with pytest.raises(AttributeError, match="^'tuple' object has no attribute 'dim'$"):
            m(x, (h, h))
        with pytest.raises(AttributeError, match="^'list' object has no attribute 'dim'$"):
            m(x[0], [h[:, 0]])
    with pytest.raises(IndexError, match="^index 1 is out of bounds for dimension 0 with size 1$"):
        nn.LSTM(7, 4)(x, h)
    with pytest.raises(IndexError, match="^tuple index out of range$"):
        nn.LSTM(7, 4)(x, (h,))
    with pytest.raises(RuntimeError, match=r"hx and cx should also be 3-D but got \(2-D, 2-D\) tensors$"):
        nn.LSTM(7, 4, num_layers=2)(x, torch.zeros(2, 5, 4))
    assert nn.LSTM(7, 4)(x, [h, h])[0].shape == (3, 5, 4)


def test_flat_weights_lists_the_parameters_in_their_names_order():
    m = nn.LSTM(3, 2, num_layers=2, bidirectional=True)
    assert len(m._flat_weights) == len(m._flat_weights_names) == 16
    assert all(p is getattr(m, n) for p, n in zip(m._flat_weights, m._flat_weights_names, strict=True))
    assert [p.shape for p in nn.GRU(3, 2, bias=False)._flat_weights] == [(6, 3), (6, 2)]


@pytest.mark.parametrize("make", [lambda: nn.LSTM(3, 2), lambda: nn.GRU(3, 2), lambda: nn.RNN(3, 2),
                                  lambda: nn.LSTM(3, 2, num_layers=2, bidirectional=True, proj_size=1)])
def test_empty_batches_run_and_empty_sequences_raise_as_pytorch(make):
    m = make()
    x = torch.zeros(4, 0, 3, requires_grad=True)
    out, h = m(x)
    h = h[0] if isinstance(h, tuple) else h
    assert tuple(out.shape) == (4, 0, out.shape[2]) and h.shape[1] == 0
    out.sum().backward()
    assert tuple(x.grad.shape) == (4, 0, 3) and float(m.weight_ih_l0.grad.abs().sum()) == 0.0
    for empty in (torch.zeros(0, 2, 3), torch.zeros(0, 3), torch.zeros(0, 0, 3)):
        with pytest.raises(RuntimeError, match="^Expected sequence length to be larger than 0 in RNN$"):
            m(empty)
    m.batch_first = True
    assert tuple(m(torch.zeros(0, 2, 3))[0].shape[:2]) == (0, 2)


def test_packed_input_of_another_dtype_raises_the_lstm_gemm_error_and_the_rnn_value_error():
    from ember.nn.utils.rnn import pack_sequence

    seq = pack_sequence([torch.tensor([[1.0], [2.0]], dtype=torch.float64)])
    with pytest.raises(RuntimeError, match="^mat1 and mat2 must have the same dtype, but got Double and Float$"):
        nn.LSTM(1, 2)(seq)
    with pytest.raises(RuntimeError, match="^mat1 and mat2 must have the same dtype, but got Long and Float$"):
        nn.LSTM(1, 2, proj_size=1)(pack_sequence([torch.tensor([[1], [2]])]))
    for m in (nn.GRU(1, 2), nn.RNN(1, 2)):
        with pytest.raises(ValueError, match=r"RNN input dtype \(\w+.float64\) does not match weight dtype"):
            m(seq)


def test_packed_inter_layer_dropout_draws_one_mask_over_the_packed_data():
    """PyTorch drops the packed data between layers: equal lengths give the unpacked run's values, and unequal
    lengths move the random stream by sum(lengths) * hidden draws, as dropout of that many elements does."""
    from ember.nn.utils.rnn import pack_padded_sequence

    torch.manual_seed(0)
    lstm = nn.LSTM(2, 3, num_layers=2, dropout=0.5)
    x = torch.randn(4, 2, 2)
    torch.manual_seed(1)
    plain = lstm(x)[0]
    torch.manual_seed(1)
    packed = lstm(pack_padded_sequence(x, [4, 4]))[0]
    np.testing.assert_allclose(packed.data.detach().numpy(), plain.detach().numpy().reshape(8, 3), rtol=1e-5)
    packed.data.sum().backward()
    assert lstm.weight_ih_l0.grad is not None
    torch.manual_seed(1)
    lstm(pack_padded_sequence(x, [4, 2]))
    after = torch.rand(1).item()
    torch.manual_seed(1)
    nn.functional.dropout(torch.ones(6, 3), 0.5)
    assert after == torch.rand(1).item()


def test_pad_sequence_of_0d_tensors_raises_pytorchs_errors():
    from ember.nn.utils.rnn import pad_sequence

    with pytest.raises(RuntimeError, match=r"^ArrayRef: invalid slice, N = 1; size = 0$"):
        pad_sequence([torch.tensor(1.0)])
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dimensions$"):
        pad_sequence([torch.ones(2), torch.tensor(1.0)])


@pytest.mark.parametrize("count", [0, 1, 3])
def test_lstm_cell_refuses_other_than_two_batched_states(count):
    cell = nn.LSTMCell(2, 4)
    with pytest.raises(RuntimeError, match=r"^lstm_cell expects two hidden states$"):
        cell(torch.ones(3, 2), (torch.zeros(3, 4),) * count)


def test_lstm_cell_unbatched_step_reads_the_first_two_states():
    cell = nn.LSTMCell(2, 4)
    with pytest.raises(IndexError):
        cell(torch.ones(2), (torch.zeros(4),))
    h, c = cell(torch.ones(2), (torch.zeros(4), torch.zeros(4), torch.ones(4)))
    h0, c0 = cell(torch.ones(2), (torch.zeros(4), torch.zeros(4)))
    np.testing.assert_array_equal(h.detach().numpy(), h0.detach().numpy())
    np.testing.assert_array_equal(c.detach().numpy(), c0.detach().numpy())


def test_gru_cell_output_node_is_pytorchs_add_and_its_gradients_are_the_formulas():
    """PyTorch's CPU GRUCell ends `n + z * (h - n)`: its output's grad_fn is AddBackward0 (ember's fused node
    takes that name); the gradients are those of the unfused float64 formula."""
    rng = np.random.default_rng(3)
    cell = nn.GRUCell(3, 4).double()
    x = torch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    h = torch.tensor(rng.standard_normal((2, 4)), requires_grad=True)
    out = cell(x, h)
    assert out.grad_fn.name() == "AddBackward0" and cell(x[0], h[0]).grad_fn.name() == "SqueezeBackward1"
    gx, gh = torch.autograd.grad(out.sum(), (x, h))
    gi, gg = x @ cell.weight_ih.t() + cell.bias_ih, h @ cell.weight_hh.t() + cell.bias_hh
    r = torch.sigmoid(gi[:, :4] + gg[:, :4])
    z = torch.sigmoid(gi[:, 4:8] + gg[:, 4:8])
    n = torch.tanh(gi[:, 8:] + r * gg[:, 8:])
    want = torch.autograd.grad(((1 - z) * n + z * h).sum(), (x, h))
    np.testing.assert_allclose(gx.numpy(), want[0].numpy(), rtol=1e-10)
    np.testing.assert_allclose(gh.numpy(), want[1].numpy(), rtol=1e-10)


@pytest.mark.parametrize("make", [lambda: nn.GRUCell(3, 4), lambda: nn.LSTMCell(3, 4), lambda: nn.RNNCell(3, 4)])
def test_cells_refuse_a_hidden_state_of_another_dtype_in_addmms_words(make):
    # PyTorch 2.13's cells compute linear(hx, w_hh, b_hh): with a bias, addmm's "mat1 and mat2" message
    cell = make()
    h = torch.zeros(2, 4, dtype=torch.float64)
    hx = (h, torch.zeros(2, 4)) if isinstance(cell, nn.LSTMCell) else h
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 must have the same dtype, but got Double and Float$"):
        cell(torch.zeros(2, 3), hx)


def test_lstm_with_projections_warns_once_as_pytorchs_cpu_kernel():
    """PyTorch 2.13's TORCH_WARN_ONCE for a dense float32/bfloat16 input (packed or float64 ones never warn)."""
    from ember.core.ops import _util

    msg = ("LSTM with projections is not supported with oneDNN. Using default implementation. (Triggered internally "
           "at /__w/pytorch/pytorch/aten/src/ATen/native/RNN.cpp:1512.)")
    _util._warned_once.discard(msg)
    m = nn.LSTM(4, 6, proj_size=3)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        m.double()(torch.randn(5, 2, 4, dtype=torch.float64))
        assert not seen
        m.float()(torch.randn(5, 2, 4))
        m(torch.randn(5, 2, 4))
    assert [str(w.message) for w in seen] == [msg]
