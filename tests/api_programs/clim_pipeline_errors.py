"""The mistakes weather ML pipelines make and PyTorch's answers: float window sizes from hour arithmetic, float
indices and upscale factors, 1-element tensor grid ends, NaN fields, shape/dtype mismatches and device/grad misuse."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def attempt(label, fn):
    try:
        out = fn()
        print(label, "ok", tuple(out.shape) if isinstance(out, torch.Tensor) else out)
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        print(label, type(e).__name__, str(e).splitlines()[0])


torch.manual_seed(0)
x = torch.randn(10, 3, 4, 6)
hours, dt = 24, 6
attempt("unfold hours/dt", lambda: x.unfold(0, hours / dt, 1))
attempt("unfold hours//dt", lambda: x.unfold(0, hours // dt, 1))
attempt("unfold float step", lambda: x.unfold(0, 2, np.float64(1.0)))
attempt("unfold float dim", lambda: x.unfold(0.0, 2, 1))
attempt("unfold bool", lambda: x.unfold(0, True, 1))
attempt("unfold np int", lambda: x.unfold(np.int64(0), np.int64(4), 2).shape)
attempt("unfold tensor ints", lambda: tuple(type(n).__name__ for n in x.unfold(0, torch.tensor(4), 2).shape))
attempt("select lead/2", lambda: x.select(0, 5 / 2))
attempt("torch.select", lambda: torch.select(x, 0, 2.0))
attempt("select ok", lambda: x.select(0, int(5 / 2)))
attempt("kthvalue median", lambda: x.kthvalue(x.shape[-1] / 2, dim=-1))
attempt("kthvalue kw", lambda: torch.kthvalue(x, k=2.0))
attempt("multinomial members", lambda: torch.multinomial(torch.ones(10), 10 * 0.5))
attempt("multinomial method", lambda: torch.ones(10).multinomial(5.0, replacement=True))
attempt("multinomial ok", lambda: torch.ones(10).multinomial(5, generator=torch.Generator().manual_seed(0)).tolist())
attempt("transpose float", lambda: x.transpose(0.0, 1))
attempt("unsqueeze float", lambda: x.unsqueeze(1.0))
attempt("cumsum float", lambda: x.cumsum(1.0))
attempt("softmax float", lambda: F.softmax(x, 1.0))
attempt("log_softmax bool", lambda: F.log_softmax(x, True))
attempt("torch.softmax float", lambda: torch.softmax(x, 1.0))
attempt("sum float dim", lambda: x.sum(1.0))
attempt("roll float", lambda: torch.roll(x, 1.0, -1))
attempt("roll half lon", lambda: torch.roll(x, x.shape[-1] // 2, -1))
attempt("pixel_shuffle float", lambda: F.pixel_shuffle(torch.randn(1, 4, 2, 2), 4 / 2))
attempt("pixel_unshuffle bool", lambda: F.pixel_unshuffle(torch.randn(1, 1, 2, 2), True))
attempt("PixelShuffle float", lambda: nn.PixelShuffle(2.0)(torch.randn(1, 4, 2, 2)))
attempt("linspace 1-elem start", lambda: torch.linspace(torch.tensor([-90.0]), 90.0, 7))
attempt("linspace both", lambda: torch.linspace(torch.zeros(1, 1), torch.ones(1), 7))
attempt("logspace 1-elem end", lambda: torch.logspace(0.0, torch.tensor([3.0]), 4))
attempt("linspace 0-d", lambda: torch.linspace(torch.tensor(-90.0), torch.tensor(90.0), 7).tolist())
attempt("linspace float steps", lambda: torch.linspace(-90, 90, 180 / 30))
attempt("arange lon", lambda: torch.arange(0, 360, 360 / 7).shape)
attempt("zeros float", lambda: torch.zeros(hours / dt, 3))

nan_field = x.clone()
nan_field[0, 0, 0, 0] = float("nan")
attempt("nan mean", lambda: nan_field.mean().isnan().item())
attempt("nanmean", lambda: round(nan_field.nanmean().item(), 4))
attempt("nan loss", lambda: F.mse_loss(nan_field, x).isnan().item())
attempt("nan max", lambda: nan_field.max().isnan().item())
attempt("nan_to_num", lambda: nan_field.nan_to_num(nan=0.0).isnan().any().item())
attempt("anomaly", lambda: torch.isfinite(nan_field).all().item())
conv = nn.Conv2d(3, 4, 3, padding=1, padding_mode="circular")
attempt("channels mismatch", lambda: conv(x[:, :2]))
attempt("double input", lambda: conv(x.double()))
attempt("no batch", lambda: conv(x[0]).shape)
attempt("5d input", lambda: conv(x.unsqueeze(0)))
attempt("mse shapes", lambda: F.mse_loss(x, x[:1]).shape)
attempt("int target", lambda: F.mse_loss(x, x.long()))
w = torch.ones(4)
attempt("weights lat mismatch", lambda: (x * w.view(1, 1, -1, 1)).shape)
attempt("weights lon mismatch", lambda: (x * w.view(1, 1, 1, -1)).shape)
leaf = torch.zeros(3, requires_grad=True)
attempt("inplace leaf", lambda: leaf.add_(1))
attempt("numpy of grad", lambda: leaf.numpy())
attempt("item of many", lambda: x.mean(0).item())
attempt("view after permute", lambda: x.permute(0, 2, 3, 1).view(-1, 3))
attempt("index past end", lambda: x[10])
