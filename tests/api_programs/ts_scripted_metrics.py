"""Forecast metrics and window helpers written for TorchScript deployment, as production forecasting code does:
@torch.jit.script functions with typed signatures (List[float] quantiles, Optional masks, Tuple returns), their
schemas, calls with keywords and with Python numbers where floats are expected, the RuntimeErrors a mistyped call
raises, and a scripted module calling them, compared against eager results."""

# ruff: noqa: UP006, UP035, UP045  (TorchScript-era typing annotations, kept as deployment code writes them)
from typing import List, Optional, Tuple

import torch
import torch.nn as nn

torch.set_printoptions(precision=4, sci_mode=False)


@torch.jit.script
def smape(pred: torch.Tensor, target: torch.Tensor, mask: Optional[torch.Tensor] = None,
          eps: float = 1e-8) -> torch.Tensor:
    den = pred.abs() + target.abs()
    err = torch.where(den > eps, 2.0 * (pred - target).abs() / den.clamp_min(eps), torch.zeros_like(den))
    if mask is not None:
        return 100.0 * (err * mask).sum() / mask.sum()
    return 100.0 * err.mean()


@torch.jit.script
def pinball(pred: torch.Tensor, target: torch.Tensor, quantiles: List[float]) -> Tuple[torch.Tensor, torch.Tensor]:
    q = torch.tensor(quantiles, dtype=pred.dtype)
    e = target.unsqueeze(-1) - pred
    per_q = torch.maximum(q * e, (q - 1.0) * e).mean(dim=0)
    return per_q.mean(), per_q


@torch.jit.script
def make_windows(x: torch.Tensor, size: int, step: int = 1) -> List[torch.Tensor]:
    out: List[torch.Tensor] = []
    for i in range(0, x.size(0) - size + 1, step):
        out.append(x[i:i + size])
    return out


t = torch.arange(12, dtype=torch.float32)
y = 5 + torch.sin(t)
yhat = y + 0.3 * torch.cos(2 * t)
mask = (t % 4 != 0).float()
print("types", type(smape).__name__, isinstance(pinball, torch.jit.ScriptFunction), smape.name, smape.qualified_name)
print("schema", smape.schema)
print("schema", pinball.schema)
print("schema", make_windows.schema)
print("smape", round(smape(yhat, y).item(), 4), "masked", round(smape(yhat, y, mask).item(), 4),
      "kw", round(smape(target=y, pred=yhat, eps=1).item(), 4))
qpred = yhat.unsqueeze(-1) + torch.tensor([-0.5, 0.0, 0.5])
total, per_q = pinball(qpred, y, [0.1, 0.5, 0.9])
print("pinball", round(total.item(), 4), per_q)
print("pinball tuple quantiles", torch.allclose(pinball(qpred, y, (0.1, 0.5, 0.9))[0], total))
w = make_windows(y, 4, step=3)
print("windows", len(w), torch.stack(w).shape, torch.equal(torch.stack(w), y.unfold(0, 4, 3)))

for bad in (lambda: smape(yhat.tolist(), y), lambda: make_windows(y, 2.5), lambda: pinball(qpred, y, "0.5"),
            lambda: smape(yhat), lambda: smape(yhat, y, mask, 1e-8, 3), lambda: make_windows(y, 2, stride=1)):
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError", str(e).splitlines()[0])
        if "Declaration" in str(e) and "\n" in str(e):
            print("  ", str(e).splitlines()[-2])


class Evaluator(nn.Module):
    def __init__(self, quantiles: List[float]):
        super().__init__()
        self.quantiles = quantiles

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        total, _ = pinball(pred, target, self.quantiles)
        return total + smape(pred[:, 1], target) / 100.0


ev = Evaluator([0.1, 0.5, 0.9])
scripted = torch.jit.script(ev)
print("scripted module", type(scripted).__name__, round(scripted(qpred, y).item(), 4),
      torch.allclose(scripted(qpred, y), ev(qpred, y)))
