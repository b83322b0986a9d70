"""torch.compile under changing modes: CPU autocast (bfloat16) around a compiled model, activation
checkpointing inside a compiled module, freezing layers (requires_grad_) between compiled training steps,
train()/eval() switches with BatchNorm between calls, grad-mode switches, torch.func.functional_call through
a compiled function, and torch.cond in a compiled function."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

rng = np.random.default_rng(55)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=4):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def init_(m, seed):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(g.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
    return m


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class Net(nn.Module):
    def __init__(self, d=6, use_ckpt=False):
        super().__init__()
        self.inp = nn.Linear(4, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(2)])
        self.bn = nn.BatchNorm1d(d)
        self.out = nn.Linear(d, 3)
        self.use_ckpt = use_ckpt

    def forward(self, x):
        h = self.inp(x)
        for blk in self.blocks:
            h = checkpoint(blk, h, use_reentrant=False) if self.use_ckpt and self.training else blk(h)
        return self.out(F.relu(self.bn(h)))


X, Y = T(16, 4), torch.from_numpy(rng.integers(0, 3, 16))

# 1) autocast around a compiled model: dtypes and values follow eager autocast
net = init_(Net(), 1).eval()
cnet = torch.compile(net)
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    outs = [cnet(X[:4]) for _ in range(3)]
    ref = net(X[:4])
print("autocast", outs[0].dtype, torch.equal(outs[2], ref), r(outs[2].float(), 3))
with torch.no_grad():
    full = cnet(X[:4])
print("fp32_after", full.dtype, r(full, 3), torch.allclose(full, ref.float(), atol=0.05))

# 2) checkpointing inside a compiled module gives eager's gradients
ck = init_(Net(use_ckpt=True), 2).train()
plain = init_(Net(use_ckpt=False), 2).train()
cck = torch.compile(ck)
for m in (cck, plain):
    loss = F.cross_entropy(m(X), Y)
    loss.backward()
print("ckpt_grads", torch.allclose(ck.inp.weight.grad, plain.inp.weight.grad, atol=1e-5), r(ck.inp.weight.grad, 3))

# 3) freezing layers between compiled training steps, switching train/eval
model = init_(Net(), 3)
cm = torch.compile(model)
opt = torch.optim.SGD([p for p in model.parameters()], lr=0.1)
for step in range(6):
    if step == 3:
        for p in model.inp.parameters():
            p.requires_grad_(False)
    model.train()
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(cm(X), Y)
    loss.backward()
    opt.step()
    model.eval()
    with torch.no_grad():
        acc = (cm(X).argmax(1) == Y).float().mean().item()
    print("step", step, round(loss.item(), 4), round(acc, 4), model.inp.weight.grad is None,
          model.inp.weight.requires_grad)
print("bn_stats", r(model.bn.running_mean, 3), model.bn.num_batches_tracked.item())
print("frozen_after", r(model.inp.weight, 3))

# 4) grad-mode switches on the same compiled function
lin = init_(nn.Linear(3, 2), 4)


@torch.compile
def score(x):
    return torch.tanh(lin(x)).sum(-1)


x3 = T(5, 3)
a = score(x3)
with torch.no_grad():
    b = score(x3)
c = score(x3)
with torch.enable_grad():
    d = score(x3)
print("grad_modes", a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad, torch.equal(a, b), r(c))
c.sum().backward()
print("grad_through", r(lin.weight.grad))

# 5) functional_call through a compiled function (parameters passed as a dict)
params = {k: v.detach() * 0.5 for k, v in lin.named_parameters()}


@torch.compile
def fcall(p, x):
    return torch.func.functional_call(lin, p, (x,))


print("functional_call", r(fcall(params, x3)), torch.allclose(fcall(params, x3), F.linear(x3, params["weight"],
                                                                                           params["bias"])))


# 6) torch.cond inside a compiled function
@torch.compile
def gated(x):
    return torch.cond(x.mean() > 0, lambda t: t.relu() * 2, lambda t: t.abs().neg(), (x,))


print("cond", [r(gated(torch.tensor([s, -1.0, 0.5])), 3) for s in (3.0, -3.0, 3.0)])
