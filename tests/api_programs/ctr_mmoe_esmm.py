"""Multi-task ranking: MMoE softmax gates, PLE-style shared/specific experts, ESMM's CTR*CVR, uncertainty weights."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)


class MMoE(nn.Module):
    def __init__(self, d_in, n_experts=3, d_expert=8, n_tasks=2):
        super().__init__()
        self.experts = nn.Parameter(torch.randn(n_experts, d_in, d_expert) * 0.1)
        self.expert_bias = nn.Parameter(torch.zeros(n_experts, d_expert))
        self.gates = nn.ModuleList([nn.Linear(d_in, n_experts) for _ in range(n_tasks)])
        self.towers = nn.ModuleList(
            [nn.Sequential(nn.Linear(d_expert, 4), nn.ReLU(), nn.Linear(4, 1)) for _ in range(n_tasks)]
        )

    def forward(self, x):
        h = F.relu(torch.einsum("bd,edk->bek", x, self.experts) + self.expert_bias)
        outs, gate_ws = [], []
        for gate, tower in zip(self.gates, self.towers):
            g = F.softmax(gate(x), dim=-1)
            gate_ws.append(g)
            mixed = torch.bmm(g.unsqueeze(1), h).squeeze(1)
            outs.append(tower(mixed).squeeze(-1))
        return outs, gate_ws


B, D = 16, 6
x = torch.randn(B, D)
click = (x[:, 0] > 0).float()
conv = click * (x[:, 1] > 0.3).float()
model = MMoE(D)
print(model)
(ctr_logit, cvr_logit), gates = model(x)
print("gates", gates[0].shape, gates[0].sum(-1).round(decimals=4).unique().tolist())
print("gate row0", gates[0][0].round(decimals=4).tolist())

# ESMM: pCTCVR = pCTR * pCVR, trained on the entire impression space
p_ctr = torch.sigmoid(ctr_logit)
p_ctcvr = p_ctr * torch.sigmoid(cvr_logit)
loss = F.binary_cross_entropy(p_ctr, click) + F.binary_cross_entropy(p_ctcvr, conv)
print("esmm loss", round(loss.item(), 4), p_ctcvr.grad_fn.name())

# homoscedastic uncertainty weighting (Kendall et al.)
log_vars = nn.Parameter(torch.zeros(2))
opt = torch.optim.Adam(list(model.parameters()) + [log_vars], lr=0.02)
for step in range(25):
    (c, v), g = model(x)
    p1 = torch.sigmoid(c)
    l1 = F.binary_cross_entropy_with_logits(c, click)
    l2 = F.binary_cross_entropy(p1 * torch.sigmoid(v), conv)
    total = torch.exp(-log_vars[0]) * l1 + log_vars[0] + torch.exp(-log_vars[1]) * l2 + log_vars[1]
    opt.zero_grad()
    total.backward()
    opt.step()
print("total", round(total.item(), 4), "log_vars", log_vars.detach().round(decimals=4).tolist())

# gate entropy and expert load as diagnostics
g = gates[0].detach()
entropy = -(g * g.clamp_min(1e-9).log()).sum(-1).mean()
print("gate entropy", round(entropy.item(), 4), "load", g.mean(0).round(decimals=4).tolist())
print("special.entr", torch.special.entr(g).sum(-1).mean().round(decimals=4).item())
print(
    "log_softmax matches",
    torch.allclose(F.log_softmax(model.gates[0](x), -1), torch.log(F.softmax(model.gates[0](x), -1)), atol=1e-6),
)

# PLE: shared + task-specific experts selected by the gate with a concat
shared = nn.Linear(D, 8)
specific = nn.ModuleList([nn.Linear(D, 8) for _ in range(2)])
ple_gate = nn.Linear(D, 2)
for t in range(2):
    experts = torch.stack([F.relu(shared(x)), F.relu(specific[t](x))], dim=1)
    w = ple_gate(x).softmax(dim=1).unsqueeze(-1)
    out = (w * experts).sum(1)
    print("ple task", t, out.shape, round(out.sum().item(), 4))

# gradient conflicts between tasks measured on the shared experts
(c, v), _ = model(x)
g1 = torch.autograd.grad(F.binary_cross_entropy_with_logits(c, click), model.experts, retain_graph=True)[0]
g2 = torch.autograd.grad(F.binary_cross_entropy_with_logits(v, conv), model.experts)[0]
cos = F.cosine_similarity(g1.flatten(), g2.flatten(), dim=0)
print("task grad cosine", round(cos.item(), 4))

# top-k sparse gating with noise-free renormalisation
logits = model.gates[0](x)
topv, topi = logits.topk(2, dim=-1)
sparse_g = torch.zeros_like(logits).scatter(-1, topi, F.softmax(topv, -1))
print(
    "sparse gate nnz per row",
    (sparse_g > 0).sum(-1).unique().tolist(),
    sparse_g.sum(-1).round(decimals=4).unique().tolist(),
)
print("gumbel shape", F.gumbel_softmax(logits, tau=0.5, hard=True).sum(-1).unique().tolist())
try:
    F.softmax(logits)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.bmm(gates[0], torch.randn(B, 3, 8))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.binary_cross_entropy(p_ctr.detach(), conv.long())
except Exception as e:
    print(type(e).__name__, e)
