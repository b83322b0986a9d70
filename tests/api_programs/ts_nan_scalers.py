"""Missing values in time-series pipelines: nan-aware statistics (nanmean, nansum, nanmedian, nanquantile, masked
std), StandardScaler/MinMax/robust scalers fitted per channel ignoring NaN, forward fill by cummax over observed
indices, linear interpolation of gaps, nan_to_num with posinf/neginf, masked losses, RevIN normalisation with
affine parameters and its exact inverse, and the NaN propagation of ordinary reductions."""

import torch
from torch import nn

torch.set_printoptions(precision=4, sci_mode=False)
nan = float("nan")

x = torch.tensor([[1.0, nan, 3.0, 4.0, nan, 6.0, 7.0, nan],
                  [nan, nan, 2.0, 2.5, 3.0, nan, 4.0, 5.0],
                  [10.0, 11.0, 12.0, nan, 14.0, 15.0, nan, nan]])
mask = ~torch.isnan(x)
print("observed", mask.sum(dim=1), mask.float().mean().item())
print("mean", x.mean(dim=1), "nanmean", x.nanmean(dim=1))
print("nansum", torch.nansum(x, dim=1), torch.nansum(x), x.nansum(dim=0, keepdim=True).shape)
print("nanmedian", x.nanmedian(), torch.nanmedian(x, dim=1))
print("nanquantile", torch.nanquantile(x, torch.tensor([0.25, 0.75]), dim=1))
print("nanquantile interp", torch.nanquantile(x[0], 0.4, interpolation="lower"),
      torch.nanquantile(x[0], 0.4, interpolation="higher"), torch.nanquantile(x[0], 0.4, interpolation="nearest"),
      torch.nanquantile(x[0], 0.4, interpolation="midpoint"))
print("quantile with nan", torch.quantile(x[0], 0.5))
print("max with nan", x.max(dim=1).values, x.amax(dim=1), torch.fmax(x[0], x[1]))
all_nan = torch.full((2, 3), nan)
print("all-nan rows", all_nan.nanmean(dim=1), all_nan.nansum(dim=1), torch.nanmedian(all_nan, dim=1).values)


def masked_std(v, m, dim, correction=1):
    cnt = m.sum(dim=dim, keepdim=True)
    mu = torch.where(m, v, 0.0).sum(dim=dim, keepdim=True) / cnt
    var = torch.where(m, (v - mu) ** 2, 0.0).sum(dim=dim, keepdim=True) / (cnt - correction).clamp(min=1)
    return mu, var.sqrt()


class NanStandardScaler:
    def fit(self, v):
        self.mean_, self.std_ = masked_std(v, ~torch.isnan(v), dim=0)
        return self

    def transform(self, v):
        return (v - self.mean_) / self.std_

    def inverse_transform(self, v):
        return v * self.std_ + self.mean_


xt = x.T.contiguous()
sc = NanStandardScaler().fit(xt)
print("scaler", sc.mean_, sc.std_)
z = sc.transform(xt)
print("z nan preserved", torch.equal(torch.isnan(z), torch.isnan(xt)), "nanmean", z.nanmean(dim=0))
print("roundtrip", torch.allclose(sc.inverse_transform(z), xt, equal_nan=True))
filled = torch.nan_to_num(xt, nan=0.0)
ref_std = torch.tensor([torch.std(col[~torch.isnan(col)]) for col in xt.T])
print("std agrees", torch.allclose(sc.std_.squeeze(0), ref_std))
mn = torch.where(mask, x, torch.inf).amin(dim=1, keepdim=True)
mx = torch.where(mask, x, -torch.inf).amax(dim=1, keepdim=True)
print("minmax", ((x - mn) / (mx - mn))[0])
med = x.nanmedian(dim=1, keepdim=True).values
iqr = torch.nanquantile(x, 0.75, dim=1, keepdim=True) - torch.nanquantile(x, 0.25, dim=1, keepdim=True)
print("robust", ((x - med) / iqr)[2])

# forward fill: index of the last observation via cummax
idx = torch.where(mask, torch.arange(x.shape[1]).expand_as(x), 0)
last_obs = idx.cummax(dim=1).values
ffill = x.gather(1, last_obs)
print("ffill", ffill)
bfill = x.flip(1).gather(1, torch.where(mask.flip(1), torch.arange(8).expand_as(x), 0).cummax(1).values).flip(1)
print("bfill", bfill)


def interp_gaps(row):
    t = torch.arange(row.numel(), dtype=row.dtype)
    ok = ~torch.isnan(row)
    tk, vk = t[ok], row[ok]
    pos = torch.searchsorted(tk, t, right=True).clamp(1, tk.numel() - 1)
    t0, t1 = tk[pos - 1], tk[pos]
    w = ((t - t0) / (t1 - t0)).clamp(0, 1)
    return torch.lerp(vk[pos - 1], vk[pos], w)


print("interp", torch.stack([interp_gaps(r) for r in x]))

inf_vals = torch.tensor([1.0, float("inf"), -float("inf"), nan, -2.5])
print("nan_to_num", torch.nan_to_num(inf_vals), torch.nan_to_num(inf_vals, nan=-1.0, posinf=99.0, neginf=-99.0))
print("nan_to_num half", torch.nan_to_num(inf_vals.half()), inf_vals.nan_to_num_(0.0, 1e3, -1e3))
leaf = torch.tensor([1.0, 0.0, -1.0], requires_grad=True)
cleaned = torch.nan_to_num(leaf / torch.tensor([2.0, 0.0, 0.0]), posinf=5.0, neginf=-5.0)
cleaned.sum().backward()
print("nan_to_num grad", cleaned.grad_fn.name(), leaf.grad)
print("isfinite", torch.isfinite(inf_vals), torch.isinf(inf_vals), torch.isposinf(inf_vals), torch.isneginf(inf_vals))

pred = torch.linspace(0, 7, 8).expand(3, 8)
err = (pred - torch.nan_to_num(x)) ** 2
masked_mse = (err * mask).sum() / mask.sum()
print("masked mse", round(masked_mse.item(), 4), round(nn.functional.mse_loss(pred[mask], x[mask]).item(), 4))
print("nan mse", nn.functional.mse_loss(pred, x).item())


class RevIN(nn.Module):
    def __init__(self, num_features, eps=1e-5, affine=True):
        super().__init__()
        self.eps = eps
        self.affine_weight = nn.Parameter(torch.linspace(0.5, 1.5, num_features))
        self.affine_bias = nn.Parameter(torch.linspace(-0.1, 0.1, num_features))

    def forward(self, x, mode):
        if mode == "norm":
            self.mean = torch.mean(x, dim=1, keepdim=True).detach()
            self.stdev = torch.sqrt(torch.var(x, dim=1, keepdim=True, unbiased=False) + self.eps).detach()
            x = (x - self.mean) / self.stdev
            return x * self.affine_weight + self.affine_bias
        x = (x - self.affine_bias) / (self.affine_weight + self.eps * self.eps)
        return x * self.stdev + self.mean


rev = RevIN(3)
series = ffill.nan_to_num(0.0).T.unsqueeze(0).repeat(2, 1, 1) * torch.tensor([1.0, 2.0]).view(2, 1, 1)
normed = rev(series, "norm")
print("revin", tuple(normed.shape), rev.mean.squeeze(), rev.stdev.requires_grad)
print("revin inverse", torch.allclose(rev(normed, "denorm"), series, atol=1e-4))
loss = normed.pow(2).mean()
loss.backward()
print("revin grads", rev.affine_weight.grad, rev.affine_bias.grad)
print("std_mean", torch.std_mean(ffill.nan_to_num(), dim=1, correction=0))
print("var_mean", torch.var_mean(x, dim=1))
