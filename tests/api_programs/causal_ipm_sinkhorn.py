"""CFRNet's integral probability metrics between treated and control representations: linear and RBF MMD via
torch.cdist (every p and compute_mode), and entropic Wasserstein by log-domain Sinkhorn iterations with logsumexp."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(3)
torch.set_printoptions(precision=4, sci_mode=False)
phi_t = torch.randn(7, 4, dtype=torch.float64) + 0.5
phi_c = torch.randn(9, 4, dtype=torch.float64)

mmd_lin = (phi_t.mean(0) - phi_c.mean(0)).pow(2).sum()
print("linear mmd", round(mmd_lin.item(), 5))
for p in [0.0, 1.0, 1.5, 2.0, 3.0, float("inf")]:
    D = torch.cdist(phi_t, phi_c, p=p)
    print("cdist p", p, D.shape, round(D.sum().item(), 4), round(D[0, 0].item(), 4))
for mode in ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"]:
    print(mode[:22], round(torch.cdist(phi_t, phi_c, compute_mode=mode).sum().item(), 4))
try:
    torch.cdist(phi_t, phi_c, compute_mode="fast")
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    torch.cdist(phi_t, phi_c, p=-1)
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    torch.cdist(phi_t, phi_c[:, :3])
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    torch.cdist(phi_t.int(), phi_c.int())
except Exception as ex:
    print(type(ex).__name__, ex)


def rbf_mmd(a, b, sigma):
    k = lambda u, v: torch.exp(-torch.cdist(u, v).pow(2) / (2 * sigma**2))
    return k(a, a).mean() + k(b, b).mean() - 2 * k(a, b).mean()


for s in [0.5, 1.0, 2.0]:
    print("rbf mmd", s, round(rbf_mmd(phi_t, phi_c, s).item(), 5))

# gradient of cdist when two points coincide (zero distance)
a = torch.tensor([[0.0, 0.0], [1.0, 1.0]], dtype=torch.float64, requires_grad=True)
b = torch.tensor([[0.0, 0.0], [2.0, 1.0]], dtype=torch.float64)
for p in [1.0, 2.0, 3.0, float("inf")]:
    a.grad = None
    torch.cdist(a, b, p=p).sum().backward()
    print("grad at 0 p", p, a.grad.tolist())
a.grad = None
torch.cdist(a, a).sum().backward()
print("self grad", a.grad.tolist())
print("pdist", F.pdist(phi_t[:4]).round(decimals=3), F.pdist(phi_t[:4], p=1).shape)
print("batched cdist", torch.cdist(phi_t.expand(3, 7, 4), phi_c[None]).shape)
print("empty cdist", torch.cdist(phi_t[:0], phi_c).shape, torch.cdist(phi_t[:, :0], phi_c[:, :0]).sum())


def sinkhorn(x, y, eps=0.1, iters=100):
    C = torch.cdist(x, y).pow(2)
    n, m = C.shape
    log_a = torch.full((n,), -math.log(n), dtype=x.dtype)
    log_b = torch.full((m,), -math.log(m), dtype=x.dtype)
    f = torch.zeros(n, dtype=x.dtype)
    g = torch.zeros(m, dtype=x.dtype)
    for _ in range(iters):
        f = -eps * torch.logsumexp((g[None, :] - C) / eps + log_b[None, :], dim=1)
        g = -eps * torch.logsumexp((f[:, None] - C) / eps + log_a[:, None], dim=0)
    log_P = (f[:, None] + g[None, :] - C) / eps + log_a[:, None] + log_b[None, :]
    P = log_P.exp()
    return (P * C).sum(), P


w, P = sinkhorn(phi_t, phi_c)
print("sinkhorn", round(w.item(), 4), "marginals", P.sum(1).round(decimals=4)[:3], round(P.sum().item(), 6))
xt = phi_t.clone().requires_grad_()
w2, _ = sinkhorn(xt, phi_c, eps=0.5, iters=50)
w2.backward()
print("w grad", xt.grad.norm().round(decimals=4), xt.grad.shape)
# logsumexp edge cases used by the solver
print("lse -inf", torch.logsumexp(torch.tensor([-float("inf"), -float("inf")]), 0))
print("lse inf", torch.logsumexp(torch.tensor([float("inf"), 1.0]), 0))
print("lse empty", torch.logsumexp(torch.empty(0, 3), 0), torch.logsumexp(torch.empty(2, 0), 1))
print("lse int", torch.logsumexp(torch.tensor([1, 2, 3]), 0))
print("lse keepdim", torch.logsumexp(torch.zeros(2, 3), dim=(0, 1), keepdim=True))
print("lse half", torch.logsumexp(torch.tensor([10.0, 10.0], dtype=torch.float16), 0))
print("lse bf16", torch.logsumexp(torch.tensor([100.0, 99.0], dtype=torch.bfloat16), 0))
x_inf = torch.tensor([-float("inf"), 0.0], requires_grad=True)
torch.logsumexp(x_inf, 0).backward()
print("lse grad", x_inf.grad)
x_all = torch.tensor([-float("inf"), -float("inf")], requires_grad=True)
torch.logsumexp(x_all, 0).backward()
print("lse grad all -inf", x_all.grad)
print("softmax -inf row", torch.softmax(torch.tensor([[-float("inf"), -float("inf")]]), 1))
print("log_softmax", torch.log_softmax(torch.tensor([0.0, -float("inf")]), 0))
print("float32 sinkhorn", round(sinkhorn(phi_t.float(), phi_c.float(), eps=0.05)[0].item(), 3))
print("special lse", torch.special.logsumexp(torch.tensor([[1.0, 2.0]]), 1))
