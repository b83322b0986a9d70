"""A 3-D U-Net block (conv3d, BatchNorm3d, ReLU, MaxPool3d, ConvTranspose3d, a skip connection)
trained a few steps on a voxel segmentation loss: ember follows PyTorch's loss trajectory from
the same initial weights. The same source builds both models."""

from __future__ import annotations

import numpy as np
import pytest


def make_unet(nn, cat):
    class Block(nn.Module):
        def __init__(self, cin, cout):
            super().__init__()
            self.conv = nn.Sequential(nn.Conv3d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm3d(cout), nn.ReLU(),
                                      nn.Conv3d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm3d(cout), nn.ReLU())

        def forward(self, x):
            return self.conv(x)

    class UNet3d(nn.Module):
        def __init__(self):
            super().__init__()
            self.down = Block(1, 4)
            self.pool = nn.MaxPool3d(2)
            self.mid = Block(4, 8)
            self.up = nn.ConvTranspose3d(8, 4, 2, stride=2)
            self.dec = Block(8, 4)
            self.head = nn.Conv3d(4, 3, 1)

        def forward(self, x):
            skip = self.down(x)
            y = self.up(self.mid(self.pool(skip)))
            return self.head(self.dec(cat([y, skip], 1)))

    return UNet3d()


@pytest.mark.torch
def test_unet3d_block_trains_like_pytorch():
    torch = pytest.importorskip("torch")
    import ember.torch as et

    torch.manual_seed(0)
    ref = make_unet(torch.nn, torch.cat)
    ours = make_unet(et.nn, et.cat)
    ours.load_state_dict({k: et.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 1, 8, 8, 8)).astype(np.float32)
    y = (x[:, 0] > 0.5).astype(np.int64) + (x[:, 0] > -0.5)  # three voxel classes
    opt_ref = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    opt_ours = et.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    losses_ref, losses_ours = [], []
    for _ in range(6):
        for model, opt, lib, losses in ((ref, opt_ref, torch, losses_ref), (ours, opt_ours, et, losses_ours)):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(lib.tensor(x)), lib.tensor(y))
            loss.backward()
            opt.step()
            losses.append(loss.item())
    assert losses_ref[-1] < losses_ref[0]  # it learns, so the trajectory says something
    np.testing.assert_allclose(losses_ours, losses_ref, rtol=2e-4)
    for (name, p), q in zip(ours.named_parameters(), ref.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), atol=2e-4, err_msg=name)
    np.testing.assert_allclose(ours.down.conv[1].running_var.numpy(), ref.down.conv[1].running_var.numpy(),
                               rtol=1e-4)
