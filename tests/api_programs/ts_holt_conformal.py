"""Classical forecasting inside torch: Holt-Winters exponential smoothing as an nn.Module with sigmoid-constrained
smoothing parameters fitted by LBFGS with a closure (strong-Wolfe line search), a Welford running-statistics
normaliser kept in buffers (persistent and not), EMA weights with lerp_ under inference_mode, split conformal
prediction intervals with quantile(interpolation="higher") and adaptive conformal updates, and the state_dict
errors of mismatched buffers."""

import math

import torch
import torch.nn as nn

torch.set_printoptions(precision=4, sci_mode=False)

m = 4
t = torch.arange(40, dtype=torch.float64)
y = 20 + 0.3 * t + 3 * torch.sin(2 * math.pi * t / m) + 0.5 * torch.cos(1.7 * t)


class HoltWinters(nn.Module):
    def __init__(self, season):
        super().__init__()
        self.season = season
        self.logits = nn.Parameter(torch.tensor([-1.0, -2.0, -1.5], dtype=torch.float64))

    def forward(self, y, horizon=0):
        alpha, beta, gamma = torch.sigmoid(self.logits).unbind()
        m = self.season
        level = y[:m].mean()
        trend = (y[m:2 * m].mean() - y[:m].mean()) / m
        seasonal = list((y[:m] - level).unbind())
        fitted = []
        for i in range(y.numel()):
            s = seasonal[i % m]
            fitted.append(level + trend + s)
            new_level = alpha * (y[i] - s) + (1 - alpha) * (level + trend)
            trend = beta * (new_level - level) + (1 - beta) * trend
            seasonal[i % m] = gamma * (y[i] - new_level) + (1 - gamma) * s
            level = new_level
        forecast = [level + (h + 1) * trend + seasonal[(y.numel() + h) % m] for h in range(horizon)]
        return torch.stack(fitted), torch.stack(forecast) if forecast else None


hw = HoltWinters(m)
train, test = y[:32], y[32:]
fitted, _ = hw(train)
print("initial sse", round(((fitted - train) ** 2).sum().item(), 4), "params", torch.sigmoid(hw.logits.detach()))
opt = torch.optim.LBFGS(hw.parameters(), lr=0.5, max_iter=20, line_search_fn="strong_wolfe")
calls = []


def closure():
    opt.zero_grad()
    f, _ = hw(train)
    loss = ((f[m:] - train[m:]) ** 2).mean()
    loss.backward()
    calls.append(loss.item())
    return loss


for _ in range(2):
    loss = opt.step(closure)
print("lbfgs loss", round(loss.item(), 4), "decreased", calls[-1] < calls[0], "closure calls > 1", len(calls) > 1)
print("smoothing", torch.sigmoid(hw.logits.detach()).round(decimals=3))
state = opt.state[hw.logits]
print("lbfgs state keys", sorted(k for k in state if not k.startswith("old"))[:5], state["n_iter"] > 0)
with torch.no_grad():
    fitted, forecast = hw(train, horizon=8)
print("forecast", forecast)
print("test mae", round((forecast - test).abs().mean().item(), 3))


class RunningNorm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("count", torch.zeros((), dtype=torch.long))
        self.register_buffer("mean", torch.zeros(n, dtype=torch.float64))
        self.register_buffer("m2", torch.zeros(n, dtype=torch.float64))
        self.register_buffer("scratch", torch.zeros(n), persistent=False)

    @torch.no_grad()
    def update(self, x):
        for row in x:
            self.count += 1
            delta = row - self.mean
            self.mean += delta / self.count
            self.m2 += delta * (row - self.mean)

    def forward(self, x):
        var = self.m2 / (self.count - 1).clamp(min=1)
        return (x - self.mean) / var.sqrt()


X = torch.stack([y, y.flip(0) * 0.5], 1)
rn = RunningNorm(2)
rn.update(X[:10])
rn.update(X[10:])
print("welford", rn.count.item(), rn.mean, torch.allclose(rn.m2 / (rn.count - 1), X.var(0)))
print("state_dict keys", list(rn.state_dict()), "buffers", [n for n, _ in rn.named_buffers()])
print("normalised", rn(X[:2]))
bad = {"count": torch.tensor(3), "mean": torch.zeros(3, dtype=torch.float64), "m2": torch.zeros(2)}
try:
    rn.load_state_dict(bad)
except RuntimeError as e:
    print("RuntimeError", str(e).replace("\n\t", " | "))
print("missing/unexpected", rn.load_state_dict({"count": torch.tensor(1), "extra": torch.ones(1)}, strict=False))

ema = torch.zeros(2, dtype=torch.float64)
with torch.inference_mode():
    for row in X[:5]:
        ema.lerp_(row, 0.3)
print("ema", ema, "inference tensor", ema.is_inference(), torch.is_inference_mode_enabled())

resid = (fitted[m:] - train[m:]).abs()
n = resid.numel()
level = math.ceil((n + 1) * 0.9) / n
qhat = torch.quantile(resid, level, interpolation="higher")
print("conformal n", n, "level", round(level, 4), "qhat", round(qhat.item(), 4),
      "linear", round(torch.quantile(resid, level).item(), 4))
lo, hi = forecast - qhat, forecast + qhat
print("interval coverage", ((test >= lo) & (test <= hi)).float().mean().item(), "width", round(2 * qhat.item(), 4))
alpha_t, gamma_aci, alphas = 0.1, 0.05, []
scores = torch.cat([resid, (forecast - test).abs()])
for i in range(n, scores.numel()):
    q = torch.quantile(scores[:i], min(max(1 - alpha_t, 0.0), 1.0), interpolation="higher")
    err = float(scores[i] > q)
    alpha_t = alpha_t + gamma_aci * (0.1 - err)
    alphas.append(round(alpha_t, 4))
print("aci alphas", alphas)
