"""Unpaired preference losses as TRL writes them: KTO with a batch KL reference point estimated from mismatched
completions (torch.roll), clamped at zero and detached, desirable/undesirable weights; BCO with a running reward
mean and a logistic density-ratio classifier; APO-zero and NCA variants; a custom autograd.Function for a
straight-through sign, gradcheck/gradgradcheck in float64, and create_graph gradients of logsigmoid."""

import torch
import torch.nn.functional as F
from torch.autograd import gradcheck, gradgradcheck

torch.manual_seed(0)
B = 6
policy_logps = (-torch.rand(B, dtype=torch.float64) * 10).requires_grad_()
ref_logps = policy_logps.detach() + 0.3 * torch.randn(B, dtype=torch.float64)
label = torch.tensor([True, True, False, True, False, False])
mismatched_policy = policy_logps.detach().roll(1) * 0.9
mismatched_ref = ref_logps.roll(1)
print(
    "roll:",
    torch.arange(5).roll(1).tolist(),
    torch.arange(6).view(2, 3).roll(1, 1).tolist(),
    torch.arange(6).view(2, 3).roll((1, 1), (0, 1)).tolist(),
)

beta, w_d, w_u = 0.1, 1.0, 1.33
kl = (mismatched_policy - mismatched_ref).mean().clamp(min=0).detach()
print("kl reference point:", round(kl.item(), 6), kl.requires_grad)
logratios = policy_logps - ref_logps
chosen_losses = 1 - F.sigmoid(beta * (logratios[label] - kl))
rejected_losses = 1 - F.sigmoid(beta * (kl - logratios[~label]))
kto = torch.cat((w_d * chosen_losses, w_u * rejected_losses), 0).mean()
kto.backward()
print("kto:", round(kto.item(), 6), "grad:", policy_logps.grad.round(decimals=6).tolist())
print(
    "chosen rewards:",
    (beta * logratios[label]).detach().round(decimals=4).tolist(),
    "rejected:",
    (beta * logratios[~label]).detach().round(decimals=4).tolist(),
)

running_mean = torch.tensor(0.0, dtype=torch.float64)
for batch_rewards in [torch.tensor([0.1, 0.3]), torch.tensor([-0.2, 0.6, 0.4])]:
    running_mean = running_mean * 0.9 + batch_rewards.double().mean() * 0.1
delta = running_mean
rewards = beta * logratios.detach()
bco = torch.cat([-F.logsigmoid(rewards[label] - delta), -F.logsigmoid(-(rewards[~label] - delta))]).mean()
print("bco delta:", round(delta.item(), 6), "loss:", round(bco.item(), 6))
clf = torch.nn.Linear(3, 1, dtype=torch.float64)
emb = torch.randn(B, 3, dtype=torch.float64)
with torch.no_grad():
    prob = torch.sigmoid(clf(emb)).squeeze(-1).clamp(0.01, 0.99)
density_ratio = (prob / (1 - prob)).clamp(min=0.5, max=10.0)
print("density ratios:", density_ratio.round(decimals=4).tolist(), clf.weight.dtype)

pc, pr = policy_logps.detach()[:3], policy_logps.detach()[3:]
rc, rr = ref_logps[:3], ref_logps[3:]
chosen_r, rejected_r = beta * (pc - rc), beta * (pr - rr)
apo_zero = (1 - F.sigmoid(chosen_r) + F.sigmoid(rejected_r)).mean()
nca = (-F.logsigmoid(chosen_r) - 0.5 * F.logsigmoid(-chosen_r) - 0.5 * F.logsigmoid(-rejected_r)).mean()
print("apo_zero:", round(apo_zero.item(), 6), "nca:", round(nca.item(), 6))


def dpo(c, r, rc_, rr_):
    return -F.logsigmoid(beta * ((c - r) - (rc_ - rr_))).sum()


inputs = tuple(torch.randn(3, dtype=torch.float64, requires_grad=True) for _ in range(4))
print("gradcheck:", gradcheck(dpo, inputs), "gradgradcheck:", gradgradcheck(dpo, inputs))
(g,) = torch.autograd.grad(dpo(*inputs), inputs[0], create_graph=True)
(h,) = torch.autograd.grad(g.sum(), inputs[0])
z = beta * ((inputs[0] - inputs[1]) - (inputs[2] - inputs[3])).detach()
print(
    "analytic grad ok:",
    torch.allclose(g, -beta * torch.sigmoid(-z)),
    "hessian diag ok:",
    torch.allclose(h, beta**2 * torch.sigmoid(z) * torch.sigmoid(-z)),
)
print("grad_fn:", g.grad_fn.name(), h.grad_fn)


class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x.abs() <= 1).to(grad.dtype)


x = torch.tensor([-2.0, -0.5, 0.0, 0.7, 3.0], dtype=torch.float64, requires_grad=True)
y = SignSTE.apply(x)
(y * torch.arange(5.0, dtype=torch.float64)).sum().backward()
print("ste:", y.tolist(), x.grad.tolist(), y.grad_fn.name())
try:
    gradcheck(SignSTE.apply, (x,))
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print("no raise:", gradcheck(SignSTE.apply, (x,), raise_exception=False))
for bad in [
    lambda: torch.arange(6).roll(1, (0, 1)),
    lambda: torch.arange(6).roll((1, 2), 0),
    lambda: torch.autograd.grad(kto, policy_logps),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
