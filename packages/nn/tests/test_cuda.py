"""CUDA (a GPU, or Numba's simulator): a small CNN training step matches the same step on the
CPU, and the fused optimizer kernels match their CPU twins."""

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn, optim
from ember.nn import functional as F

pytestmark = [pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device or simulator")]


def small_cnn():
    return nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(2 * 2 * 2, 3))


def test_small_cnn_step_matches_cpu():
    torch.manual_seed(0)
    cpu = small_cnn().double()
    gpu = small_cnn().double()
    gpu.load_state_dict(cpu.state_dict())
    gpu.cuda()
    assert gpu[0].weight.device.type == "cuda" and gpu[1].running_mean.device.type == "cuda"
    x = torch.randn(2, 1, 4, 4, dtype=torch.float64)
    y = torch.tensor([0, 2])
    for model, xx, yy in ((cpu, x, y), (gpu, x.cuda(), y.cuda())):
        opt = optim.Adam(model.parameters(), lr=0.1)
        opt.zero_grad()
        F.cross_entropy(model(xx), yy).backward()
        opt.step()
    # conv biases feed BatchNorm, so their gradients are ~1e-17 noise that Adam normalises: loose tolerance
    for (n, a), (_, b) in zip(cpu.state_dict().items(), gpu.state_dict().items()):
        np.testing.assert_allclose(b.cpu().numpy(), a.numpy(), rtol=1e-7, atol=1e-9, err_msg=n)


@pytest.mark.parametrize("name, kw", [("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
                                      ("Adam", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.1}),
                                      ("AdamW", {"lr": 0.1}),
                                      ("RMSprop", {"centered": True, "momentum": 0.5}),
                                      ("Adagrad", {"lr_decay": 0.1}),
                                      ("Adamax", {"weight_decay": 0.1}),
                                      ("NAdam", {"decoupled_weight_decay": True, "weight_decay": 0.1}),
                                      ("RAdam", {"lr": 0.1}),
                                      ("Adadelta", {"weight_decay": 0.1})])
def test_optimizer_kernels_match_cpu(name, kw):
    p0 = torch.randn(7, dtype=torch.float64)
    pc, pg = nn.Parameter(p0.clone()), nn.Parameter(p0.clone().cuda())
    oc, og = getattr(optim, name)([pc], **kw), getattr(optim, name)([pg], **kw)
    for _ in range(7):
        g = torch.randn(7, dtype=torch.float64)
        pc.grad, pg.grad = g, g.cuda()
        oc.step()
        og.step()
    np.testing.assert_allclose(pg.detach().cpu().numpy(), pc.detach().numpy(), rtol=1e-13)


def test_lstm_outputs_and_gradients_match_cpu():
    """nn.LSTM's one node per layer and direction (`lstm_layer` composed on CUDA): outputs, final
    states and every gradient against the CPU's compiled kernel, bidirectional, two layers."""
    torch.manual_seed(0)
    cpu = nn.LSTM(3, 2, num_layers=2, bidirectional=True, batch_first=True).double()
    gpu = nn.LSTM(3, 2, num_layers=2, bidirectional=True, batch_first=True).double()
    gpu.load_state_dict(cpu.state_dict())
    gpu.cuda()
    x = torch.randn(2, 3, 3, dtype=torch.float64)
    h0, c0 = torch.randn(4, 2, 2, dtype=torch.float64), torch.randn(4, 2, 2, dtype=torch.float64)
    got = []
    for model, dev in ((cpu, "cpu"), (gpu, "cuda")):
        xx, hh, cc = (t.to(dev).detach().requires_grad_() for t in (x, h0, c0))
        out, (h, c) = model(xx, (hh, cc))
        (out.sin().sum() + h.sum() + (2 * c).sum()).backward()
        got.append([out, h, c, xx.grad, hh.grad, cc.grad] + [p.grad for p in model.parameters()])
    for a, b in zip(*got, strict=True):
        np.testing.assert_allclose(b.detach().cpu().numpy(), a.detach().numpy(), rtol=1e-10, atol=1e-12)
