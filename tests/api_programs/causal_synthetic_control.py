"""Synthetic control: donor weights on the simplex by a softmax parametrization (nn.utils.parametrize) and by
projected gradient descent with a sort-based simplex projection, placebo tests and pre/post RMSPE ratios."""

import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P

torch.manual_seed(5)
torch.set_printoptions(precision=4, sci_mode=False)
T0, T1, J = 20, 8, 6
donors = torch.cumsum(torch.randn(T0 + T1, J, dtype=torch.float64) * 0.3, 0) + torch.arange(J, dtype=torch.float64)
true_w = torch.tensor([0.5, 0.3, 0.2, 0.0, 0.0, 0.0], dtype=torch.float64)
treated = donors @ true_w + 0.05 * torch.randn(T0 + T1, dtype=torch.float64)
treated[T0:] += 1.0
pre, post = slice(0, T0), slice(T0, None)


class Softmax0(nn.Module):
    def forward(self, z):
        return torch.softmax(z, dim=0)

    def right_inverse(self, w):
        return w.clamp_min(1e-12).log()


class SC(nn.Module):
    def __init__(self, J):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(J, dtype=torch.float64))

    def forward(self, Y):
        return Y @ self.w


sc = SC(J)
P.register_parametrization(sc, "w", Softmax0())
print(sc)
print("init", sc.w, list(dict(sc.named_parameters()).keys()))
opt = torch.optim.Adam(sc.parameters(), lr=0.1)
for it in range(300):
    opt.zero_grad()
    loss = (sc(donors[pre]) - treated[pre]).pow(2).mean()
    loss.backward()
    opt.step()
print("softmax w", sc.w.detach().round(decimals=2), round(sc.w.sum().item(), 6), round(loss.item(), 5))
with P.cached():
    gap = treated - sc(donors)
print("effect", gap[post].mean().round(decimals=3), gap[pre].abs().max() < 0.5)
sc.w = torch.full((J,), 1.0 / J, dtype=torch.float64)
print("right_inverse", sc.parametrizations.w.original.round(decimals=4)[:3], sc.w.sum().item())
sd = sc.state_dict()
print("state", list(sd.keys()), sd["parametrizations.w.original"].shape)
P.remove_parametrizations(sc, "w", leave_parametrized=True)
print("removed", type(sc.w).__name__, P.is_parametrized(sc))


def proj_simplex(v):
    u, _ = torch.sort(v, descending=True)
    css = torch.cumsum(u, 0) - 1
    k = torch.arange(1, v.numel() + 1, dtype=v.dtype)
    rho = torch.nonzero(u - css / k > 0)[-1, 0]
    theta = css[rho] / (rho + 1)
    return torch.clamp(v - theta, min=0)


print("proj", proj_simplex(torch.tensor([0.5, 1.2, -0.3, 0.4], dtype=torch.float64)))
print("proj sums", proj_simplex(torch.randn(5, dtype=torch.float64) * 3).sum().item())
w = torch.full((J,), 1.0 / J, dtype=torch.float64, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.01, momentum=0.5)
for it in range(400):
    opt.zero_grad()
    l = (donors[pre] @ w - treated[pre]).pow(2).mean()
    l.backward()
    opt.step()
    with torch.no_grad():
        w.copy_(proj_simplex(w))
print("pgd w", w.detach().round(decimals=2), w._version > 400, w.grad_fn, w.is_leaf)
print("zeros", (w == 0).sum().item(), round(l.item(), 5))


def fit(Y0, y1, steps=300):
    z = torch.zeros(Y0.shape[1], dtype=Y0.dtype, requires_grad=True)
    o = torch.optim.LBFGS([z], lr=1, max_iter=steps, line_search_fn="strong_wolfe")

    def closure():
        o.zero_grad()
        l = (Y0[pre] @ torch.softmax(z, 0) - y1[pre]).pow(2).mean()
        l.backward()
        return l

    o.step(closure)
    return torch.softmax(z, 0).detach()


w_l = fit(donors, treated)
print("lbfgs w", w_l.round(decimals=2))


def rmspe_ratio(y, Y0, w):
    g = y - Y0 @ w
    return (g[post].pow(2).mean().sqrt() / g[pre].pow(2).mean().sqrt()).item()


ratios = [rmspe_ratio(treated, donors, w_l)]
for j in range(J):
    others = torch.cat([donors[:, :j], donors[:, j + 1 :]], 1)
    ratios.append(rmspe_ratio(donors[:, j], others, fit(others, donors[:, j], 100)))
r = torch.tensor(ratios)
print("placebo rank", (r >= r[0]).sum().item(), "p", round((r >= r[0]).float().mean().item(), 4))
print("ratios>1", (r > 1).tolist())
print("entropy", round(torch.special.entr(w_l).sum().item(), 3), torch.special.entr(torch.tensor([0.0, 1.0])))
