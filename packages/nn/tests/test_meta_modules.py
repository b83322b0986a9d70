"""Modules on the meta device: build without memory, `to_empty`, then load a state dict (PyTorch's big-model
loading pattern); initialisers are no-ops; autograd records on meta tensors."""

import warnings

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(4)
        self.fc = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1d(3)
        self.conv = nn.Conv2d(2, 3, 3)
        self.emb = nn.Embedding(5, 4)

    def forward(self, x):
        return self.bn(self.fc(self.ln(x)))


def _reference():
    torch.manual_seed(0)
    ref = Net()
    with torch.no_grad():
        ref.bn.running_mean.uniform_()
        ref.bn.running_var.uniform_(1, 2)
    return ref.eval()


def test_built_on_meta_everything_is_meta():
    with torch.device("meta"):
        m = Net()
    for name, t in m.state_dict().items():
        assert t.is_meta, name
    assert m.fc.weight.shape == (3, 4) and m.conv.weight.shape == (3, 2, 3, 3)
    assert isinstance(m.fc.weight, nn.Parameter) and m.fc.weight.requires_grad
    y = m(torch.empty(2, 4, device="meta"))
    assert y.is_meta and y.shape == (2, 3) and y.grad_fn is not None


@pytest.mark.parametrize("assign", [False, True])
def test_meta_then_to_empty_then_load_state_dict(assign):
    ref = _reference()
    sd = ref.state_dict()
    with torch.device("meta"):
        m = Net()
    if not assign:
        m.to_empty(device="cpu")
        assert all(t.device.type == "cpu" for t in m.state_dict().values())
    m.load_state_dict(sd, assign=assign)
    m.eval()
    for k, v in m.state_dict().items():
        assert not v.is_meta and np.array_equal(v.numpy(), sd[k].numpy()), k
    assert isinstance(m.fc.weight, nn.Parameter)
    x = torch.randn(2, 4)
    np.testing.assert_array_equal(m(x).detach().numpy(), ref(x).detach().numpy())


def test_linear_with_device_meta_and_init_are_no_ops():
    lin = nn.Linear(4, 4, device="meta")
    assert lin.weight.is_meta and lin.bias.is_meta
    for init in (nn.init.kaiming_uniform_, nn.init.xavier_uniform_, nn.init.normal_, nn.init.trunc_normal_,
                 nn.init.orthogonal_, nn.init.zeros_):
        assert init(lin.weight) is lin.weight and lin.weight.is_meta
    lin.reset_parameters()
    assert lin.weight.is_meta


def test_init_of_a_huge_meta_weight_writes_nothing():
    w = nn.Parameter(torch.empty(40000, 40000, device="meta"))  # 6.4 GB on the CPU
    for init in (nn.init.trunc_normal_, nn.init.orthogonal_, nn.init.eye_, nn.init.xavier_normal_,
                 nn.init.kaiming_uniform_, nn.init.ones_):
        assert init(w) is w and w.is_meta
    with torch.no_grad():
        assert w.mul_(2) is w and w.is_meta  # in place through out=: past the stand-ins' limit, unchecked
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        nn.init.eye_(torch.empty(2, 2, 2, device="meta"))


def test_module_to_from_meta_points_to_to_empty():
    m = nn.Linear(2, 2, device="meta")
    with pytest.raises(NotImplementedError, match="^Cannot copy out of meta tensor; no data! Please use "
                                                  "torch.nn.Module.to_empty\\(\\) instead of "
                                                  "torch.nn.Module.to\\(\\) when moving module from meta to a "
                                                  "different device.$"):
        m.to("cpu")
    assert m.to("meta").weight.is_meta


def test_crossing_the_meta_boundary_makes_new_parameters_and_unties_shared_ones():
    def tied(device):
        m = nn.Sequential(nn.Embedding(3, 2, device=device), nn.Linear(2, 3, bias=False, device=device))
        m[1].weight = m[0].weight
        return m, m[0].weight

    for src, dst in (("meta", "cpu"), ("cpu", "meta")):  # as PyTorch: no shallow copy between meta and real
        m, w = tied(src)
        m.to_empty(device=dst)
        assert m[0].weight is not w and m[1].weight is not m[0].weight
        assert isinstance(m[0].weight, nn.Parameter) and m[0].weight.device.type == dst
    m, w = tied("cpu")
    m.to_empty(device="cpu")
    assert m[0].weight is w and m[1].weight is w  # within real devices the Parameter keeps its identity


def test_to_empty_recurse_false_moves_only_own_tensors():
    with torch.device("meta"):
        m = nn.Sequential(nn.Linear(2, 2))
        m.register_buffer("b", torch.empty(3))
    m.to_empty(device="cpu", recurse=False)
    assert m.b.device.type == "cpu" and m[0].weight.is_meta


def test_backward_on_meta_gives_meta_grads():
    lin = nn.Linear(4, 3, device="meta")
    lin(torch.empty(2, 4, device="meta")).sum().backward()
    assert lin.weight.grad.is_meta and lin.weight.grad.shape == (3, 4)
    assert lin.bias.grad.is_meta and lin.bias.grad.shape == (3,)


def test_skip_init_builds_on_meta_then_allocates():
    calls = []

    class Probe(nn.Linear):
        def reset_parameters(self):
            calls.append(self.weight.is_meta)
            super().reset_parameters()

    m = nn.utils.skip_init(Probe, 3, 2)
    assert calls == [True]  # the initialiser ran on meta only: nothing written
    assert m.weight.device.type == "cpu" and m.weight.shape == (2, 3) and isinstance(m.weight, nn.Parameter)


def test_load_state_dict_into_meta_without_assign_warns_and_stays_meta():
    m = nn.Linear(2, 2, device="meta")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m.load_state_dict(nn.Linear(2, 2).state_dict())
    assert sorted(str(w.message).split(":")[0] for w in caught) == ["for bias", "for weight"]
    assert all("copying from a non-meta parameter in the checkpoint to a meta parameter in the current model, "
               "which is a no-op" in str(w.message) and w.category is UserWarning for w in caught)
    assert m.weight.is_meta
