"""mip-NeRF integrated positional encoding: conical-frustum Gaussians (mean/variance along rays), the expected
sin/cos under a Gaussian with exp(-0.5 var), the erf-based lift of a box filter, random Fourier features, the
interleaved against stacked sin/cos layouts, and gradients of the encodings."""

import math

import torch

torch.manual_seed(0)


def r(t, n=6):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


def pos_enc(x, min_deg, max_deg, append_identity=True):
    scales = torch.tensor([2**i for i in range(min_deg, max_deg)], dtype=x.dtype)
    xb = torch.reshape(x[..., None, :] * scales[:, None], list(x.shape[:-1]) + [-1])
    four_feat = torch.sin(torch.cat([xb, xb + 0.5 * torch.pi], dim=-1))
    return torch.cat([x] + [four_feat], dim=-1) if append_identity else four_feat


def expected_sin(x, x_var):
    y = torch.exp(-0.5 * x_var) * torch.sin(x)
    y_var = torch.clamp(0.5 * (1 - torch.exp(-2 * x_var) * torch.cos(2 * x)) - y**2, min=0)
    return y, y_var


def integrated_pos_enc(means, covs_diag, min_deg, max_deg):
    scales = 2.0 ** torch.arange(min_deg, max_deg, dtype=means.dtype)
    shape = list(means.shape[:-1]) + [-1]
    y = (means[..., None, :] * scales[:, None]).reshape(shape)
    y_var = (covs_diag[..., None, :] * scales[:, None] ** 2).reshape(shape)
    return expected_sin(torch.cat([y, y + 0.5 * math.pi], -1), torch.cat([y_var] * 2, -1))[0]


def conical_frustum_to_gaussian(d, t0, t1, base_radius):
    mu, hw = (t0 + t1) / 2, (t1 - t0) / 2
    t_mean = mu + (2 * mu * hw**2) / (3 * mu**2 + hw**2)
    t_var = (hw**2) / 3 - (4 / 15) * ((hw**4 * (12 * mu**2 - hw**2)) / (3 * mu**2 + hw**2) ** 2)
    r_var = base_radius**2 * ((mu**2) / 4 + (5 / 12) * hw**2 - 4 / 15 * (hw**4) / (3 * mu**2 + hw**2))
    mean = d[..., None, :] * t_mean[..., None]
    d_mag_sq = torch.clamp_min(torch.sum(d**2, dim=-1, keepdim=True), 1e-10)
    d_outer_diag = d**2
    null_outer_diag = 1 - d_outer_diag / d_mag_sq
    t_cov_diag = t_var[..., None] * d_outer_diag[..., None, :]
    xy_cov_diag = r_var[..., None] * null_outer_diag[..., None, :]
    return mean, t_cov_diag + xy_cov_diag


x = torch.tensor([[0.1, -0.3, 0.7], [1.2, 0.0, -0.5]])
pe = pos_enc(x, 0, 4)
print("pos_enc", tuple(pe.shape), r(pe[0, 3:]), r(pe[1, -4:]))
print("sin_pi_half_is_cos", torch.allclose(pe[..., 3 + 12:], torch.cos(x.repeat_interleave(1, 0)[..., None, :]
                                                                          * torch.tensor([1., 2, 4, 8])[:, None]
                                                                          ).reshape(2, -1), atol=1e-5))

d = torch.tensor([[0.0, 0.0, -1.0], [0.3, -0.2, -0.9]])
t = torch.linspace(2.0, 6.0, 5).expand(2, 5)
base_radius = 2 / 800 * 2 / math.sqrt(12)
means, covs = conical_frustum_to_gaussian(d, t[..., :-1], t[..., 1:], base_radius)
print("frustum", tuple(means.shape), tuple(covs.shape), r(means[1, 0]), [f"{v:.4e}" for v in covs[1, 0].tolist()])
ipe = integrated_pos_enc(means, covs, 0, 16)
print("ipe", tuple(ipe.shape), r(ipe[0, 0], 4), r(ipe[1, 3, -8:], 8))
print("high_freq_damped", (ipe[..., 40:48].abs().max() < 1e-3).item(), round(ipe[..., :3].abs().max().item(), 4))

y, y_var = expected_sin(torch.tensor([0.0, 1.0, 2.0]), torch.tensor([0.0, 0.5, 8.0]))
print("expected_sin", r(y), r(y_var))

# Box-filtered (erf) encoding: E[sin(w x)] for x ~ U[a, b] vs the Gaussian with matched variance.
a, b = torch.tensor([0.2, 0.5]), torch.tensor([0.4, 1.5])
w = torch.tensor([1.0, 4.0])
box = (torch.cos(w * a) - torch.cos(w * b)) / (w * (b - a))
gauss = expected_sin(w * (a + b) / 2, w**2 * (b - a) ** 2 / 12)[0]
print("box_vs_gauss", r(box), r(gauss))
z = torch.linspace(-2, 2, 5)
print("erf", r(torch.erf(z)), r(torch.special.erf(z)), r(torch.erfc(z)),
      r(torch.erfinv(torch.tensor([-0.5, 0.0, 0.9]))))
cdf = 0.5 * (1 + torch.erf(z / math.sqrt(2)))
print("normal_cdf", r(cdf), r(torch.special.ndtr(z)), r(torch.special.log_ndtr(z)))

# Random Fourier features (Tancik et al.) with a seeded Gaussian matrix.
B = torch.randn(3, 8) * 10.0
proj = 2 * torch.pi * x @ B
rff = torch.cat([torch.sin(proj), torch.cos(proj)], dim=-1)
print("rff", tuple(rff.shape), round((rff**2).sum().item(), 3), torch.pi, type(torch.pi).__name__)
inter = torch.stack([torch.sin(proj), torch.cos(proj)], dim=-1).flatten(-2)
print("interleaved", torch.equal(inter[..., 0::2], rff[..., :8]), torch.equal(inter[..., 1::2], rff[..., 8:]))

# Gradients of the IPE wrt the means and the variances.
m = means.detach().clone().requires_grad_(True)
c = covs.detach().clone().requires_grad_(True)
enc = integrated_pos_enc(m, c, 0, 4)
enc.sum().backward()
print("grad", enc.grad_fn.__class__.__name__, r(m.grad[1, 2]), [f"{v:.4e}" for v in c.grad[1, 2].tolist()])
print("float64", integrated_pos_enc(means.double(), covs.double(), 0, 2).dtype)
try:
    pos_enc(torch.ones(2, 3), 0, 4)[..., None] @ torch.ones(4, 2)
except Exception as e:
    print(type(e).__name__, e)
