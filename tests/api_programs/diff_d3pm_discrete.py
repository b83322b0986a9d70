"""Discrete diffusion over categorical data (D3PM, Austin et al.; absorbing-state / masked diffusion): uniform and
absorbing transition matrices, cumulative products with torch.linalg.matrix_power and a running bmm, q(x_t | x_0)
by gather, the posterior q(x_{t-1} | x_t, x_0) in log space with logsumexp, categorical KL with xlogy, the hybrid
loss, MaskGIT-style confidence unmasking with topk/scatter, and one-hot/argmax round trips."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, n=6):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


K, T = 5, 8  # classes (last is [MASK] for the absorbing process), steps
betas = torch.linspace(0.02, 0.5, T, dtype=torch.float64)


def uniform_Q(beta):
    return (1 - beta) * torch.eye(K, dtype=torch.float64) + beta / K * torch.ones(K, K, dtype=torch.float64)


def absorbing_Q(beta):
    Q = (1 - beta) * torch.eye(K, dtype=torch.float64)
    Q[:, K - 1] += beta
    return Q


for name, make in [("uniform", uniform_Q), ("absorbing", absorbing_Q)]:
    Qs = torch.stack([make(b) for b in betas])
    Qbar = [Qs[0]]
    for t in range(1, T):
        Qbar.append(Qbar[-1] @ Qs[t])
    Qbar = torch.stack(Qbar)
    print(
        name,
        tuple(Qs.shape),
        "rows sum to 1:",
        torch.allclose(Qs.sum(-1), torch.ones(T, K, dtype=torch.float64)),
        "Qbar_T row 0:",
        r(Qbar[-1, 0], K),
    )
    print(
        "  stochastic:",
        bool((Qbar >= 0).all()),
        "matrix_power of Q_0^3:",
        r(torch.linalg.matrix_power(Qs[0], 3)[0], K),
        "bmm chain equal:",
        torch.allclose(torch.linalg.multi_dot([Qs[0], Qs[1], Qs[2]]), Qbar[2]),
    )
print("matrix_power 0:", torch.equal(torch.linalg.matrix_power(Qs[3], 0), torch.eye(K, dtype=torch.float64)))
try:
    torch.linalg.matrix_power(torch.randn(2, 3), 2)
except Exception as e:
    print(type(e).__name__, e)

Qs = torch.stack([absorbing_Q(b) for b in betas]).float()
Qbar = torch.stack(
    [torch.linalg.matrix_power(Qs[0], 1)] + [torch.linalg.multi_dot(list(Qs[: t + 1])) for t in range(1, T)]
)
x0 = torch.tensor([[0, 1, 2, 3, 1, 0], [3, 3, 2, 0, 1, 2]])
t = torch.tensor([2, 6])
# q(x_t | x_0): row x0 of Qbar[t]
probs_t = Qbar[t][torch.arange(2)[:, None], x0]  # b, n, K
print("q(x_t|x_0):", tuple(probs_t.shape), r(probs_t[1, 0], K))
xt = torch.tensor([[0, 4, 2, 3, 4, 0], [4, 4, 2, 4, 1, 4]])
onehot = F.one_hot(xt, K).float()
print("one_hot:", onehot.dtype, tuple(onehot.shape), torch.equal(onehot.argmax(-1), xt))
try:
    F.one_hot(torch.tensor([0, 5]), K)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.one_hot(torch.tensor([0.0, 1.0]), K)
except Exception as e:
    print(type(e).__name__, e)


def q_posterior_logits(x0_logits, xt, t):
    # log q(x_{t-1}|x_t,x_0) ∝ log Q_t[:, x_t]^T + log (p(x_0) Qbar_{t-1})
    fact1 = Qs[t].transpose(-1, -2)[torch.arange(xt.shape[0])[:, None], xt]  # b, n, K
    p0 = F.softmax(x0_logits, dim=-1)
    fact2 = torch.einsum("bnk,bkj->bnj", p0, Qbar[(t - 1).clamp(min=0)])
    return torch.log(fact1 + 1e-6) + torch.log(fact2 + 1e-6)


class Denoiser(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.emb = nn.Embedding(K, d)
        self.temb = nn.Embedding(T, d)
        self.out = nn.Linear(d, K)

    def forward(self, xt, t):
        return self.out(torch.tanh(self.emb(xt) + self.temb(t)[:, None, :]))


net = Denoiser()
with torch.no_grad():
    for k, p in enumerate(net.parameters()):
        p.copy_(0.5 * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * 0.83 + k).view_as(p))
logits = net(xt, t)
true_logits = q_posterior_logits(torch.log(F.one_hot(x0, K).float() + 1e-6), xt, t)
pred_logits = q_posterior_logits(logits, xt, t)
lp_true = true_logits - torch.logsumexp(true_logits, dim=-1, keepdim=True)
lp_pred = F.log_softmax(pred_logits, dim=-1)
kl = (torch.xlogy(lp_true.exp(), lp_true.exp()) - lp_true.exp() * lp_pred).sum(-1)
kl_alt = F.kl_div(lp_pred, lp_true, log_target=True, reduction="none").sum(-1)
print("kl:", r(kl, 6), torch.allclose(kl, kl_alt, atol=1e-5))
ce = F.cross_entropy(logits.transpose(1, 2), x0, reduction="none")
print("ce:", tuple(ce.shape), r(ce, 6))
loss = kl.mean() / math.log(2) + 0.01 * ce.mean()
loss.backward()
print("hybrid loss:", round(loss.item(), 4), "grad:", round(net.out.weight.grad.norm().item(), 4))
print(
    "xlogy zeros:",
    torch.xlogy(torch.tensor([0.0, 0.0, 2.0]), torch.tensor([0.0, float("nan"), 3.0])).tolist(),
    torch.special.xlog1py(torch.tensor([0.0, 1.0]), torch.tensor([-1.0, 1.0])).tolist(),
)

# MaskGIT confidence-based unmasking: keep the most confident predictions
MASK = K - 1
seq = torch.full((2, 6), MASK)
seq[0, 0] = 2
with torch.no_grad():
    for step, ratio in enumerate([0.5, 0.2, 0.0]):
        p = F.softmax(net(seq, torch.tensor([T - 1 - step] * 2))[..., :MASK], dim=-1)
        conf, pred = p.max(dim=-1)
        masked = seq == MASK
        conf = torch.where(masked, conf, torch.tensor(float("inf")))
        n_keep_masked = (masked.sum(-1).float() * ratio).floor().long()
        order = conf.argsort(dim=-1)
        rank = torch.empty_like(order).scatter_(1, order, torch.arange(6).expand(2, 6))
        remask = rank < n_keep_masked[:, None]
        seq = torch.where(masked & ~remask, pred, seq)
        print("step", step, seq.tolist(), n_keep_masked.tolist())
top = torch.topk(torch.tensor([0.1, 0.9, 0.5, 0.9]), k=2)
print("topk ties:", top.values.tolist(), sorted(top.indices.tolist()), type(top).__name__)
