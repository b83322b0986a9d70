"""Ray sampling for NeRF-style renderers: near/far from ray-AABB slabs, stratified samples with torch.rand and
perturbation, sampling linearly in disparity, hierarchical sampling from a piecewise-constant pdf (searchsorted with
right=True and side=, out_int32, sorter=), deterministic versus random inverse-CDF draws, and merged sorted samples."""

import torch

torch.manual_seed(0)


def r(t, n=6):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


def ray_aabb(rays_o, rays_d, aabb_min, aabb_max):
    inv_d = torch.reciprocal(rays_d)
    t0, t1 = (aabb_min - rays_o) * inv_d, (aabb_max - rays_o) * inv_d
    near = torch.minimum(t0, t1).amax(dim=-1)
    far = torch.maximum(t0, t1).amin(dim=-1)
    hit = far > near.clamp_min(0)
    return near.clamp_min(0.0), far, hit


rays_o = torch.tensor([[0.0, 0.0, -3.0], [0.5, 0.5, -3.0], [2.0, 2.0, -3.0], [0.0, 0.0, 0.0]])
rays_d = torch.nn.functional.normalize(torch.tensor([[0.0, 0.0, 1.0], [0.1, 0.0, 1.0], [0.0, 0.0, 1.0],
                                                     [1.0, 1.0, 1.0]]), dim=-1)
with torch.no_grad():
    near, far, hit = ray_aabb(rays_o, rays_d, torch.full((3,), -1.0), torch.full((3,), 1.0))
print("aabb", r(near), r(far), hit.tolist())
print("inf_slabs", torch.reciprocal(torch.tensor([0.0, -0.0])).tolist())

N_rays, N_samples = 4, 8
near, far = torch.full((N_rays, 1), 2.0), torch.full((N_rays, 1), 6.0)
t_vals = torch.linspace(0.0, 1.0, steps=N_samples)
z_lin = near * (1.0 - t_vals) + far * t_vals
z_disp = 1.0 / (1.0 / near * (1.0 - t_vals) + 1.0 / far * t_vals)
print("z_lin", r(z_lin[0], 8))
print("z_disp", r(z_disp[0], 8))

mids = 0.5 * (z_lin[..., 1:] + z_lin[..., :-1])
upper = torch.cat([mids, z_lin[..., -1:]], -1)
lower = torch.cat([z_lin[..., :1], mids], -1)
t_rand = torch.rand(z_lin.shape)
z_strat = lower + (upper - lower) * t_rand
print("strat", tuple(z_strat.shape), r(z_strat[0], 8), bool((z_strat.diff(dim=-1) > 0).all()))


def sample_pdf(bins, weights, N, det=False, generator=None):
    weights = weights + 1e-5
    pdf = weights / torch.sum(weights, -1, keepdim=True)
    cdf = torch.cumsum(pdf, -1)
    cdf = torch.cat([torch.zeros_like(cdf[..., :1]), cdf], -1)
    if det:
        u = torch.linspace(0.0, 1.0, steps=N).expand(list(cdf.shape[:-1]) + [N])
    else:
        u = torch.rand(list(cdf.shape[:-1]) + [N], generator=generator)
    u = u.contiguous()
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
    return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0]), inds


weights = torch.tensor([[0.0, 0.0, 0.1, 0.7, 0.2, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
                        [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.3, 0.0, 0.0, 0.0, 0.0, 0.3]])
samples, inds = sample_pdf(mids[:, :7], weights, 10, det=True)
print("det", r(samples[0], 10), inds[0].tolist(), inds.dtype)
print("det_uniform", r(samples[1], 10))
print("det_last", r(samples[2], 10))
g = torch.Generator().manual_seed(1234)
samples_r, _ = sample_pdf(mids[:, :7], weights, 16, det=False, generator=g)
print("rand_mean", r(samples_r.mean(-1)), r(samples_r.min(-1).values), r(samples_r.max(-1).values))
z_all, order = torch.sort(torch.cat([z_lin, samples.detach()], -1), -1)
print("merged", tuple(z_all.shape), r(z_all[0], 18), order[0, :6].tolist())

# searchsorted argument forms.
seq = torch.tensor([1.0, 2.0, 2.0, 3.0, 5.0])
vals = torch.tensor([[2.0, 0.5, 5.0, 6.0]])
print("ss_left", torch.searchsorted(seq, vals).tolist(), torch.searchsorted(seq, vals, side="right").tolist())
print("ss_int32", torch.searchsorted(seq, vals, out_int32=True).dtype, torch.searchsorted(seq, 2.0).item(),
      torch.searchsorted(seq, torch.tensor(2.0), right=True).item())
unsorted = torch.tensor([3.0, 1.0, 5.0, 2.0])
sorter = torch.argsort(unsorted)
print("ss_sorter", torch.searchsorted(unsorted, torch.tensor([2.5, 0.0, 9.0]), sorter=sorter).tolist())
print("bucketize", torch.bucketize(torch.tensor([0.5, 2.0, 4.0]), seq).tolist(),
      torch.bucketize(torch.tensor([0.5, 2.0, 4.0]), seq, right=True, out_int32=True).tolist())
for bad in (lambda: torch.searchsorted(seq, vals, side="right", right=False),
            lambda: torch.searchsorted(torch.ones(2, 3), torch.ones(3, 2)),
            lambda: torch.searchsorted(seq, vals, side="middle"),
            lambda: torch.searchsorted(seq, vals, sorter=sorter)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
