"""Neural radiance field pieces: meshgrid rays (indexing="xy"/"ij"), Fourier positional encoding, an MLP with a skip
connection, volume rendering (exclusive cumprod transmittance, alpha compositing, depth/acc maps), hierarchical
sampling by inverting a CDF with searchsorted, a photometric loss with PSNR, and an Adam step."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


H, W, focal = 4, 5, 3.0
c2w = torch.tensor([[1.0, 0.0, 0.0, 0.1], [0.0, 0.8, -0.6, 0.2], [0.0, 0.6, 0.8, 2.0]])


def get_rays(H, W, focal, c2w):
    i, j = torch.meshgrid(torch.linspace(0, W - 1, W), torch.linspace(0, H - 1, H), indexing="xy")
    dirs = torch.stack([(i - W * 0.5) / focal, -(j - H * 0.5) / focal, -torch.ones_like(i)], -1)
    rays_d = torch.sum(dirs[..., np.newaxis, :] * c2w[:3, :3], -1)
    rays_o = c2w[:3, -1].expand(rays_d.shape)
    return rays_o, rays_d


rays_o, rays_d = get_rays(H, W, focal, c2w)
print("rays", tuple(rays_o.shape), tuple(rays_d.shape), r(rays_d[1, 2]), r(rays_o[0, 0]))
ii, jj = torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij")
print("meshgrid_ij", ii.tolist(), jj.tolist())
viewdirs = rays_d / torch.norm(rays_d, dim=-1, keepdim=True)
rays_o, rays_d, viewdirs = rays_o.reshape(-1, 3), rays_d.reshape(-1, 3), viewdirs.reshape(-1, 3)


class Embedder:
    def __init__(self, multires, include_input=True, log_sampling=True):
        max_freq = multires - 1
        if log_sampling:
            self.freq_bands = 2.0 ** torch.linspace(0.0, max_freq, steps=multires)
        else:
            self.freq_bands = torch.linspace(2.0**0.0, 2.0**max_freq, steps=multires)
        self.include_input = include_input
        self.out_dim = 3 * (int(include_input) + 2 * multires)

    def __call__(self, x):
        outs = [x] if self.include_input else []
        for freq in self.freq_bands:
            for p_fn in (torch.sin, torch.cos):
                outs.append(p_fn(x * freq))
        return torch.cat(outs, -1)


embed, embed_dirs = Embedder(4), Embedder(2)
print("embed", embed.out_dim, embed_dirs.out_dim, embed.freq_bands.tolist(),
      r(embed(torch.tensor([[0.5, -0.25, 1.0]]))[0, 3:]))


class NeRF(nn.Module):
    def __init__(self, D=4, Wd=16, input_ch=27, input_ch_views=15, skips=(2,)):
        super().__init__()
        self.skips = skips
        self.pts_linears = nn.ModuleList(
            [nn.Linear(input_ch, Wd)] + [nn.Linear(Wd, Wd) if i not in skips else nn.Linear(Wd + input_ch, Wd)
                                         for i in range(D - 1)])
        self.views_linears = nn.ModuleList([nn.Linear(input_ch_views + Wd, Wd // 2)])
        self.feature_linear = nn.Linear(Wd, Wd)
        self.alpha_linear = nn.Linear(Wd, 1)
        self.rgb_linear = nn.Linear(Wd // 2, 3)
        self.input_ch, self.input_ch_views = input_ch, input_ch_views

    def forward(self, x):
        input_pts, input_views = torch.split(x, [self.input_ch, self.input_ch_views], dim=-1)
        h = input_pts
        for i, l in enumerate(self.pts_linears):
            h = F.relu(self.pts_linears[i](h))
            if i in self.skips:
                h = torch.cat([input_pts, h], -1)
        alpha = self.alpha_linear(h)
        feature = self.feature_linear(h)
        h = torch.cat([feature, input_views], -1)
        for l in self.views_linears:
            h = F.relu(l(h))
        rgb = self.rgb_linear(h)
        return torch.cat([rgb, alpha], -1)


model = NeRF()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(T(*p.shape) * 0.4)


def raw2outputs(raw, z_vals, rays_d, raw_noise_std=0.0, white_bkgd=True):
    raw2alpha = lambda raw, dists, act_fn=F.relu: 1.0 - torch.exp(-act_fn(raw) * dists)
    dists = z_vals[..., 1:] - z_vals[..., :-1]
    dists = torch.cat([dists, torch.tensor([1e10]).expand(dists[..., :1].shape)], -1)
    dists = dists * torch.norm(rays_d[..., None, :], dim=-1)
    rgb = torch.sigmoid(raw[..., :3])
    alpha = raw2alpha(raw[..., 3], dists)
    weights = alpha * torch.cumprod(torch.cat([torch.ones((alpha.shape[0], 1)), 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
    rgb_map = torch.sum(weights[..., None] * rgb, -2)
    depth_map = torch.sum(weights * z_vals, -1)
    disp_map = 1.0 / torch.max(1e-10 * torch.ones_like(depth_map), depth_map / torch.sum(weights, -1))
    acc_map = torch.sum(weights, -1)
    if white_bkgd:
        rgb_map = rgb_map + (1.0 - acc_map[..., None])
    return rgb_map, disp_map, acc_map, weights, depth_map


def sample_pdf(bins, weights, N_samples):
    weights = weights + 1e-5
    pdf = weights / torch.sum(weights, -1, keepdim=True)
    cdf = torch.cumsum(pdf, -1)
    cdf = torch.cat([torch.zeros_like(cdf[..., :1]), cdf], -1)
    u = torch.linspace(0.0, 1.0, steps=N_samples)
    u = u.expand(list(cdf.shape[:-1]) + [N_samples]).contiguous()
    inds = torch.searchsorted(cdf, u, right=True)
    below = torch.max(torch.zeros_like(inds - 1), inds - 1)
    above = torch.min((cdf.shape[-1] - 1) * torch.ones_like(inds), inds)
    inds_g = torch.stack([below, above], -1)
    matched_shape = [inds_g.shape[0], inds_g.shape[1], cdf.shape[-1]]
    cdf_g = torch.gather(cdf.unsqueeze(1).expand(matched_shape), 2, inds_g)
    bins_g = torch.gather(bins.unsqueeze(1).expand(matched_shape), 2, inds_g)
    denom = cdf_g[..., 1] - cdf_g[..., 0]
    denom = torch.where(denom < 1e-5, torch.ones_like(denom), denom)
    t = (u - cdf_g[..., 0]) / denom
    return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])


def render(rays_o, rays_d, viewdirs, near=1.0, far=4.0, N_samples=8, N_importance=6):
    N_rays = rays_o.shape[0]
    t_vals = torch.linspace(0.0, 1.0, steps=N_samples)
    z_vals = near * (1.0 - t_vals) + far * t_vals
    z_vals = z_vals.expand([N_rays, N_samples])
    pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
    dirs = viewdirs[:, None].expand(pts.shape)
    raw = model(torch.cat([embed(pts), embed_dirs(dirs)], -1))
    rgb0, disp0, acc0, weights, depth0 = raw2outputs(raw, z_vals, rays_d)
    z_vals_mid = 0.5 * (z_vals[..., 1:] + z_vals[..., :-1])
    z_samples = sample_pdf(z_vals_mid, weights[..., 1:-1], N_importance).detach()
    z_all, _ = torch.sort(torch.cat([z_vals, z_samples], -1), -1)
    pts = rays_o[..., None, :] + rays_d[..., None, :] * z_all[..., :, None]
    dirs = viewdirs[:, None].expand(pts.shape)
    raw = model(torch.cat([embed(pts), embed_dirs(dirs)], -1))
    rgb, disp, acc, weights, depth = raw2outputs(raw, z_all, rays_d)
    return rgb, rgb0, depth, acc, z_samples


rgb, rgb0, depth, acc, zs = render(rays_o, rays_d, viewdirs)
print("render", tuple(rgb.shape), r(rgb[:2]), r(depth[:4]), r(acc[:4]))
print("samples", tuple(zs.shape), r(zs[0]), bool((zs[:, 1:] >= zs[:, :-1]).all()))
cdf = torch.tensor([[0.0, 0.2, 0.5, 1.0]])
print("searchsorted", torch.searchsorted(cdf, torch.tensor([[0.0, 0.2, 0.3, 1.0]]), right=True).tolist(),
      torch.searchsorted(cdf, torch.tensor([[0.0, 0.2, 0.3, 1.0]])).tolist(),
      torch.searchsorted(cdf[0], torch.tensor(0.35)).item(),
      torch.searchsorted(cdf, torch.tensor([[0.3]]), out_int32=True).dtype)
target = torch.sigmoid(T(H * W, 3))
img2mse = lambda x, y: torch.mean((x - y) ** 2)
mse2psnr = lambda x: -10.0 * torch.log(x) / torch.log(torch.Tensor([10.0]))
opt = torch.optim.Adam(model.parameters(), lr=5e-4, betas=(0.9, 0.999))
for it in range(3):
    rgb, rgb0, depth, acc, _ = render(rays_o, rays_d, viewdirs)
    loss = img2mse(rgb, target) + img2mse(rgb0, target)
    psnr = mse2psnr(img2mse(rgb, target))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", it, round(loss.item(), 4), round(psnr.item(), 3), psnr.shape)
decay_rate, decay_steps, global_step = 0.1, 250 * 1000, 3
new_lrate = 5e-4 * (decay_rate ** (global_step / decay_steps))
for pg in opt.param_groups:
    pg["lr"] = new_lrate
print("lr", round(opt.param_groups[0]["lr"] * 1e4, 6), torch.Tensor([10.0]).dtype, torch.Tensor(2, 3).shape)
to8b = lambda x: (255 * np.clip(x, 0, 1)).astype(np.uint8)
print("to8b", to8b(np.round(rgb.detach().numpy(), 3))[:2].tolist())
