"""Model compression: magnitude pruning with torch.nn.utils.prune (l1/ln-structured/global/custom, remove),
quantization-aware training with fake_quantize_per_tensor/per_channel_affine and straight-through estimators,
low-precision casts (bfloat16, float8), and the shape/dtype errors one hits while wiring such models."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def init(m, scale=0.5):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


net = init(nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3)))
X, y = T(16, 6), torch.from_numpy(rng.integers(0, 3, 16))
prune.l1_unstructured(net[0], name="weight", amount=0.25)
print("l1", sorted(n for n, _ in net[0].named_parameters()), sorted(n for n, _ in net[0].named_buffers()),
      int((net[0].weight == 0).sum()), prune.is_pruned(net))
prune.ln_structured(net[2], name="weight", amount=0.5, n=2, dim=0)
print("ln_rows", net[2].weight_mask.sum(1).tolist())
prune.global_unstructured([(net[0], "weight"), (net[2], "weight"), (net[4], "weight")],
                          pruning_method=prune.L1Unstructured, amount=0.4)
total = sum(m.weight.numel() for m in (net[0], net[2], net[4]))
zeros = sum(int((m.weight == 0).sum()) for m in (net[0], net[2], net[4]))
print("global", zeros, total, [int((m.weight == 0).sum()) for m in (net[0], net[2], net[4])])
hook = next(iter(net[0]._forward_pre_hooks.values()))
print("container", type(hook).__name__, [type(h).__name__ for h in hook._pruning_methods])
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    loss = F.cross_entropy(net(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("pruned_train", round(loss.item(), 4), int((net[0].weight == 0).sum()), r(net[0].weight_orig.grad))
for m in (net[0], net[2], net[4]):
    prune.remove(m, "weight")
print("removed", sorted(net.state_dict().keys())[:3], prune.is_pruned(net), int((net[0].weight == 0).sum()))


class EveryOther(prune.BasePruningMethod):
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


EveryOther.apply(net[4], "bias")
print("custom", net[4].bias.tolist()[:3] == [0.0, net[4].bias_orig[1].item(), 0.0], net[4].bias_mask.tolist())


class QATLinear(nn.Linear):
    def __init__(self, i, o, bits=4):
        super().__init__(i, o)
        self.qmin, self.qmax = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        self.register_buffer("act_scale", torch.tensor(0.1))

    def forward(self, x):
        w_scale = self.weight.detach().abs().amax(dim=1).clamp(min=1e-8) / self.qmax
        wq = torch.fake_quantize_per_channel_affine(self.weight, w_scale, torch.zeros(self.out_features,
                                                                                      dtype=torch.int32),
                                                    0, self.qmin, self.qmax)
        if self.training:
            with torch.no_grad():
                self.act_scale.mul_(0.9).add_(0.1 * x.detach().abs().max() / 127)
        xq = torch.fake_quantize_per_tensor_affine(x, self.act_scale.item(), 0, -128, 127)
        return F.linear(xq, wq, self.bias)


qnet = nn.Sequential(QATLinear(6, 8), nn.ReLU(), QATLinear(8, 3))
init(qnet)
qopt = torch.optim.Adam(qnet.parameters(), lr=1e-2)
for step in range(3):
    out = qnet(X)
    loss = F.cross_entropy(out, y)
    qopt.zero_grad()
    loss.backward()
    qopt.step()
    print("qat", step, round(loss.item(), 4), round(qnet[0].act_scale.item(), 5))
w = qnet[0].weight.detach()
s = w.abs().amax(1) / 7
wq = torch.fake_quantize_per_channel_affine(w, s, torch.zeros(8, dtype=torch.int32), 0, -8, 7)
print("levels", torch.unique(torch.round(wq / s[:, None])).tolist(), r(wq[0]))
xg = torch.linspace(-1.5, 1.5, 7, requires_grad=True)
fq = torch.fake_quantize_per_tensor_affine(xg, 0.25, 1, -4, 3)
fq.sum().backward()
print("ste_mask", fq.tolist(), xg.grad.tolist(), fq.grad_fn.name())
xs = torch.linspace(-1, 1, 5, requires_grad=True)
ste = xs + (torch.sign(xs) - xs).detach()
ste.pow(2).sum().backward()
print("sign_ste", ste.tolist(), xs.grad.tolist())
x8 = T(6)
print("bf16", r(x8.to(torch.bfloat16).float()), "fp8", r(x8.to(torch.float8_e4m3fn).float()),
      r(x8.to(torch.float8_e5m2).float()))
print("finfo", torch.finfo(torch.float8_e4m3fn).max, torch.finfo(torch.bfloat16).eps, torch.iinfo(torch.int8).min)
q8 = torch.clamp(torch.round(x8 / 0.02), -128, 127).to(torch.int8)
print("int8", q8.tolist(), (q8.float() * 0.02 - x8).abs().max().item() <= 0.01 + 1e-6)


def show_error(tag, fn):
    try:
        fn()
    except (RuntimeError, ValueError) as e:
        print(tag, type(e).__name__, str(e).splitlines()[0])


show_error("err_linear", lambda: nn.Linear(5, 3)(torch.zeros(4, 2, 6)))
show_error("err_unflatten", lambda: torch.zeros(2, 12).unflatten(1, (5, -1)))
show_error("err_ce_float", lambda: F.cross_entropy(torch.zeros(4, 3), torch.tensor([0.0, 1.0, 2.0, 1.0])))
show_error("err_ce_batch", lambda: F.cross_entropy(torch.zeros(4, 3), torch.tensor([0, 1])))
show_error("err_int_grad", lambda: torch.tensor([1, 2]).requires_grad_())
show_error("err_int_param", lambda: nn.Parameter(torch.tensor([1, 2])))
show_error("err_pad", lambda: F.pad(torch.zeros(1, 2, 3, 3), (1, 1), mode="reflect"))
show_error("err_matmul", lambda: torch.zeros(2, 3) @ torch.zeros(2, 3))
show_error("err_view", lambda: torch.zeros(2, 3).t().view(6))
show_error("err_unused", lambda: torch.autograd.grad((xs * 2).sum(), [xs, torch.ones(1, requires_grad=True)]))
