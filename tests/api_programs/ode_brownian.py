"""Brownian motion as torchsde's BrownianInterval handles it: increments drawn from seeded Generators whose states are
saved and restored (get_state/set_state, clone_state, fork_rng), a Brownian bridge that refines a path at midpoints
consistently, Levy-area-free SRK steps (Heun in the Stratonovich sense vs Euler-Maruyama in Ito's) on a scalar
multiplicative-noise SDE, antithetic variates, and the Ito-Stratonovich drift correction checked on many paths."""

import math

import torch

torch.manual_seed(0)
f64 = torch.float64

g = torch.Generator().manual_seed(7)
state = g.get_state()
a = torch.randn(4, generator=g, dtype=f64)
g.set_state(state)
b = torch.randn(4, generator=g, dtype=f64)
print("replay", torch.equal(a, b), state.dtype, tuple(state.shape), g.initial_seed())
g2 = g.clone_state() if hasattr(g, "clone_state") else None
print("clone_state", g2 is not None and torch.equal(torch.rand(3, generator=g2), torch.rand(3, generator=g)))

torch.manual_seed(3)
with torch.random.fork_rng():
    inner = torch.rand(2)
outer = torch.rand(2)
print("fork_rng restores", torch.equal(inner, outer))
print("global seed", torch.initial_seed(), torch.random.initial_seed())


class BrownianPath:
    """W on [0, T] with values at requested times, refined by Brownian bridges from a seed per interval."""

    def __init__(self, T, size, seed):
        self.t = [0.0, T]
        self.w = [
            torch.zeros(size, dtype=f64),
            torch.randn(size, generator=torch.Generator().manual_seed(seed), dtype=f64) * math.sqrt(T),
        ]
        self.seed = seed

    def refine(self, levels):
        for lev in range(levels):
            ts, ws = [self.t[0]], [self.w[0]]
            for i, (t0, t1) in enumerate(zip(self.t[:-1], self.t[1:])):
                gen = torch.Generator().manual_seed(self.seed * 1000 + lev * 100 + i)
                tm = 0.5 * (t0 + t1)
                mean = 0.5 * (self.w[i] + self.w[i + 1])
                std = math.sqrt((tm - t0) * (t1 - tm) / (t1 - t0))
                ts += [tm, t1]
                ws += [mean + std * torch.randn(mean.shape, generator=gen, dtype=f64), self.w[i + 1]]
            self.t, self.w = ts, ws
        return torch.tensor(self.t, dtype=f64), torch.stack(self.w, dim=-1)


bp = BrownianPath(1.0, (2000,), seed=11)
tt, W = bp.refine(6)
print("grid", tt.shape, W.shape, "endpoint kept", torch.equal(W[:, -1], bp.w[-1]))
dW = W.diff(dim=-1)
dt = tt.diff()
print("quadratic variation", round((dW**2).sum(-1).mean().item(), 2), "mean W1", round(W[:, -1].mean().item(), 2))
print(
    "var W(0.5)", round(W[:, 32].var().item(), 2), "cov(W.25,W.75)", round(torch.cov(W[:, [16, 48]].T)[0, 1].item(), 2)
)

# dX = mu X dt + s X dW: Ito EM vs Stratonovich Heun with the drift correction
mu, s = 0.2, 0.5
X_em = torch.ones(2000, dtype=f64)
X_heun = torch.ones(2000, dtype=f64)
for k in range(dW.shape[1]):
    h, dw = dt[k], dW[:, k]
    X_em = X_em + mu * X_em * h + s * X_em * dw
    drift = mu - 0.5 * s**2
    pred = X_heun + drift * X_heun * h + s * X_heun * dw
    X_heun = X_heun + 0.5 * (drift * (X_heun + pred) * h + s * (X_heun + pred) * dw)
exact = torch.exp((mu - 0.5 * s**2) + s * W[:, -1])
print(
    "EM strong",
    round((X_em - exact).abs().mean().item(), 3),
    "Heun strong",
    round((X_heun - exact).abs().mean().item(), 4),
)
print("E[X1] ~ e^mu", round(X_heun.mean().item(), 2), round(math.exp(mu), 2))

z = torch.randn(1000, generator=torch.Generator().manual_seed(5), dtype=f64)
plain = torch.exp(s * z).mean()
anti = 0.5 * (torch.exp(s * z) + torch.exp(-s * z))
print(
    "antithetic",
    round(anti.mean().item(), 3),
    round(math.exp(s * s / 2), 3),
    "var ratio < 1",
    bool(anti.var() < torch.exp(s * z).var()),
    round(plain.item(), 3),
)
for call in (
    lambda: g.set_state(torch.zeros(10, dtype=torch.uint8)),
    lambda: g.manual_seed(-1) and None,
    lambda: torch.randn(2, generator=torch.Generator(device="meta")),
):
    try:
        call()
        print("ok", g.initial_seed())
    except Exception as e:
        print(type(e).__name__, e)
