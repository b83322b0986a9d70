"""A mixed-precision training loop as ported scripts write it: autocast("cpu") (bfloat16) around
the forward, GradScaler around backward/step, ember.optim, then a checkpoint that PyTorch opens;
the losses follow PyTorch's run from the same weights within bfloat16 tolerance."""

import numpy as np
import pytest

import ember.autograd as E
import ember.nn as nn
import ember.optim as optim


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 6)).astype(np.float32)
    y = (x[:, :2].sum(1) > 0).astype(np.int64)
    return x, y


def _train(lib, nn_, optim_, model, steps=8):
    x, y = _data()
    xs, ys = lib.tensor(x), lib.tensor(y)
    opt = optim_.SGD(model.parameters(), lr=0.2, momentum=0.9)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=3)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        with lib.autocast("cpu", dtype=lib.bfloat16):
            logits = model(xs)
            loss = nn_.functional.cross_entropy(logits, ys)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(float(loss.item()))
    return losses, scaler.get_scale(), logits.dtype, loss.dtype


def _ember_model():
    E.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))


def test_mixed_precision_loop_trains_and_keeps_float32_weights():
    model = _ember_model()
    losses, scale, logits_dtype, loss_dtype = _train(E, nn, optim, model)
    assert logits_dtype is E.bfloat16 and loss_dtype is E.float32
    assert losses[-1] < 0.7 * losses[0]
    assert scale == 2.0 ** 12  # two growths (every 3 good steps), no inf
    assert all(p.dtype is E.float32 and p.grad.dtype is E.float32 for p in model.parameters())


@pytest.mark.torch
def test_mixed_precision_loop_matches_pytorch_and_its_checkpoint_opens_there(tmp_path):
    torch = pytest.importorskip("torch")
    model = _ember_model()
    tmodel = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    tmodel.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in model.state_dict().items()})
    ours = _train(E, nn, optim, model)
    theirs = _train(torch, torch.nn, torch.optim, tmodel)
    assert ours[1] == theirs[1] and str(ours[2]) == "ember.bfloat16" and theirs[2] is torch.bfloat16
    np.testing.assert_allclose(ours[0], theirs[0], rtol=0.03, atol=0.01)
    E.save({"model": model.state_dict(), "step": 8}, tmp_path / "amp.pt")
    ckpt = torch.load(tmp_path / "amp.pt", weights_only=True)
    assert ckpt["step"] == 8
    tmodel.load_state_dict(ckpt["model"])
    x = torch.from_numpy(_data()[0])
    np.testing.assert_allclose(tmodel(x).detach().numpy(), model(E.from_numpy(_data()[0])).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
