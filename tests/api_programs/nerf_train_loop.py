"""A compact NeRF training script: precomputed ray batches shuffled with a seeded randperm, a TensorDataset loader,
coarse and fine MLPs evaluated in chunks (torch.split / torch.cat) with raw2outputs compositing and white
backgrounds, the exponential learning-rate decay written into param_groups, mse2psnr and to8b, gradient clipping,
and a checkpoint round trip through BytesIO with weights_only loading."""

import io

import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def r(t, n=6):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


img2mse = lambda x, y: torch.mean((x - y) ** 2)
mse2psnr = lambda x: -10.0 * torch.log(x) / torch.log(torch.tensor([10.0]))
to8b = lambda x: (255 * torch.clip(x, 0, 1)).to(torch.uint8)


class TinyNeRF(nn.Module):
    def __init__(self, L=4, W=32):
        super().__init__()
        self.L = L
        d = 3 + 6 * L
        self.body = nn.Sequential(nn.Linear(d, W), nn.ReLU(), nn.Linear(W, W), nn.ReLU())
        self.sigma = nn.Linear(W, 1)
        self.rgb = nn.Sequential(nn.Linear(W + 3, W // 2), nn.ReLU(), nn.Linear(W // 2, 3))

    def embed(self, x):
        freqs = 2.0 ** torch.arange(self.L, dtype=x.dtype) * torch.pi
        xb = x[..., None, :] * freqs[:, None]
        return torch.cat([x, torch.sin(xb).flatten(-2), torch.cos(xb).flatten(-2)], -1)

    def forward(self, pts, dirs):
        h = self.body(self.embed(pts))
        return torch.cat([torch.sigmoid(self.rgb(torch.cat([h, dirs], -1))), self.sigma(h)], -1)


def raw2outputs(raw, z_vals, rays_d, raw_noise_std=0.0, white_bkgd=True):
    dists = z_vals[..., 1:] - z_vals[..., :-1]
    dists = torch.cat([dists, torch.tensor([1e10]).expand(dists[..., :1].shape)], -1)
    dists = dists * torch.norm(rays_d[..., None, :], dim=-1)
    noise = torch.randn(raw[..., 3].shape) * raw_noise_std if raw_noise_std > 0 else 0.0
    alpha = 1.0 - torch.exp(-F.relu(raw[..., 3] + noise) * dists)
    weights = alpha * torch.cumprod(torch.cat([torch.ones((alpha.shape[0], 1)), 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
    rgb_map = torch.sum(weights[..., None] * raw[..., :3], -2)
    depth_map = torch.sum(weights * z_vals, -1)
    acc_map = torch.sum(weights, -1)
    disp_map = 1.0 / torch.max(1e-10 * torch.ones_like(depth_map), depth_map / acc_map)
    if white_bkgd:
        rgb_map = rgb_map + (1.0 - acc_map[..., None])
    return rgb_map, disp_map, acc_map, weights, depth_map


def batchify(fn, chunk):
    return lambda pts, dirs: torch.cat([fn(p, d) for p, d in zip(torch.split(pts, chunk), torch.split(dirs, chunk))])


H, W, focal = 6, 6, 5.0
i, j = torch.meshgrid(torch.arange(W, dtype=torch.float32), torch.arange(H, dtype=torch.float32), indexing="xy")
dirs = torch.stack([(i - W * 0.5) / focal, -(j - H * 0.5) / focal, -torch.ones_like(i)], -1).reshape(-1, 3)
rays_o = torch.tensor([0.0, 0.0, 2.5]).expand_as(dirs)
target = torch.stack([torch.sigmoid(dirs[:, 0] * 3), torch.sigmoid(-dirs[:, 1] * 3), torch.full((H * W,), 0.3)], -1)
perm = torch.randperm(H * W, generator=torch.Generator().manual_seed(1))
ds = torch.utils.data.TensorDataset(rays_o[perm], dirs[perm], target[perm])
loader = torch.utils.data.DataLoader(ds, batch_size=12, shuffle=False, drop_last=True)
print("rays", len(ds), len(loader), perm[:6].tolist())

coarse, fine = TinyNeRF(), TinyNeRF()
params = list(coarse.parameters()) + list(fine.parameters())
opt = torch.optim.Adam(params, lr=5e-3, betas=(0.9, 0.999))
lrate, decay_steps = 5e-3, 10
z = torch.linspace(1.0, 4.0, 8)
global_step = 0
for epoch in range(2):
    for ro, rd, tgt in loader:
        zv = z.expand(ro.shape[0], 8)
        pts = ro[:, None] + rd[:, None] * zv[..., None]
        vd = F.normalize(rd, dim=-1)[:, None].expand_as(pts)
        raw = batchify(coarse, 40)(pts.reshape(-1, 3), vd.reshape(-1, 3)).view(ro.shape[0], 8, 4)
        rgb0, disp0, acc0, w0, _ = raw2outputs(raw, zv, rd)
        mids = 0.5 * (zv[..., 1:] + zv[..., :-1])
        z_f = torch.sort(torch.cat([zv, mids], -1), -1).values
        pts_f = ro[:, None] + rd[:, None] * z_f[..., None]
        raw_f = batchify(fine, 64)(pts_f.reshape(-1, 3), F.normalize(rd, dim=-1).repeat_interleave(15, 0))
        rgb, disp, acc, _, depth = raw2outputs(raw_f.view(ro.shape[0], 15, 4), z_f, rd)
        loss = img2mse(rgb, tgt) + img2mse(rgb0, tgt)
        opt.zero_grad()
        loss.backward()
        norm = nn.utils.clip_grad_norm_(params, max_norm=1.0)
        opt.step()
        new_lr = lrate * (0.1 ** (global_step / decay_steps))
        for g in opt.param_groups:
            g["lr"] = new_lr
        psnr = mse2psnr(img2mse(rgb, tgt))
        print("step", global_step, round(loss.item(), 4), round(psnr.item(), 3), psnr.shape, round(norm.item(), 4),
              round(new_lr, 6))
        global_step += 1
print("maps", r(disp, 4), r(acc, 4), r(depth, 4))
print("to8b", to8b(rgb[:2]).tolist(), to8b(torch.tensor([-0.5, 1.5, 0.999])).tolist())

buf = io.BytesIO()
torch.save({"global_step": global_step, "network_fn_state_dict": coarse.state_dict(),
            "network_fine_state_dict": fine.state_dict(), "optimizer_state_dict": opt.state_dict()}, buf)
buf.seek(0)
ckpt = torch.load(buf, weights_only=True)
restored = TinyNeRF()
print("load", restored.load_state_dict(ckpt["network_fn_state_dict"]), ckpt["global_step"],
      sorted(ckpt["optimizer_state_dict"]["state"].keys())[:4], ckpt["optimizer_state_dict"]["param_groups"][0]["lr"])
opt2 = torch.optim.Adam(list(restored.parameters()) + list(TinyNeRF().parameters()), lr=1.0)
opt2.load_state_dict(ckpt["optimizer_state_dict"])
print("opt_restored", round(opt2.param_groups[0]["lr"], 6), int(opt2.state_dict()["state"][0]["step"]))
with torch.no_grad():
    same = torch.equal(restored(pts[0], vd[0]), coarse(pts[0], vd[0]))
print("same_output", same)
try:
    restored.load_state_dict({k: v for k, v in ckpt["network_fn_state_dict"].items() if "sigma" not in k})
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
