"""torch.ao.quantization.fuse_modules and torch.ao.nn.intrinsic: eval-mode conv/linear + batch norm (+ ReLU) folded
into one module each, with PyTorch's fused classes, hook moves and errors."""

import numpy as np
import pytest

import ember.torch as torch
import ember.torch.nn as nn
from ember.torch._unsupported import UnsupportedError
from ember.torch.ao.nn import intrinsic as nni
from ember.torch.ao.quantization import fuse_known_modules, fuse_modules


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.bn1, self.relu1 = nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU()
        self.conv2, self.bn2 = nn.Conv2d(4, 4, 3, bias=False), nn.BatchNorm2d(4)
        self.fc, self.bnf, self.fc2, self.relu2 = nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Linear(3, 2), nn.ReLU()

    def forward(self, x):
        x = self.bn2(self.conv2(self.relu1(self.bn1(self.conv1(x)))))
        return self.relu2(self.fc2(self.bnf(self.fc(x.mean((2, 3))))))


def _net():
    rng = np.random.default_rng(0)
    m = Net()
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
        for b in (m.bn1, m.bn2, m.bnf):
            b.running_mean.fill_(0.1)
            b.running_var.fill_(1.3)
    return m.eval()


def test_fuse_modules_folds_and_keeps_the_outputs():
    m = _net()
    x = torch.randn(2, 3, 6, 6)
    m.conv1.register_forward_pre_hook(lambda mod, i: None)
    m.relu1.register_forward_hook(lambda mod, i, o: None)
    f = fuse_modules(m, [["conv1", "bn1", "relu1"], ["conv2", "bn2"], ["fc", "bnf"], ["fc2", "relu2"]])
    assert f is not m and type(f.conv1) is nni.ConvReLU2d and isinstance(f.conv1, nn.Sequential)
    assert type(f.conv2) is nn.Conv2d and f.conv2.bias is not None and type(f.fc2) is nni.LinearReLU
    assert all(type(getattr(f, n)) is nn.Identity and not getattr(f, n).training for n in ("bn1", "relu1", "bnf"))
    np.testing.assert_allclose(f(x).detach().numpy(), m(x).detach().numpy(), atol=1e-5)
    # the copy's hooks moved onto the fused module; the original model keeps its own
    assert len(f.conv1._forward_pre_hooks) == len(f.conv1._forward_hooks) == 1 and not f.relu1._forward_hooks
    assert len(m.conv1._forward_pre_hooks) == len(m.relu1._forward_hooks) == 1
    assert fuse_modules(m, ["conv2", "bn2"], inplace=True) is m and type(m.bn2) is nn.Identity


def test_fuse_modules_errors_as_pytorch():
    with pytest.raises(AssertionError, match="did not find fuser method for: "):
        fuse_modules(_net(), ["fc", "fc2"])
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        fuse_modules(Net(), ["conv1", "bn1"])
    mixed = Net()
    mixed.bn1.eval()
    with pytest.raises(AssertionError, match=r"Conv and BN both must be in the same mode \(train or eval\)\."):
        fuse_modules(mixed, ["conv1", "bn1"])
    with pytest.raises(AssertionError, match="Incorrect types for input modules: Conv2d and Tanh"):
        nni.ConvReLU2d(nn.Conv2d(1, 1, 1), nn.Tanh())
    with pytest.raises(UnsupportedError):
        fuse_known_modules([nn.Conv2d(1, 1, 1), nn.BatchNorm2d(1)], True)


def test_transposed_conv_and_torch_attribute():
    ct = nn.Sequential(nn.ConvTranspose2d(2, 3, 2), nn.BatchNorm2d(3)).eval()
    x = torch.randn(1, 2, 3, 3)
    f = fuse_modules(ct, ["0", "1"])
    np.testing.assert_allclose(f(x).detach().numpy(), ct(x).detach().numpy(), atol=1e-5)
    assert torch.ao.nn.intrinsic.ConvReLU2d is nni.ConvReLU2d


def test_fused_classes_print_under_pytorchs_path():
    real = pytest.importorskip("torch")
    if real is torch:
        pytest.skip("the runner maps torch to ember")
    assert real.ao.nn.intrinsic.ConvReLU2d.__module__ == "torch.ao.nn.intrinsic.modules.fused"
    from ember.torch._class_paths import PATHS

    assert PATHS["ember.torch.ao.nn.intrinsic.modules.fused"]["ConvReLU2d"] == "torch.ao.nn.intrinsic.modules.fused"


def test_torch_quantization_is_the_older_spelling():
    assert torch.quantization.fuse_modules is fuse_modules
    assert torch.quantization.fuse_known_modules is fuse_known_modules
