"""Stochastic routers: Gumbel-max top-k by -log(-log(U)) from torch.rand with a Generator, F.gumbel_softmax with
hard straight-through one-hots and a temperature schedule, Gumbel-top-k without replacement checked against
multinomial frequencies, REINFORCE for a discrete router with Categorical log_prob/entropy, and argument errors."""

import torch
import torch.nn.functional as F
from torch.distributions import Categorical, Gumbel

torch.manual_seed(0)
T, E = 6, 4
logits = torch.tensor([[2.0, 0.5, 0.1, -1.0],
                       [0.0, 0.0, 0.0, 0.0],
                       [-1.0, 3.0, 0.2, 0.2],
                       [0.3, 0.3, 2.5, 0.1],
                       [1.0, 1.0, 1.0, 4.0],
                       [0.5, -0.5, 0.0, 1.5]])

gen = torch.Generator().manual_seed(1234)
u = torch.rand(T, E, generator=gen)
gumbel = -torch.log(-torch.log(u.clamp_min(1e-20)))
print("uniform sample [0]:", u[0].round(decimals=4).tolist())
noisy = logits + gumbel
top2 = noisy.topk(2, dim=-1).indices
print("gumbel top-2:", top2.tolist())

# Gumbel-top-k sampling of k=2 experts without replacement: frequencies over many draws
g2 = torch.Generator().manual_seed(7)
draws = 4000
uu = torch.rand(draws, E, generator=g2)
picks = (logits[0] - torch.log(-torch.log(uu))).argmax(-1)
freq = torch.bincount(picks, minlength=E).float() / draws
print("gumbel-max freq vs softmax:", freq.round(decimals=2).tolist(),
      logits[0].softmax(-1).round(decimals=2).tolist())
m = torch.multinomial(logits[0].softmax(-1), draws, replacement=True, generator=torch.Generator().manual_seed(7))
print("multinomial freq:", (torch.bincount(m, minlength=E).float() / draws).round(decimals=2).tolist())
wr = torch.multinomial(logits.softmax(-1), 2, generator=torch.Generator().manual_seed(3))
print("without replacement:", wr.shape, "distinct per row:", (wr[:, 0] != wr[:, 1]).all().item())

# gumbel_softmax: soft and hard, gradients flow through the soft sample in both
for tau in (2.0, 1.0, 0.5):
    torch.manual_seed(11)
    y_soft = F.gumbel_softmax(logits, tau=tau, hard=False)
    torch.manual_seed(11)
    y_hard = F.gumbel_softmax(logits, tau=tau, hard=True)
    print(f"tau {tau}: rows sum {y_soft.sum(-1).round(decimals=4).tolist()[:2]} hard argmax == soft argmax",
          torch.equal(y_hard.argmax(-1), y_soft.argmax(-1)), "one-hot:", torch.equal(y_hard.sum(-1), torch.ones(T)))
lg = logits.clone().requires_grad_()
torch.manual_seed(5)
yh = F.gumbel_softmax(lg, tau=0.7, hard=True, dim=-1)
(yh * torch.arange(E, dtype=torch.float32)).sum().backward()
print("hard grad_fn:", yh.grad_fn.name(), "grad rows sum ~0:", lg.grad.sum(-1).abs().max().item() < 1e-5)

# REINFORCE router: sample experts, reward, policy gradient with an entropy bonus
w = torch.zeros(3, E, requires_grad=True)
feats = torch.tensor([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [1.0, 1.0, 0], [0, 1.0, 1.0], [1.0, 0, 1.0]])
best = torch.tensor([0, 1, 2, 1, 2, 0])
opt = torch.optim.SGD([w], lr=0.5)
torch.manual_seed(0)
for step in range(40):
    dist = Categorical(logits=feats @ w)
    a = dist.sample()
    reward = (a == best).float()
    loss = -((reward - reward.mean()) * dist.log_prob(a)).mean() - 0.01 * dist.entropy().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
final = Categorical(logits=feats @ w)
print("greedy router:", final.probs.argmax(-1).tolist(), "target:", best.tolist())
print("entropy:", final.entropy().round(decimals=2).tolist())
print("Gumbel dist:", Gumbel(torch.tensor(0.0), torch.tensor(1.0)).mean.round(decimals=4).item(),
      Gumbel(0.0, 1.0).log_prob(torch.tensor(0.5)).round(decimals=4).item())

for bad in (lambda: F.gumbel_softmax(logits, tau=1.0, hard=True, dim=2),
            lambda: torch.multinomial(logits.softmax(-1), 5),
            lambda: torch.multinomial(torch.tensor([0.5, -0.1]), 1),
            lambda: Categorical(logits=logits).log_prob(torch.tensor([0, 1, 2, 3, 4, 0])),
            lambda: torch.rand(2, generator=torch.Generator(), dtype=torch.int64)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
