"""Evidential deep learning / prior networks: a classifier that outputs Dirichlet concentrations."""

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


def edl_mse_loss(alpha, y_onehot):
    S = alpha.sum(-1, keepdim=True)
    p = alpha / S
    err = ((y_onehot - p) ** 2).sum(-1)
    var = (p * (1 - p) / (S + 1)).sum(-1)
    return err + var


def edl_digamma_loss(alpha, y_onehot):
    S = alpha.sum(-1, keepdim=True)
    return (y_onehot * (torch.digamma(S) - torch.digamma(alpha))).sum(-1)


def kl_to_uniform(alpha):
    K = alpha.shape[-1]
    return D.kl_divergence(D.Dirichlet(alpha), D.Dirichlet(torch.ones(K)))


def kl_manual(alpha):
    K = alpha.shape[-1]
    S = alpha.sum(-1)
    t1 = torch.lgamma(S) - torch.lgamma(torch.tensor(float(K))) - torch.lgamma(alpha).sum(-1)
    t2 = ((alpha - 1) * (torch.digamma(alpha) - torch.digamma(S).unsqueeze(-1))).sum(-1)
    return t1 + t2


torch.manual_seed(0)
K = 3
centers = torch.tensor([[3.0, 0.0], [-1.5, 2.6], [-1.5, -2.6]])
y = torch.randint(0, K, (300,))
x = centers[y] + 0.7 * torch.randn(300, 2)
yoh = F.one_hot(y, K).float()
print("one_hot", yoh.shape, yoh.dtype, yoh.sum().item())
net = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, K))
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for epoch in range(100):
    evidence = F.softplus(net(x))
    alpha = evidence + 1
    anneal = min(1.0, epoch / 50)
    alpha_tilde = yoh + (1 - yoh) * alpha
    loss = (edl_mse_loss(alpha, yoh) + anneal * kl_to_uniform(alpha_tilde)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("trained", bool(torch.isfinite(loss)))
with torch.no_grad():
    alpha = F.softplus(net(x)) + 1
acc = (alpha.argmax(-1) == y).float().mean().item()
print("acc > 0.9", acc > 0.9)
pts = torch.tensor([[3.0, 0.0], [0.0, 0.0], [30.0, 30.0]])
with torch.no_grad():
    a = F.softplus(net(pts)) + 1
dir_ = D.Dirichlet(a)
print("dirichlet", dir_.batch_shape, dir_.event_shape)
vacuity = K / a.sum(-1)
print("vacuity in (0,1]", bool(((vacuity > 0) & (vacuity <= 1)).all()), "center most certain", int(vacuity.argmin()))
print("expected probs sum", r(dir_.mean.sum(-1)))
# expected entropy of the categorical under the Dirichlet (aleatoric), mutual information (epistemic)
S = a.sum(-1, keepdim=True)
exp_ent = -(a / S * (torch.digamma(a + 1) - torch.digamma(S + 1))).sum(-1)
tot_ent = D.Categorical(probs=dir_.mean).entropy()
mi = tot_ent - exp_ent
print("mi nonneg", bool((mi >= -1e-5).all()))
torch.manual_seed(1)
samples = dir_.sample((4000,))
mc_exp_ent = D.Categorical(probs=samples.clamp_min(1e-12)).entropy().mean(0)
print("expected entropy mc close", torch.allclose(mc_exp_ent, exp_ent, atol=0.05))

# closed forms against the library
alpha = torch.tensor([[1.0, 1.0, 1.0], [2.0, 5.0, 0.5], [10.0, 10.0, 10.0]])
print("kl uniform", r(kl_to_uniform(alpha)), r(kl_manual(alpha)))
print("digamma loss", r(edl_digamma_loss(alpha, torch.eye(3))))
print("mse loss", r(edl_mse_loss(alpha, torch.eye(3))))
dd = D.Dirichlet(alpha)
print("entropy", dd.entropy().round(decimals=3).tolist(), "var", r(dd.variance[1]))
print("log_prob", r(dd.log_prob(torch.tensor([0.2, 0.3, 0.5]))))
print("concentration grad", D.Dirichlet(alpha.requires_grad_()).entropy().sum().grad_fn is not None)
ag = torch.tensor([2.0, 5.0, 0.5], requires_grad=True)
kl_to_uniform(ag).backward()
print("grad", r(ag.grad))
print(
    "lgamma/digamma/polygamma", r(torch.lgamma(alpha[1])), r(torch.digamma(alpha[1])), r(torch.polygamma(1, alpha[1]))
)
print(
    "special",
    r(torch.special.gammaln(alpha[1])),
    r(torch.special.psi(alpha[1])),
    r(torch.special.multigammaln(alpha[2], 3)),
)
try:
    D.Dirichlet(torch.tensor([1.0, -1.0, 2.0]))
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
try:
    F.one_hot(torch.tensor([0, 3]), 3)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.one_hot(torch.tensor([0.0, 1.0]))
except Exception as e:
    print(type(e).__name__, e)
