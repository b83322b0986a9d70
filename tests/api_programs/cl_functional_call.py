"""Continual-learning code built on torch.func.functional_call: evaluating old-task snapshots from copied
parameter dicts without touching the module, lookahead and MER-style inner steps, strict and tie_weights
options, several dicts at once, buffers passed through, and the calls it rejects."""

import copy

import torch
from torch.func import functional_call, grad, vmap

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 6)
        self.bn = nn.BatchNorm1d(6)
        self.fc2 = nn.Linear(6, 2)
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x):
        return self.fc2(F.relu(self.bn(self.fc1(x)))) * self.scale


net = Net()
x = torch.randn(10, 3)
y = torch.randint(0, 2, (10,))
params = {k: v.detach().clone() for k, v in net.named_parameters()}
buffers = {k: v.detach().clone() for k, v in net.named_buffers()}
print("buffers:", list(buffers))

snapshots = []
fast = {k: v.clone().requires_grad_() for k, v in params.items()}
for step in range(4):
    out = functional_call(net, (fast, buffers), (x,))
    loss = F.cross_entropy(out, y)
    g = torch.autograd.grad(loss, list(fast.values()), create_graph=False)
    fast = {k: (v - 0.5 * gi).detach().requires_grad_() for (k, v), gi in zip(fast.items(), g)}
    snapshots.append({k: v.detach().clone() for k, v in fast.items()})
    print(
        f"step {step}: loss={loss.item():.4f} rm={buffers['bn.running_mean'][:2].round(decimals=4).tolist()} nbt={buffers['bn.num_batches_tracked'].item()}"  # noqa: E501
    )
print("module untouched:", torch.equal(net.fc1.weight, params["fc1.weight"]), net.bn.num_batches_tracked.item())

net.eval()
with torch.no_grad():
    for i, snap in enumerate(snapshots):
        out = functional_call(net, snap, x)
        print(f"snapshot {i}: acc={(out.argmax(1) == y).float().mean().item():.4f}")
    partial = functional_call(net, {"fc2.bias": torch.tensor([5.0, -5.0])}, (x,))
    print("partial override:", partial.argmax(1).tolist())
    scaled = functional_call(net, {"scale": torch.tensor(0.0)}, (x,))
    print("buffer override:", scaled.abs().sum().item())
    kw = functional_call(net, params, args=(), kwargs={"x": x})
    print("kwargs:", tuple(kw.shape))

theta0 = copy.deepcopy(params)
reptile = {k: theta0[k] + 0.3 * (snapshots[-1][k] - theta0[k]) for k in theta0}
print("reptile delta:", round(sum((reptile[k] - theta0[k]).abs().sum().item() for k in theta0), 4))


def loss_fn(p, xb, yb):
    out = functional_call(net, (p, buffers), (xb.unsqueeze(0),))
    return F.cross_entropy(out, yb.unsqueeze(0))


per_sample = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, x, y)
print("per-sample grads:", {k: tuple(v.shape) for k, v in per_sample.items()})
fisher = {k: (v**2).mean(0) for k, v in per_sample.items()}
print("fisher:", {k: round(v.sum().item(), 4) for k, v in fisher.items()})


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Linear(4, 4, bias=False)
        self.out = nn.Linear(4, 4, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, x):
        return self.out(self.emb(x))


tied = Tied()
xi = torch.eye(4)
eye = torch.eye(4)
print("tied params:", [n for n, _ in tied.named_parameters()], len(dict(tied.named_parameters(remove_duplicate=False))))
print("tie_weights:", functional_call(tied, {"emb.weight": eye}, xi).sum().item() == 4.0)
print("untied:", round(functional_call(tied, {"emb.weight": eye}, xi, tie_weights=False).sum().item(), 4))

for bad in [
    lambda: functional_call(net, {"fc9.weight": torch.zeros(1)}, (x,), strict=True),
    lambda: functional_call(net, {"fc1.weight": torch.zeros(6, 3)}, (x,), strict=True),
    lambda: functional_call(net, ({"fc1.bias": torch.zeros(6)}, {"fc1.bias": torch.ones(6)}), (x,)),
    lambda: functional_call(net, {"fc1.weight": torch.zeros(5, 3)}, (x,)),
    lambda: functional_call(tied, {"emb.weight": eye, "out.weight": eye * 2}, xi),
    lambda: functional_call(net, {"fc9.weight": torch.zeros(1)}, (x,)).shape,
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
