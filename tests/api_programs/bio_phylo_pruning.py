"""Phylogenetic likelihoods: JC69/HKY/GTR rate matrices normalised to one substitution per site, transition matrices
P(t) = expm(Qt) by torch.linalg.matrix_exp (checked against an eigendecomposition of the symmetrised matrix),
Felsenstein pruning in log space with logsumexp over a fixed tree, site patterns with unique(return_counts), gamma
rate categories, branch-length gradients and a few Adam steps of maximum likelihood."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
f64 = torch.float64


def gtr(rates, pi):
    Q = torch.zeros(4, 4, dtype=rates.dtype)
    iu = torch.triu_indices(4, 4, 1)
    Q = Q.index_put((iu[0], iu[1]), rates)
    Q = Q + Q.T
    Q = Q * pi[None, :]
    Q = Q - torch.diag_embed(Q.sum(1))
    scale = -(pi * Q.diagonal()).sum()
    return Q / scale


pi_jc = torch.full((4,), 0.25, dtype=f64)
Q_jc = gtr(torch.ones(6, dtype=f64), pi_jc)
print("JC Q", Q_jc.round(decimals=4).tolist()[0], "rows sum", Q_jc.sum(1).abs().max().item() < 1e-12)
P = torch.linalg.matrix_exp(Q_jc * 0.3)
jc = 0.25 + 0.75 * torch.exp(torch.tensor(-4.0 / 3 * 0.3, dtype=f64))
print("JC P(0.3)", round(P[0, 0].item(), 6), round(jc.item(), 6), torch.allclose(P.sum(1), torch.ones(4, dtype=f64)))
pi = torch.tensor([0.3, 0.2, 0.2, 0.3], dtype=f64)
kappa = 4.0
Q_hky = gtr(torch.tensor([1, kappa, 1, 1, kappa, 1], dtype=f64), pi)
print(
    "HKY stationary",
    (pi @ Q_hky).abs().max().item() < 1e-12,
    "reversible",
    torch.allclose(pi[:, None] * Q_hky, (pi[:, None] * Q_hky).T),
)
S = torch.diag(pi.sqrt()) @ Q_hky @ torch.diag(1 / pi.sqrt())
evals, evecs = torch.linalg.eigh(S)
ts = torch.tensor([0.05, 0.5, 2.0], dtype=f64)
P_eig = (
    torch.diag(1 / pi.sqrt())
    @ evecs
    @ torch.diag_embed(torch.exp(evals * ts[:, None]))
    @ evecs.T
    @ torch.diag(pi.sqrt())
)
P_exp = torch.linalg.matrix_exp(Q_hky * ts[:, None, None])
print("eig vs expm", P_exp.shape, torch.allclose(P_eig, P_exp, atol=1e-10), evals.round(decimals=4).tolist())
print("P(inf) -> pi", torch.linalg.matrix_exp(Q_hky * 50)[1].round(decimals=4).tolist())
print(
    "matrix_power",
    torch.allclose(
        torch.linalg.matrix_power(torch.linalg.matrix_exp(Q_hky * 0.1), 5), torch.linalg.matrix_exp(Q_hky * 0.5)
    ),
)

aln = {"human": "ACGTACGTAAGT", "chimp": "ACGTACGTAAGC", "gorilla": "ACGAACGTCAGT", "orang": "TCGAACGGCAGT"}
codes = torch.tensor([["ACGT".index(c) for c in s] for s in aln.values()])
patterns, inverse, weights = torch.unique(codes.T, dim=0, return_inverse=True, return_counts=True)
print("patterns", patterns.shape, weights.tolist(), inverse.tolist())
tips = F.one_hot(patterns.T, 4).to(f64).log()
print("tip partials", tips.shape, tips[0, 0].tolist())


def log_prune(log_l, log_r, logP_l, logP_r):
    a = torch.logsumexp(logP_l[..., None, :, :] + log_l[..., :, None, :], dim=-1)
    b = torch.logsumexp(logP_r[..., None, :, :] + log_r[..., :, None, :], dim=-1)
    return a + b


def tree_loglik(log_bl, Q, pi, alpha=None, cats=4):
    bl = log_bl.exp()
    if alpha is None:
        rates = torch.ones(1, dtype=f64)
    else:
        rates = torch.tensor([0.1369, 0.4767, 1.0, 2.3864], dtype=f64)[:cats]  # discrete gamma(alpha) means
        rates = rates / rates.mean()
    logP = torch.log(torch.linalg.matrix_exp(Q * (bl[:, None] * rates[None, :])[..., None, None]).clamp_min(1e-300))
    hc = log_prune(tips[0], tips[1], logP[0, :, None], logP[1, :, None])
    go = log_prune(tips[2], tips[3], logP[2, :, None], logP[3, :, None])
    root = log_prune(hc, go, logP[4, :, None], logP[5, :, None])
    site = torch.logsumexp(root + pi.log(), dim=-1)
    site = torch.logsumexp(site - torch.log(torch.tensor(float(rates.numel()), dtype=f64)), dim=0)
    return (site * weights).sum(), site


log_bl = torch.log(torch.tensor([0.01, 0.02, 0.05, 0.2, 0.03, 0.04], dtype=f64)).requires_grad_(True)
ll, site = tree_loglik(log_bl, Q_hky, pi)
ll.backward()
print("loglik", round(ll.item(), 4), "site", site.round(decimals=4).tolist())
print("d ll / d log bl", log_bl.grad.round(decimals=4).tolist(), type(ll.grad_fn).__name__)
ll_g, _ = tree_loglik(log_bl.detach(), Q_hky, pi, alpha=torch.tensor(0.5, dtype=f64))
print("gamma rates loglik", round(ll_g.item(), 4))

opt = torch.optim.Adam([log_bl], lr=0.1)
for step in range(5):
    ll, _ = tree_loglik(log_bl, Q_hky, pi)
    opt.zero_grad()
    (-ll).backward()
    opt.step()
    print(step, round(ll.item(), 4), log_bl.exp().detach().round(decimals=4).tolist())

x = torch.tensor([[0.0, float("-inf")], [float("-inf"), float("-inf")], [1000.0, 1000.0]], dtype=f64)
print("logsumexp -inf", torch.logsumexp(x, dim=1).tolist(), torch.logsumexp(torch.tensor([]), 0).item())
print(
    "logaddexp",
    torch.logaddexp(torch.tensor([float("-inf"), 1.0]), torch.tensor([float("-inf"), 2.0])).round(decimals=4).tolist(),
)
print("logcumsumexp", torch.logcumsumexp(torch.tensor([0.0, float("-inf"), 1.0, 2.0]), 0).round(decimals=4).tolist())
print("expm grad", torch.autograd.gradcheck(torch.linalg.matrix_exp, (Q_hky.clone().requires_grad_(True) * 0.3,)))
try:
    torch.linalg.matrix_exp(torch.zeros(3, 4))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.logsumexp(torch.tensor([1, 2]), 0)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.unique(codes.T, dim=2)
except Exception as e:
    print(type(e).__name__, e)
