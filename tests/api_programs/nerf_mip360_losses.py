"""mip-NeRF 360's pieces: the scene contraction for unbounded scenes (with its Jacobian by torch.func.jacrev), the
normalized s-space between near and far through the disparity curve, proposal-network resampling from step
functions, the interlevel loss from outer measures (searchsorted on the coarse ends), and the distortion loss in its
O(n) cumsum form against the O(n^2) definition."""

import torch
F = torch.nn.functional

torch.manual_seed(0)


def r(t, n=6):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


def contract(x):
    mag = torch.linalg.vector_norm(x, dim=-1, keepdim=True).clamp_min(1e-10)
    return torch.where(mag <= 1, x, (2 - 1 / mag) * (x / mag))


x = torch.tensor([[0.3, 0.4, 0.0], [3.0, 4.0, 0.0], [100.0, 0.0, 0.0], [0.0, -0.6, 0.8]])
print("contract", r(contract(x), 12), r(contract(x).norm(dim=-1)))
J = torch.func.vmap(torch.func.jacrev(contract))(x)
print("jac", tuple(J.shape), r(J[1], 9), r(torch.linalg.det(J), 4))

near, far = torch.tensor([[0.2]]), torch.tensor([[1000.0]])
t_to_s = lambda t: (1 / t - 1 / near) / (1 / far - 1 / near)
s_to_t = lambda s: 1 / (s / far + (1 - s) / near)
s = torch.linspace(0, 1, 9)[None]
t = s_to_t(s)
print("s_space", r(t, 9), r(t_to_s(t), 9))


def lossfun_outer(t, w, t_env, w_env, eps=torch.finfo(torch.float32).eps):
    cw_env = torch.cat([torch.zeros_like(w_env[..., :1]), torch.cumsum(w_env, -1)], -1)
    idx_lo = torch.searchsorted(t_env.contiguous(), t[..., :-1].contiguous(), right=True) - 1
    idx_hi = torch.searchsorted(t_env.contiguous(), t[..., 1:].contiguous(), right=True)
    idx_lo = idx_lo.clamp(0, cw_env.shape[-1] - 1)
    idx_hi = idx_hi.clamp(0, cw_env.shape[-1] - 1)
    w_outer = torch.gather(cw_env, -1, idx_hi) - torch.gather(cw_env, -1, idx_lo)
    return torch.clip(w - w_outer, min=0) ** 2 / (w + eps)


def sorted_interp_quad(x, xp, fpdf, fcdf):
    i = torch.searchsorted(xp, x, side="right").clamp(1, xp.shape[-1] - 1)
    x0, x1 = xp.gather(-1, i - 1), xp.gather(-1, i)
    f0, f1 = fpdf.gather(-1, i - 1), fpdf.gather(-1, i)
    c0 = fcdf.gather(-1, i - 1)
    dx = x - x0
    return c0 + dx * (f0 + 0.5 * dx * (f1 - f0) / (x1 - x0).clamp_min(1e-10))


def distortion(t, w):
    mids = 0.5 * (t[..., 1:] + t[..., :-1])
    loss_uni = (1 / 3) * (w**2 * torch.diff(t)).sum(-1)
    wm = w * mids
    w_cum, wm_cum = torch.cumsum(w, -1), torch.cumsum(wm, -1)
    loss_bi = 2 * (wm[..., 1:] * w_cum[..., :-1] - w[..., 1:] * wm_cum[..., :-1]).sum(-1)
    return loss_uni + loss_bi


def distortion_quadratic(t, w):
    m = 0.5 * (t[..., 1:] + t[..., :-1])
    pair = (w[..., :, None] * w[..., None, :] * (m[..., :, None] - m[..., None, :]).abs()).sum((-1, -2))
    return pair + (1 / 3) * (w**2 * torch.diff(t)).sum(-1)


t_fine = torch.sort(torch.rand(2, 17), -1).values
w_fine = torch.softmax(torch.randn(2, 16) * 2, -1).requires_grad_(True)
t_coarse = torch.linspace(0, 1, 9).expand(2, 9)
w_coarse = torch.softmax(torch.randn(2, 8), -1).requires_grad_(True)
outer = lossfun_outer(t_fine, w_fine.detach(), t_coarse, w_coarse)
print("interlevel", tuple(outer.shape), r(outer.sum(-1), 2), r(outer[0]))
outer.sum().backward()
print("interlevel_grad", r(w_coarse.grad[0], 8), w_fine.grad is None)
dl = distortion(t_fine, w_fine)
dq = distortion_quadratic(t_fine, w_fine)
print("distortion", r(dl, 2), r(dq, 2), torch.allclose(dl, dq, atol=1e-6))
dl.sum().backward()
print("distortion_grad", r(w_fine.grad[1], 8))

pdf = w_coarse.detach() / torch.diff(t_coarse)
cdf = torch.cat([torch.zeros(2, 1), torch.cumsum(w_coarse.detach(), -1)], -1)
u = torch.linspace(0, 1, 6).expand(2, 6)
print("interp_quad", r(sorted_interp_quad(u, t_coarse, torch.cat([pdf, pdf[:, -1:]], -1), cdf), 6))
prop_t = torch.cat([t_coarse, torch.rand(2, 4)], -1).sort(-1).values
print("resample", r(prop_t[0], 13), torch.diff(prop_t).min().item() >= 0)

w_all = torch.softmax(torch.randn(3, 8), -1)
print("entropy", r(-(w_all * torch.log(w_all + 1e-10)).sum(-1)), r(torch.special.entr(w_all).sum(-1)))
print("xlogy", r(torch.xlogy(w_all, w_all).sum(-1)), r(torch.special.xlogy(torch.tensor([0.0, 2.0]), 0.0)))
try:
    torch.searchsorted(t_coarse.T, t_fine)
except Exception as e:
    print(type(e).__name__, e)
