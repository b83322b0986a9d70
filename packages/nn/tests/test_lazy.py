"""Lazy modules: shapes read from the first input, the eager class afterwards, checkpoints, optimizers."""

import copy
import pickle
import re

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn, optim
from ember.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

LAZY = [
    (lambda: nn.LazyLinear(3), lambda: nn.Linear(5, 3), (2, 5)),
    (lambda: nn.LazyLinear(3, bias=False), lambda: nn.Linear(5, 3, bias=False), (4, 2, 5)),
    (lambda: nn.LazyConv1d(4, 3, padding=1), lambda: nn.Conv1d(2, 4, 3, padding=1), (2, 2, 7)),
    (lambda: nn.LazyConv2d(4, 3, groups=2), lambda: nn.Conv2d(6, 4, 3, groups=2), (1, 6, 5, 5)),
    (lambda: nn.LazyConv2d(4, 3), lambda: nn.Conv2d(3, 4, 3), (3, 5, 5)),
    (lambda: nn.LazyConvTranspose1d(4, 3, stride=2), lambda: nn.ConvTranspose1d(2, 4, 3, stride=2), (2, 2, 5)),
    (lambda: nn.LazyConvTranspose2d(4, 3, groups=2), lambda: nn.ConvTranspose2d(6, 4, 3, groups=2), (1, 6, 4, 4)),
    (lambda: nn.LazyConv3d(4, 2, padding=1), lambda: nn.Conv3d(2, 4, 2, padding=1), (1, 2, 3, 3, 3)),
    (lambda: nn.LazyConvTranspose3d(2, 2, stride=2), lambda: nn.ConvTranspose3d(3, 2, 2, stride=2), (1, 3, 2, 2, 2)),
    (lambda: nn.LazyBatchNorm1d(), lambda: nn.BatchNorm1d(3), (4, 3)),
    (lambda: nn.LazyBatchNorm2d(momentum=0.3), lambda: nn.BatchNorm2d(3, momentum=0.3), (2, 3, 4, 4)),
    (lambda: nn.LazyBatchNorm3d(affine=False), lambda: nn.BatchNorm3d(3, affine=False), (2, 3, 2, 2, 2)),
    (lambda: nn.LazyInstanceNorm1d(), lambda: nn.InstanceNorm1d(3, affine=True, track_running_stats=True),
     (2, 3, 6)),
    (lambda: nn.LazyInstanceNorm2d(), lambda: nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
     (2, 3, 4, 4)),
    (lambda: nn.LazyInstanceNorm3d(track_running_stats=False), lambda: nn.InstanceNorm3d(3, affine=True),
     (2, 3, 2, 3, 2)),
]


@pytest.mark.parametrize("make_lazy, make_eager, shape", LAZY)
def test_lazy_module_becomes_the_eager_module_with_its_initialisation(make_lazy, make_eager, shape):
    lazy = make_lazy()
    assert lazy.has_uninitialized_params()
    assert all(is_lazy(p) for p in lazy.parameters())
    x = torch.randn(*shape)
    torch.manual_seed(7)
    lazy.initialize_parameters(x)
    torch.manual_seed(7)
    eager = make_eager()
    assert not lazy.has_uninitialized_params()
    sd, ref = lazy.state_dict(), eager.state_dict()
    assert list(sd) == list(ref)
    for k in ref:
        np.testing.assert_array_equal(sd[k].numpy(), ref[k].numpy())
    out = lazy(x)  # the hook finds everything initialized, removes itself and swaps the class
    assert type(lazy) is type(eager)
    assert repr(lazy) == repr(eager)
    assert not lazy._forward_pre_hooks and not lazy._load_state_dict_pre_hooks
    np.testing.assert_allclose(out.detach().numpy(), eager(x).detach().numpy(), rtol=1e-6, atol=1e-6)


def test_lazy_linear_forward_infers_in_features_and_computes_x_wt_plus_b():
    fc = nn.LazyLinear(3)
    assert repr(fc) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    x = torch.randn(4, 2, 5)
    y = fc(x)
    assert type(fc) is nn.Linear and fc.in_features == 5 and tuple(fc.weight.shape) == (3, 5)
    w, b = fc.weight.detach().numpy().astype(np.float64), fc.bias.detach().numpy().astype(np.float64)
    np.testing.assert_allclose(y.detach().numpy(), x.numpy() @ w.T + b, rtol=1e-5, atol=1e-6)
    bound = 1 / np.sqrt(5)
    assert np.all(np.abs(w) <= bound) and np.all(np.abs(b) <= bound)


def test_optimizer_built_before_the_first_forward_trains_the_materialized_parameters():
    fc = nn.LazyLinear(2)
    params = list(fc.parameters())
    opt = optim.SGD(fc.parameters(), lr=0.5)
    opt.step()  # no gradients yet: nothing moves, nothing raises
    x = torch.randn(3, 4)
    fc(x).sum().backward()
    w0 = fc.weight.detach().numpy().copy()
    opt.step()
    assert params[0] is fc.weight and type(params[0]) is nn.Parameter
    # d(sum(x W^T + b))/dW = column sums of x for every output row
    np.testing.assert_allclose(fc.weight.detach().numpy(), w0 - 0.5 * x.numpy().sum(0)[None, :], rtol=1e-6)


def test_uninitialized_parameter_refuses_use_like_pytorch():
    p = UninitializedParameter()
    assert repr(p) == "<UninitializedParameter>" and p.requires_grad and p.is_leaf
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        p.shape
    # PyTorch's message names the TensorBase method its __torch_function__ saw (operators by their method)
    method = "Attempted to use an uninitialized parameter in <method '{}' of 'torch._C.TensorBase' objects>. "
    for use, name in [(lambda: p + 1, "add"), (lambda: 2 * p, "mul"), (lambda: p.numel(), "numel"),
                      (lambda: p.nelement(), "numel"), (lambda: p.sum(), "sum"), (lambda: p == 1, "__eq__"),
                      (lambda: p != 1, "ne"), (lambda: p % 2, "remainder"), (lambda: +p, "positive")]:
        with pytest.raises(ValueError, match=re.escape(method.format(name))):
            use()
    with pytest.raises(ValueError, match=r"parameter in <slot wrapper '__getitem__' of 'torch._C.TensorBase' "):
        p[0]
    with pytest.raises(ValueError, match=r"parameter in <function Tensor.__rsub__ at 0x[0-9a-f]+>\. "):
        1 - p
    assert hash(p) == hash(p) and p in {p}
    # PyTorch names the TensorBase method an operator or call reached
    with pytest.raises(ValueError, match=r"parameter in <method 'add' of 'torch._C.TensorBase' objects>\."):
        p + 1
    with pytest.raises(ValueError, match=r"parameter in <method 'numel' of 'torch._C.TensorBase' objects>"):
        p.numel()
    with pytest.raises(ValueError, match=r"parameter in <method 'sum' of 'torch._C.TensorBase' objects>"):
        p.sum()
    with pytest.raises(ValueError, match=r"in <method 'positive' of 'torch._C.TensorBase' objects>"):
        +p
    with pytest.raises(ValueError, match=r"in <method 'ne' of 'torch._C.TensorBase' objects>"):
        p != 1
    with pytest.raises(ValueError, match=r"in <slot wrapper '__getitem__' of 'torch._C.TensorBase' objects>"):
        p[0]
    with pytest.raises(ValueError, match=r"in <method 'dim' of 'torch._C.TensorBase' objects>"):
        nn.init.xavier_uniform_(p)
    assert p.double().dtype == torch.float64 and p.dtype == torch.float32
    p.materialize((2, 3), dtype=torch.float64)
    assert type(p) is nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype == torch.float64
    b = UninitializedBuffer(persistent=False)
    assert repr(b) == "<UninitializedBuffer>" and not b.requires_grad and is_lazy(b)
    b.materialize((4,))
    assert type(b) is torch.Tensor and not is_lazy(b)


def test_module_conversions_before_init_set_the_materialized_dtype():
    fc = nn.LazyLinear(3).double()
    assert is_lazy(fc.weight) and fc.weight.dtype == torch.float64
    fc(torch.randn(2, 4, dtype=torch.float64))
    assert fc.weight.dtype == torch.float64 and fc.bias.dtype == torch.float64


def test_state_dict_of_an_uninitialized_module_holds_the_uninitialized_tensors():
    bn = nn.LazyBatchNorm1d()
    sd = bn.state_dict()
    assert list(sd) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert [type(v).__name__ for v in sd.values()] == ["UninitializedParameter", "UninitializedParameter",
                                                        "UninitializedBuffer", "UninitializedBuffer", "Tensor"]
    other = nn.LazyBatchNorm1d()
    keys = other.load_state_dict(sd)
    assert keys.missing_keys == [] and keys.unexpected_keys == []
    assert other.has_uninitialized_params()


def test_loading_a_checkpoint_materializes_a_lazy_module_and_forward_keeps_the_loaded_values():
    src = nn.Linear(4, 3)
    fc = nn.LazyLinear(3)
    keys = fc.load_state_dict(src.state_dict())
    assert keys.missing_keys == [] and keys.unexpected_keys == []
    assert type(fc) is nn.LazyLinear and tuple(fc.weight.shape) == (3, 4)
    np.testing.assert_array_equal(fc.weight.detach().numpy(), src.weight.detach().numpy())
    x = torch.randn(2, 4)
    np.testing.assert_array_equal(fc(x).detach().numpy(), src(x).detach().numpy())
    assert type(fc) is nn.Linear and fc.in_features == 4
    conv = nn.LazyConv2d(4, 3, groups=2)
    conv.load_state_dict(nn.Conv2d(6, 4, 3, groups=2).state_dict())
    conv(torch.randn(1, 6, 5, 5))
    assert type(conv) is nn.Conv2d and conv.in_channels == 6
    bn = nn.LazyBatchNorm2d()
    bn.load_state_dict(nn.BatchNorm2d(5).state_dict())
    bn(torch.randn(2, 5, 3, 3))
    assert type(bn) is nn.BatchNorm2d and bn.num_features == 5


def test_loading_an_uninitialized_checkpoint_into_an_initialized_module_raises():
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        nn.Linear(4, 3).load_state_dict(nn.LazyLinear(3).state_dict())


def test_lazy_errors_name_the_problem():
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConv2d"):
        nn.LazyConv2d(4, 3)(torch.randn(2, 3))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(torch.randn(1, 3, 5, 5))
    with pytest.raises(NotImplementedError, match="initialize_parameters is not implemented for Lazy"):
        class Lazy(nn.modules.LazyModuleMixin, nn.Module):
            def forward(self, x):
                return x
        Lazy()(torch.ones(1))


def test_deepcopy_and_pickle_keep_uninitialized_modules_lazy():
    fc = copy.deepcopy(nn.LazyLinear(3))
    assert is_lazy(fc.weight)
    fc(torch.randn(2, 2))
    assert type(fc) is nn.Linear and fc.in_features == 2
    p = pickle.loads(pickle.dumps(UninitializedParameter(requires_grad=False)))
    assert is_lazy(p) and not p.requires_grad


def test_lazy_network_infers_every_layer_in_one_dry_run():
    net = nn.Sequential(nn.LazyConv2d(8, 3), nn.LazyBatchNorm2d(), nn.ReLU(), nn.Flatten(), nn.LazyLinear(2))
    out = net(torch.randn(2, 3, 6, 6))
    assert tuple(out.shape) == (2, 2)
    assert [type(m).__name__ for m in net] == ["Conv2d", "BatchNorm2d", "ReLU", "Flatten", "Linear"]
    assert net[4].in_features == 8 * 4 * 4


@pytest.mark.torch
def test_lazy_modules_match_pytorch_names_reprs_and_state_dict_layout():
    pt = pytest.importorskip("torch")
    import ember.autograd as ea
    import ember.nn as enn

    for name, args, shape in [("LazyLinear", (3,), (2, 5)), ("LazyConv1d", (4, 3), (2, 2, 7)),
                              ("LazyConvTranspose2d", (4, 3), (1, 6, 4, 4)), ("LazyBatchNorm1d", (), (4, 3)),
                              ("LazyInstanceNorm2d", (), (2, 3, 4, 4))]:
        e, t = getattr(enn, name)(*args), getattr(pt.nn, name)(*args)
        assert repr(e) == repr(t)
        assert [(k, type(v).__name__) for k, v in e.state_dict().items()] == \
            [(k, type(v).__name__) for k, v in t.state_dict().items()]
        t(pt.randn(*shape))
        e.load_state_dict({k: ea.tensor(v.numpy()) for k, v in t.state_dict().items()})
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        e.eval()
        t.eval()
        np.testing.assert_allclose(e(ea.tensor(x)).detach().numpy(), t(pt.tensor(x)).detach().numpy(), rtol=1e-5,
                                   atol=1e-5)
        assert type(e).__name__ == type(t).__name__


@pytest.mark.parametrize("lazy, eager, base, shape", [
    (nn.LazyBatchNorm2d, nn.BatchNorm2d, "_BatchNorm", (2, 3, 4, 4)),
    (nn.LazyBatchNorm1d, nn.BatchNorm1d, "_BatchNorm", (2, 3)),
    (nn.LazyInstanceNorm3d, nn.InstanceNorm3d, "_InstanceNorm", (2, 3, 2, 2, 2)),
])
def test_lazy_norms_are_not_their_eager_class_until_materialized(lazy, eager, base, shape):
    """As PyTorch's: `isinstance(m, nn.BatchNorm2d)` (an init loop's test) is False before the first forward."""
    m = lazy(affine=True)
    assert not isinstance(m, eager) and type(m).__mro__[3].__name__ == base
    m(torch.randn(*shape))
    assert type(m) is eager and m.num_features == 3
