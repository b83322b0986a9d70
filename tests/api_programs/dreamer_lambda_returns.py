"""DreamerV3's critic targets: TD(lambda)-returns by a reverse loop over imagined rewards and continues,
percentile return normalisation (torch.quantile, 5th-95th, EMA with decay), and the normalised advantages."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)
T, B = 6, 3
reward = torch.randn(T, B, dtype=torch.float64)
cont = (torch.rand(T, B, dtype=torch.float64) > 0.2).double() * 0.99
value = torch.randn(T + 1, B, dtype=torch.float64)


def lambda_return(reward, value, cont, lam=0.95):
    out, last = [], value[-1]
    for t in reversed(range(reward.shape[0])):
        last = reward[t] + cont[t] * ((1 - lam) * value[t + 1] + lam * last)
        out.append(last)
    return torch.stack(out[::-1])


ret = lambda_return(reward, value, cont)
print(ret)
# the same by flipping and a python accumulation on a preallocated tensor
ret2 = torch.empty_like(reward)
nxt = value[-1].clone()
for t in range(T - 1, -1, -1):
    nxt = reward[t] + cont[t] * (0.05 * value[t + 1] + 0.95 * nxt)
    ret2[t] = nxt
print(torch.allclose(ret, ret2), torch.equal(ret, ret2), ret2.is_contiguous())
# lam = 1: discounted Monte-Carlo returns via cumprod of continues
disc = torch.cat([torch.ones(1, B, dtype=torch.float64), cont[:-1]]).cumprod(0)
mc = lambda_return(reward, value, cont, lam=1.0)
print(disc[:, 0], mc[0])
print(torch.flip(reward, [0]).cumsum(0).flip(0)[0], reward.sum(0))

# percentile normalisation with an EMA
lo = torch.quantile(ret, 0.05)
hi = torch.quantile(ret, 0.95)
print(lo, hi, lo.dtype, lo.shape)
q = torch.quantile(ret, torch.tensor([0.05, 0.5, 0.95], dtype=torch.float64))
print(q, q.shape)
print(torch.quantile(ret, 0.5, dim=0), torch.quantile(ret, 0.5, dim=1, keepdim=True).shape)
print(torch.quantile(ret, torch.tensor([0.25, 0.75], dtype=torch.float64), dim=0).shape)
for mode in ["linear", "lower", "higher", "nearest", "midpoint"]:
    print(
        mode,
        torch.quantile(torch.arange(10.0), 0.45, interpolation=mode),
        torch.quantile(torch.arange(4.0), 0.5, interpolation=mode),
    )
ema_lo, ema_hi, decay = torch.zeros(()), torch.zeros(()), 0.99
for step in range(5):
    x = (ret * (step + 1)).float()
    ema_lo = decay * ema_lo + (1 - decay) * torch.quantile(x, 0.05)
    ema_hi = decay * ema_hi + (1 - decay) * torch.quantile(x, 0.95)
scale = torch.max(torch.ones(()), ema_hi - ema_lo)
print(ema_lo, ema_hi, scale, scale.dtype)
adv = (ret - value[:-1]) / scale
print(adv.dtype, adv[0])
print(torch.clamp(ema_hi - ema_lo, min=1.0), torch.maximum(ema_hi - ema_lo, torch.tensor(1.0)))

# NaN handling and errors
xn = torch.tensor([1.0, float("nan"), 3.0, 4.0])
print(torch.quantile(xn, 0.5), torch.nanquantile(xn, 0.5), torch.nanquantile(torch.full((3,), float("nan")), 0.5))
print(torch.nanquantile(torch.tensor([[1.0, float("nan")], [float("nan"), float("nan")]]), 0.3, dim=1))
print(torch.quantile(torch.tensor([2.0]), 0.0), torch.quantile(torch.tensor(5.0), 0.7))
print(
    torch.quantile(torch.tensor([1.0, 2.0]), torch.tensor(0.5)).shape,
    torch.quantile(torch.tensor([1.0, 2.0]), torch.tensor([0.5])).shape,
)
for bad in [
    lambda: torch.quantile(ret, 1.5),
    lambda: torch.quantile(ret, torch.tensor([0.5])),
    lambda: torch.quantile(ret.long(), 0.5),
    lambda: torch.quantile(torch.empty(0), 0.5),
    lambda: torch.quantile(ret, 0.5, interpolation="cubic"),
    lambda: torch.quantile(ret, torch.tensor([[0.5]], dtype=torch.float64)),
    lambda: torch.quantile(ret, 0.5, dim=2),
    lambda: torch.quantile(ret, -0.1),
    lambda: torch.quantile(ret, 0.5, dim=(0, 1)),
    lambda: ret.quantile(0.5, dim=0, keepdim=1),
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
# gradients flow through quantile's interpolation
r = ret.clone().requires_grad_()
torch.quantile(r, 0.3).backward()
print(r.grad.nonzero().tolist(), r.grad.sum())
