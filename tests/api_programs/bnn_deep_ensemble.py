"""Deep ensembles for heteroscedastic regression: vmapped members, Gaussian NLL, mixture predictive."""

import copy

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions
from torch.func import stack_module_state, functional_call, vmap  # noqa: E402


def r(t):
    return t.detach().round(decimals=4).tolist()


class MeanVar(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, 32), nn.SiLU(), nn.Linear(32, 32), nn.SiLU())
        self.head = nn.Linear(32, 2)

    def forward(self, x):
        mu, raw = self.head(self.body(x)).unbind(-1)
        return mu, F.softplus(raw) + 1e-4


torch.manual_seed(0)
x = torch.rand(256, 1) * 6 - 3
noise = 0.05 + 0.2 * (x.squeeze(-1) > 0).float()
y = x.squeeze(-1) ** 3 / 10 + noise * torch.randn(256)
members = [MeanVar() for _ in range(4)]
params, buffers = stack_module_state(members)
print({k: tuple(v.shape) for k, v in params.items()})
print("leaf", all(v.is_leaf and v.requires_grad for v in params.values()))
template = copy.deepcopy(members[0]).to("meta")


def call(p, b, xb):
    return functional_call(template, (p, b), (xb,))


opt = torch.optim.Adam(list(params.values()), lr=1e-2)
crit = nn.GaussianNLLLoss(reduction="mean")
for step in range(300):
    idx = torch.randint(0, 256, (4, 64))
    xb = x[idx]
    mu, var = vmap(call)(params, buffers, xb)
    loss = crit(mu, y[idx], var)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 100 == 0:
        print(step, "mu", tuple(mu.shape), "loss finite", bool(torch.isfinite(loss)))

xt = torch.tensor([[-2.0], [-1.0], [1.0], [2.0], [5.0]])
with torch.no_grad():
    mu, var = vmap(call, in_dims=(0, 0, None))(params, buffers, xt)
print("member preds", mu.shape, var.shape)
mix = D.MixtureSameFamily(D.Categorical(logits=torch.zeros(xt.shape[0], 4)), D.Normal(mu.T, var.T.sqrt()))
print("mixture", mix.batch_shape, mix.event_shape, type(mix.component_distribution).__name__)
print("mixture mean close to ensemble mean", torch.allclose(mix.mean, mu.mean(0), atol=1e-5))
total_var = var.mean(0) + mu.var(0, unbiased=False)
print("law of total variance", torch.allclose(mix.variance, total_var, atol=1e-5))
aleatoric, epistemic = var.mean(0), mu.var(0, unbiased=False)
print("noise larger for x>0", bool(aleatoric[3] > aleatoric[0]))
print("epistemic largest out of range", int(epistemic.argmax()))
print("mean at -2,2", r(mix.mean[[0, 3]].round(decimals=1)))
yt = torch.tensor([-0.8, -0.1, 0.1, 0.8, 12.5])
lp = mix.log_prob(yt)
print("lp shape", lp.shape, "ood lowest", int(lp.argmin()))
print("cdf monotone", bool((mix.cdf(yt + 0.1) >= mix.cdf(yt)).all()))
torch.manual_seed(1)
s = mix.sample((4000,))
print("sample mean close", torch.allclose(s.mean(0), mix.mean, atol=0.3), s.shape)

# the same loss written three ways agree
m1, v1 = mu[0], var[0]
l_mod = F.gaussian_nll_loss(m1, yt, v1, full=True, reduction="none")
l_dist = -D.Normal(m1, v1.sqrt()).log_prob(yt)
print("gaussian nll == -log_prob", torch.allclose(l_mod, l_dist, atol=1e-4))
gsum = F.gaussian_nll_loss(m1, yt, v1, reduction="sum")
print("sum/mean", abs(gsum.item() / 5 - F.gaussian_nll_loss(m1, yt, v1).item()) < 1e-5, gsum.shape)
print(
    "nll fixed",
    round(F.gaussian_nll_loss(torch.tensor([0.0, 1.0]), torch.tensor([0.5, 0.0]), torch.tensor([0.25, 2.0])).item(), 4),
)
print("eps clamps", r(F.gaussian_nll_loss(torch.zeros(2), torch.zeros(2), torch.zeros(2), eps=1e-2, reduction="none")))
try:
    crit(mu, yt, -var)
except Exception as e:
    print(type(e).__name__, e)
try:
    D.MixtureSameFamily(D.Categorical(logits=torch.zeros(3)), D.Normal(torch.zeros(4), 1.0))
except Exception as e:
    print(type(e).__name__, e)
try:
    D.MixtureSameFamily(torch.zeros(3), D.Normal(torch.zeros(3), 1.0))
except Exception as e:
    print(type(e).__name__, e)
