"""`Embedding`/`EmbeddingBag(sparse=True)`: the weight's gradient is a sparse COO tensor as PyTorch's (indices the
looked-up ids in order, uncoalesced, padding left out), accumulates as PyTorch's, and trains with SparseAdam, SGD
and Adagrad to PyTorch's values; the other optimizers refuse it with PyTorch's messages."""

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn, optim
from ember.nn import functional as F

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled")

W0 = np.random.default_rng(0).standard_normal((7, 3))
IDX = np.array([[3, 1, 0, 3], [3, 5, 2, 6]])


def _grad_parts(g):
    return g._indices().numpy().tolist(), g._values().detach().numpy(), g._nnz(), g.is_coalesced()


def _pair(**kw):
    """The same sparse embedding in ember and in PyTorch (float64, W0)."""
    pt = pytest.importorskip("torch")
    e = nn.Embedding.from_pretrained(torch.tensor(W0.copy()), freeze=False, sparse=True, **kw)
    t = pt.nn.Embedding.from_pretrained(pt.tensor(W0.copy()), freeze=False, sparse=True, **kw)
    return pt, e, t


def test_embedding_gradient_is_pytorchs_sparse_tensor_and_the_dense_one_densified():
    pt, e, t = _pair(padding_idx=1)
    up = np.random.default_rng(1).standard_normal(IDX.shape + (3,))
    (e(torch.tensor(IDX)) * torch.tensor(up)).sum().backward()
    (t(pt.tensor(IDX)) * pt.tensor(up)).sum().backward()
    g, tg = e.weight.grad, t.weight.grad
    assert g.is_sparse and g.layout == torch.sparse_coo and tuple(g.shape) == (7, 3)
    assert g._indices().tolist() == [[3, 0, 3, 3, 5, 2, 6]] == tg._indices().tolist()
    np.testing.assert_array_equal(g._values().numpy(), tg._values().numpy())
    assert (g._nnz(), g.is_coalesced()) == (tg._nnz(), tg.is_coalesced()) == (7, False)
    # the dense computation: each row's summed gradient, zero at padding_idx and at rows never looked up
    dense = np.zeros((7, 3))
    np.add.at(dense, IDX.reshape(-1), up.reshape(-1, 3))
    dense[1] = 0
    np.testing.assert_allclose(g.to_dense().numpy(), dense, rtol=1e-15)
    np.testing.assert_allclose(g.coalesce()._values().numpy(), tg.coalesce()._values().numpy(), rtol=1e-15)
    assert g.coalesce()._indices().tolist() == tg.coalesce()._indices().tolist()
    assert type(e(torch.tensor(IDX)).grad_fn).__name__ == "EmbeddingBackward0"


def test_functional_forms_and_single_or_padding_only_lookups_match_pytorch():
    pt = pytest.importorskip("torch")
    for ids, pad in (([3], None), ([1, 1], 1), ([4, 4], None), ([2, 1], 1)):
        w = torch.tensor(W0.copy(), requires_grad=True)
        tw = pt.tensor(W0.copy(), requires_grad=True)
        F.embedding(torch.tensor(ids), w, padding_idx=pad, sparse=True).sum().backward()
        pt.nn.functional.embedding(pt.tensor(ids), tw, padding_idx=pad, sparse=True).sum().backward()
        assert w.grad._indices().tolist() == tw.grad._indices().tolist()
        assert tuple(w.grad._indices().shape) == tuple(tw.grad._indices().shape)
        assert (w.grad._nnz(), w.grad.is_coalesced()) == (tw.grad._nnz(), tw.grad.is_coalesced())
    w = torch.tensor(W0.copy(), requires_grad=True)
    torch.embedding(w, torch.tensor([2, 5]), -1, False, True).sum().backward()
    assert w.grad.is_sparse and w.grad._indices().tolist() == [[2, 5]]


@pytest.mark.parametrize("mode, psw, pad", [("sum", False, None), ("mean", False, 1), ("sum", True, 1),
                                            ("mean", False, None)])
def test_embedding_bag_gradient_matches_pytorch(mode, psw, pad):
    pt = pytest.importorskip("torch")
    ids, offsets = np.array([3, 1, 0, 3, 6, 1, 2]), np.array([0, 2, 2, 5])
    sw = np.random.default_rng(2).standard_normal(ids.shape)
    up = np.random.default_rng(3).standard_normal((4, 3))
    res = []
    for lib, bag_cls in ((torch, nn.EmbeddingBag), (pt, pt.nn.EmbeddingBag)):
        bag = bag_cls.from_pretrained(lib.tensor(W0.copy()), freeze=False, mode=mode, sparse=True, padding_idx=pad)
        w = lib.tensor(sw, requires_grad=True) if psw else None
        (bag(lib.tensor(ids), lib.tensor(offsets), per_sample_weights=w) * lib.tensor(up)).sum().backward()
        res.append((bag.weight.grad, w.grad.numpy() if psw else None, type(bag(lib.tensor(ids),
                                                                               lib.tensor(offsets)).grad_fn).__name__))
    (g, gw, name), (tg, tgw, tname) = res
    assert g.is_sparse and g._indices().tolist() == tg._indices().tolist()
    np.testing.assert_allclose(g._values().numpy(), tg._values().numpy(), rtol=1e-14)
    assert g.is_coalesced() == tg.is_coalesced() and name == tname == "EmbeddingBagBackward0"
    if psw:
        np.testing.assert_allclose(gw, tgw, rtol=1e-14)


def test_two_backward_passes_merge_into_the_same_grad_as_pytorch():
    pt, e, t = _pair()
    for ids in ([[3, 1, 0], [3, 5, 2]], [4, 0], [6, 1, 3, 3]):
        e(torch.tensor(ids)).pow(2).sum().backward()
        t(pt.tensor(ids)).pow(2).sum().backward()
    first = e.weight.grad
    assert _grad_parts(first)[0] == _grad_parts(t.weight.grad)[0]
    np.testing.assert_allclose(first._values().numpy(), t.weight.grad._values().numpy(), rtol=1e-15)
    assert first._nnz() == t.weight.grad._nnz() and first.is_coalesced() == t.weight.grad.is_coalesced()
    e(torch.tensor([2, 2])).sum().backward()  # an expanded gradient: concatenated, as PyTorch's
    t(pt.tensor([2, 2])).sum().backward()
    assert e.weight.grad is first  # accumulated in place, as PyTorch's `variable_grad += new_grad`
    assert first._indices().tolist() == t.weight.grad._indices().tolist()
    np.testing.assert_allclose(first._values().numpy(), t.weight.grad._values().numpy(), rtol=1e-15)


@pytest.mark.parametrize("padding_idx, expected", [(None, [[4, 0, 2, 0]]), (1, [[2, 0, 4, 0]])])
def test_two_lookups_in_one_graph_sum_as_pytorchs_input_buffer(padding_idx, expected):
    """A sum's gradient is expanded: its strided values make PyTorch concatenate (new + old) where contiguous
    ones (selected past a padding row) merge."""
    pt, e, t = _pair(padding_idx=padding_idx)
    (e(torch.tensor([4, 0])).sum() + 2 * e(torch.tensor([2, 0])).sum()).backward()
    (t(pt.tensor([4, 0])).sum() + 2 * t(pt.tensor([2, 0])).sum()).backward()
    assert e.weight.grad._indices().tolist() == t.weight.grad._indices().tolist() == expected
    np.testing.assert_array_equal(e.weight.grad._values().numpy(), t.weight.grad._values().numpy())
    e(torch.tensor([3])).sum().backward()
    t(pt.tensor([3])).sum().backward()
    assert e.weight.grad._indices().tolist() == t.weight.grad._indices().tolist()
    assert e.weight.grad.is_coalesced() == t.weight.grad.is_coalesced()


def test_sparse_and_dense_gradients_of_one_weight_sum_dense_as_pytorch():
    w = torch.tensor(W0.copy(), requires_grad=True)
    dense = np.ones((7, 3))
    dense[[1, 2]] += 1
    (F.embedding(torch.tensor([1, 2]), w, sparse=True).sum() + w.sum()).backward()
    assert not w.grad.is_sparse
    np.testing.assert_array_equal(w.grad.numpy(), dense)
    w.grad = None
    F.embedding(torch.tensor([1, 2]), w, sparse=True).sum().backward()
    w.sum().backward()
    assert not w.grad.is_sparse
    np.testing.assert_array_equal(w.grad.numpy(), dense)
    w.grad = None
    w.sum().backward()
    g0 = w.grad
    F.embedding(torch.tensor([1, 2]), w, sparse=True).sum().backward()
    assert w.grad is g0 and not g0.is_sparse  # a sparse gradient adds into a dense .grad in place
    np.testing.assert_array_equal(g0.numpy(), dense)


def test_zero_grad_sets_none_or_empties_the_sparse_grad_as_pytorch():
    pt, e, t = _pair()
    e(torch.tensor(IDX)).sum().backward()
    e.zero_grad()
    assert e.weight.grad is None
    e(torch.tensor(IDX)).sum().backward()
    t(pt.tensor(IDX)).sum().backward()
    optim.SGD(e.parameters(), lr=0.1).zero_grad(set_to_none=False)
    pt.optim.SGD(t.parameters(), lr=0.1).zero_grad(set_to_none=False)
    g, tg = e.weight.grad, t.weight.grad
    assert g.is_sparse and g._nnz() == tg._nnz() == 0 and g.is_coalesced() and tg.is_coalesced()
    assert tuple(g._indices().shape) == tuple(tg._indices().shape) == (1, 0)
    assert tuple(g._values().shape) == tuple(tg._values().shape) == (0, 3)
    e(torch.tensor([4, 0])).sum().backward()
    t(pt.tensor([4, 0])).sum().backward()
    assert e.weight.grad is g and g._indices().tolist() == tg._indices().tolist() == [[4, 0]]
    assert g.is_coalesced() == tg.is_coalesced() is False
    e.zero_grad(set_to_none=False)
    assert e.weight.grad is g and g._nnz() == 0


def test_max_norm_renormalizes_then_gives_a_sparse_gradient():
    pt, e, t = _pair(max_norm=1.0)
    e(torch.tensor([1, 1, 2])).sum().backward()
    t(pt.tensor([1, 1, 2])).sum().backward()
    np.testing.assert_allclose(e.weight.detach().numpy(), t.weight.detach().numpy(), rtol=1e-6)
    assert e.weight.grad._indices().tolist() == t.weight.grad._indices().tolist() == [[1, 1, 2]]


def test_sparse_gradient_refusals_have_pytorchs_types_and_messages():
    w = torch.tensor(W0.copy(), requires_grad=True)
    with pytest.raises(ValueError, match="^max mode does not support sparse weights$"):
        F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), mode="max", sparse=True)
    with pytest.raises(ValueError, match="^max mode does not support scaling the gradient by the frequency$"):
        F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), mode="max", sparse=True, scale_grad_by_freq=True)
    out = F.embedding(torch.tensor([1, 2]), w, sparse=True, scale_grad_by_freq=True)
    with pytest.raises(RuntimeError, match="^embedding_backward: scale_grad_by_freq not supported with sparse "
                                           "gradients$"):
        out.sum().backward()
    F.embedding(torch.tensor([1, 2]), w, sparse=True).sum().backward()
    with pytest.raises(RuntimeError, match=r"^add\(sparse, dense\) is not supported. Use add\(dense, sparse\) "
                                           r"instead.$"):
        optim.SGD([w], lr=0.1, weight_decay=0.1).step()
    with pytest.raises(RuntimeError, match="^weight_decay option is not compatible with sparse gradients$"):
        optim.Adagrad([w], weight_decay=0.1).step()
    # PyTorch 2.13 computes no norm of a sparse gradient (NotImplementedError from its SparseCPU backend)
    for norm_type in (2.0, float("inf")):  # its ops named as PyTorch's dispatcher names them
        with pytest.raises(NotImplementedError, match="^Could not run 'aten::linalg_vector_norm' with arguments "
                                                      "from the 'SparseCPU' backend"):
            nn.utils.clip_grad_norm_([w], 1.0, norm_type)
    with pytest.raises(NotImplementedError, match="^Could not run 'aten::clamp_min_' with arguments from the "
                                                  "'SparseCPU' backend"):
        nn.utils.clip_grad_value_([w], 0.5)
    with pytest.raises(NotImplementedError, match="^Could not run 'aten::clamp_' with arguments from the "
                                                  "'SparseCPU' backend"):
        nn.utils.clip_grad_value_([w], 0.5, foreach=False)
    np.testing.assert_array_equal(w.detach().numpy(), W0)


@pytest.mark.parametrize("name, message", [
    ("Adam", "Adam does not support sparse gradients, please consider SparseAdam instead"),
    ("AdamW", "Adam does not support sparse gradients, please consider SparseAdam instead"),
    ("RMSprop", "RMSprop does not support sparse gradients"),
    ("Adadelta", "Adadelta does not support sparse gradients"),
    ("Adamax", "Adamax does not support sparse gradients"), ("NAdam", "NAdam does not support sparse gradients"),
    ("RAdam", "RAdam does not support sparse gradients"), ("ASGD", "ASGD does not support sparse gradients"),
    ("Rprop", "Rprop does not support sparse gradients"), ("Adafactor", "Adafactor does not support sparse gradients")])
def test_optimizers_without_a_sparse_path_refuse_before_changing_their_group(name, message):
    dense = nn.Parameter(torch.tensor(W0.copy()))
    dense.grad = torch.ones(7, 3, dtype=torch.float64)
    e = nn.Embedding.from_pretrained(torch.tensor(W0.copy()), freeze=False, sparse=True)
    e(torch.tensor([1, 2])).sum().backward()
    opt = getattr(optim, name)([dense, e.weight])
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        opt.step()
    np.testing.assert_array_equal(dense.detach().numpy(), W0)


def test_sparse_adam_refuses_a_dense_gradient_with_pytorchs_message():
    p = nn.Parameter(torch.ones(2))
    p.grad = torch.ones(2)
    with pytest.raises(RuntimeError, match="^SparseAdam does not support dense gradients, please consider Adam "
                                           "instead$"):
        optim.SparseAdam([p]).step()


@pytest.mark.parametrize("name, kw", [("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9}),
                                      ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
                                      ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.3, "maximize": True}),
                                      ("Adagrad", {}), ("Adagrad", {"lr_decay": 0.1, "maximize": True}),
                                      ("SparseAdam", {"lr": 0.05}), ("SparseAdam", {"maximize": True}),
                                      ("LBFGS", {"max_iter": 1})])
def test_optimizer_steps_on_sparse_gradients_match_pytorch(name, kw):
    pt, e, t = _pair(padding_idx=5)
    opt, topt = getattr(optim, name)(e.parameters(), **kw), getattr(pt.optim, name)(t.parameters(), **kw)
    rng = np.random.default_rng(4)
    for _ in range(4):
        ids = rng.integers(0, 7, (2, 3))

        def closure(mod=e, lib=torch, o=opt, ids=ids):
            o.zero_grad()
            loss = mod(lib.tensor(ids)).pow(2).sum()
            loss.backward()
            return loss

        opt.step(closure) if name == "LBFGS" else (closure(), opt.step())
        tclosure = lambda: closure(t, pt, topt)  # noqa: E731
        topt.step(tclosure) if name == "LBFGS" else (tclosure(), topt.step())
    np.testing.assert_allclose(e.weight.detach().numpy(), t.weight.detach().numpy(), rtol=1e-12, atol=1e-14)
    if name == "SGD" and "momentum" in kw:  # the momentum buffer is sparse, its indices merged as PyTorch's
        buf, tbuf = opt.state[e.weight]["momentum_buffer"], topt.state[t.weight]["momentum_buffer"]
        assert buf.is_sparse and buf._indices().tolist() == tbuf._indices().tolist()


class _Recommender:
    """A user-item model: a bag of the user's item ids (EmbeddingBag, sparse) and a linear score."""

    def __init__(self, lib, nnmod, table, lin_w, lin_b, mode):
        self.bag = nnmod.EmbeddingBag.from_pretrained(lib.tensor(table.copy()), freeze=False, mode=mode, sparse=True)
        self.lin = nnmod.Linear(table.shape[1], 1)
        with lib.no_grad():
            self.lin.weight.copy_(lib.tensor(lin_w))
            self.lin.bias.copy_(lib.tensor(lin_b))

    def loss(self, lib, ids, offsets, target):
        score = self.lin(self.bag(lib.tensor(ids), lib.tensor(offsets))).squeeze(1)
        return ((score - lib.tensor(target)) ** 2).mean()


@pytest.mark.parametrize("opt_name, mode", [("SparseAdam", "mean"), ("SGD", "sum")])
def test_recommender_trains_as_pytorch_for_20_steps(opt_name, mode):
    pt = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    table = rng.standard_normal((50, 8)).astype(np.float32)
    lin_w, lin_b = rng.standard_normal((1, 8)).astype(np.float32) * 0.3, np.zeros(1, np.float32)
    batches = []
    for _ in range(20):
        lengths = rng.integers(1, 5, 6)
        ids = rng.integers(0, 50, lengths.sum())
        batches.append((ids, np.concatenate([[0], np.cumsum(lengths)[:-1]]), rng.standard_normal(6).astype(np.float32)))
    losses = []
    for lib, nnmod, optmod in ((torch, nn, optim), (pt, pt.nn, pt.optim)):
        model = _Recommender(lib, nnmod, table, lin_w, lin_b, mode)
        if opt_name == "SparseAdam":  # SparseAdam takes the sparse table, Adam the dense linear layer
            opts = [optmod.SparseAdam([model.bag.weight], lr=0.01), optmod.Adam(model.lin.parameters(), lr=0.01)]
        else:
            opts = [optmod.SGD([model.bag.weight, *model.lin.parameters()], lr=0.01, momentum=0.9)]
        run = []
        for ids, offsets, target in batches:
            for o in opts:
                o.zero_grad()
            loss = model.loss(lib, ids, offsets, target)
            loss.backward()
            for o in opts:
                o.step()
            run.append(loss.item())
        losses.append(run)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)
    assert losses[0][-1] < losses[0][0]


def test_sparse_and_dense_lookups_train_alike_in_float64_with_sgd():
    """SGD without momentum adds -lr * each stored row: the same trajectory as the dense gradient's."""
    rng = np.random.default_rng(6)
    ids = [rng.integers(0, 7, (3, 2)) for _ in range(5)]
    weights = []
    for sparse in (True, False):
        e = nn.Embedding.from_pretrained(torch.tensor(W0.copy()), freeze=False, sparse=sparse)
        opt = optim.SGD(e.parameters(), lr=0.1)
        for i in ids:
            opt.zero_grad()
            e(torch.tensor(i)).pow(3).sum().backward()
            opt.step()
        weights.append(e.weight.detach().numpy())
    np.testing.assert_allclose(weights[0], weights[1], rtol=1e-14)


@pytest.mark.parametrize("mode, grad", [("sum", [1.0] * 6), ("mean", [0.5] * 2 + [0.25] * 4)])
def test_sparse_bag_gradient_runs_a_short_last_bag_to_the_end_of_the_indices(mode, grad):
    """include_last_offset with offsets[-1] < len(input): PyTorch 2.13's sparse gradient covers indices 4 and 5."""
    w = torch.arange(12.0, dtype=torch.float64).reshape(6, 2).requires_grad_()
    F.embedding_bag(torch.arange(6), w, torch.tensor([0, 2, 4]), mode=mode, include_last_offset=True,
                    sparse=True).sum().backward()
    assert w.grad.to_dense().tolist() == [[v, v] for v in grad]


@pytest.mark.parametrize("sparse", [False, True])
def test_half_per_sample_weights_gradient_is_a_float32_dot_rounded_once(sparse):
    rng = np.random.default_rng(7)
    w = rng.standard_normal((6, 16)).astype(np.float16)
    g = rng.standard_normal((3, 16)).astype(np.float16)
    idx, bag_of = np.array([0, 3, 3, 5, 1, 2]), np.array([0, 0, 1, 1, 2, 2])
    psw = torch.ones(6, dtype=torch.float16, requires_grad=True)
    out = F.embedding_bag(torch.tensor(idx), torch.tensor(w).requires_grad_(), torch.tensor([0, 2, 4]), mode="sum",
                          per_sample_weights=psw, sparse=sparse)
    out.backward(torch.tensor(g))
    want = (w[idx].astype(np.float32) * g[bag_of].astype(np.float32)).sum(1).astype(np.float16)
    assert np.array_equal(psw.grad.numpy(), want)
    rounded_products = (w[idx] * g[bag_of]).astype(np.float32).sum(1).astype(np.float16)
    assert not np.array_equal(rounded_products, want)  # rounding each product would differ
