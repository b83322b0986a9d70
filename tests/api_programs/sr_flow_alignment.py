"""Video SR alignment as BasicVSR/EDVR code does it: flow_warp with grid_sample (bilinear/nearest/bicubic,
zeros/border/reflection padding, align_corners both ways), a SpyNet-style coarse-to-fine flow pyramid with
avg_pool2d and upsampled flows scaled by 2, a forward-backward consistency occlusion mask, deformable-offset
sampling (offsets + modulation mask from a conv, sampled with grid_sample), bidirectional propagation over frames,
and gradients into the flow field."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
t, c, h, w = 4, 3, 12, 16
yy, xx = torch.meshgrid(torch.arange(h, dtype=torch.float32), torch.arange(w, dtype=torch.float32), indexing="ij")
frames = torch.stack(
    [torch.stack([torch.sin(0.5 * (xx - 0.7 * k) + ch) * torch.cos(0.4 * yy) for ch in range(c)]) for k in range(t)]
)
frames = frames.unsqueeze(0) * 0.5 + 0.5  # (1, t, c, h, w)


def flow_warp(x, flow, mode="bilinear", padding_mode="zeros", align_corners=True):
    n, _, hh, ww = x.shape
    gy, gx = torch.meshgrid(torch.arange(0, hh, dtype=x.dtype), torch.arange(0, ww, dtype=x.dtype), indexing="ij")
    grid = torch.stack((gx, gy), 2).unsqueeze(0)  # (1, h, w, 2)
    vgrid = grid + flow
    vx = 2.0 * vgrid[..., 0] / max(ww - 1, 1) - 1.0
    vy = 2.0 * vgrid[..., 1] / max(hh - 1, 1) - 1.0
    return F.grid_sample(
        x, torch.stack((vx, vy), dim=3), mode=mode, padding_mode=padding_mode, align_corners=align_corners
    )


const = torch.zeros(1, h, w, 2)
const[..., 0] = 0.7
warped = flow_warp(frames[:, 1], const)
print("warp err interior", round((warped - frames[:, 0])[..., 2:-2, 2:-2].abs().max().item(), 4))
for mode in ("bilinear", "nearest", "bicubic"):
    for pm in ("zeros", "border", "reflection"):
        for ac in (True, False):
            o = flow_warp(frames[:, 2], const * 3.3 - 1.1, mode, pm, ac)
            print(mode, pm, ac, round(o.sum().item(), 3), round(o[0, 0, 0, -1].item(), 4))
zero = flow_warp(frames[:, 0], torch.zeros(1, h, w, 2))
print("identity", torch.allclose(zero, frames[:, 0], atol=1e-5))


class SpyLevel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(8, 8, 5, padding=2), nn.ReLU(), nn.Conv2d(8, 2, 5, padding=2))

    def forward(self, ref, supp, flow):
        return self.net(torch.cat([ref, flow_warp(supp, flow.permute(0, 2, 3, 1), padding_mode="border"), flow], 1))


levels = nn.ModuleList([SpyLevel() for _ in range(3)])


def spynet(ref, supp):
    refs, supps = [ref], [supp]
    for _ in range(2):
        refs.insert(0, F.avg_pool2d(refs[0], 2, 2, count_include_pad=False))
        supps.insert(0, F.avg_pool2d(supps[0], 2, 2, count_include_pad=False))
    flow = refs[0].new_zeros(ref.shape[0], 2, refs[0].shape[2], refs[0].shape[3])
    for lvl in range(3):
        if lvl > 0:
            flow = F.interpolate(flow, scale_factor=2, mode="bilinear", align_corners=True) * 2.0
        flow = flow + levels[lvl](refs[lvl], supps[lvl], flow)
    return flow


fl = spynet(frames[:, 0], frames[:, 1])
print("spynet", tuple(fl.shape), round(fl.abs().mean().item(), 4))
fb = spynet(frames[:, 1], frames[:, 0])
back_at_fwd = flow_warp(fb, fl.permute(0, 2, 3, 1))
diff = (fl + back_at_fwd).pow(2).sum(1)
mag = fl.pow(2).sum(1) + back_at_fwd.pow(2).sum(1)
occ = (diff > 0.01 * mag + 0.5).float()
print("occlusion share", round(occ.mean().item(), 4), occ.dtype, tuple(occ.shape))


class DeformAlign(nn.Module):
    def __init__(self, ch, k=3, groups=1):
        super().__init__()
        self.k, self.g = k, groups
        self.offset = nn.Conv2d(2 * ch, groups * 3 * k * k, 3, padding=1)
        nn.init.constant_(self.offset.weight, 0.0)
        nn.init.constant_(self.offset.bias, 0.0)
        self.weight = nn.Parameter(torch.randn(ch, ch, k, k) * 0.1)

    def forward(self, x, ref):
        n, ch, hh, ww = x.shape
        out = self.offset(torch.cat([x, ref], 1))
        o1, o2, m = torch.chunk(out, 3, dim=1)
        off = torch.cat((o1, o2), 1).view(n, self.k * self.k, 2, hh, ww)
        mask = torch.sigmoid(m).view(n, 1, self.k * self.k, hh, ww)
        ky, kx = torch.meshgrid(torch.arange(self.k) - self.k // 2, torch.arange(self.k) - self.k // 2, indexing="ij")
        base_y = torch.arange(hh, dtype=x.dtype).view(1, 1, hh, 1) + ky.reshape(1, -1, 1, 1)
        base_x = torch.arange(ww, dtype=x.dtype).view(1, 1, 1, ww) + kx.reshape(1, -1, 1, 1)
        py, px = base_y + off[:, :, 0], base_x + off[:, :, 1]
        grid = torch.stack([2 * px / (ww - 1) - 1, 2 * py / (hh - 1) - 1], -1).view(n, self.k * self.k * hh, ww, 2)
        cols = F.grid_sample(x, grid, align_corners=True).view(n, ch, self.k * self.k, hh, ww) * mask
        return torch.einsum("nckhw,ock->nohw", cols, self.weight.flatten(2))


da = DeformAlign(c)
aligned = da(frames[:, 1], frames[:, 0])
ref_conv = F.conv2d(frames[:, 1], da.weight, padding=1) * 0.5
print("deform zero-offset == conv*0.5", torch.allclose(aligned, ref_conv, atol=1e-5), tuple(aligned.shape))
aligned.abs().mean().backward()
print(
    "offset grad",
    round(da.offset.weight.grad.abs().sum().item(), 4) > 0,
    round(da.offset.bias.grad.abs().sum().item(), 4),
)

# bidirectional propagation with a fixed per-frame shift
feats_b, prop = [], torch.zeros(1, c, h, w)
flows = [torch.full((1, h, w, 2), 0.35) for _ in range(t - 1)]
for i in range(t - 1, -1, -1):
    if i < t - 1:
        prop = flow_warp(prop, flows[i], padding_mode="border")
    prop = 0.5 * prop + 0.5 * frames[:, i]
    feats_b.insert(0, prop)
prop = torch.zeros(1, c, h, w)
outs = []
for i in range(t):
    if i > 0:
        prop = flow_warp(prop, -flows[i - 1], padding_mode="border")
    prop = 0.5 * prop + 0.5 * frames[:, i]
    outs.append(torch.cat([prop, feats_b[i]], 1))
stacked = torch.stack(outs, dim=1)
print("propagated", tuple(stacked.shape), [round(v, 4) for v in stacked.mean((0, 2, 3, 4)).tolist()])

flow = torch.zeros(1, h, w, 2, requires_grad=True)
target = frames[:, 0]
opt = torch.optim.Adam([flow], lr=0.1)
for step in range(25):
    loss = (flow_warp(frames[:, 1], flow, padding_mode="border") - target)[
        ..., 2:-2, 2:-2
    ].abs().mean() + 0.01 * flow.diff(dim=2).abs().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("flow fit", round(loss.item(), 3), round(flow[0, 4:8, 4:10, 0].mean().item(), 2), type(loss.grad_fn).__name__)

for bad in [
    lambda: F.grid_sample(frames[:, 0], torch.zeros(1, h, w, 3), align_corners=False),
    lambda: F.grid_sample(frames[:, 0], torch.zeros(2, h, w, 2), align_corners=False),
    lambda: F.grid_sample(frames[:, 0], torch.zeros(1, h, w, 2), mode="area"),
    lambda: F.grid_sample(frames[:, 0], torch.zeros(1, h, w, 2, dtype=torch.float64), align_corners=False),
    lambda: F.grid_sample(frames[0], torch.zeros(1, 1, 2, 2, 3), mode="bicubic", align_corners=False),
]:
    try:
        print("ok", tuple(bad().shape))
    except Exception as e:
        print(type(e).__name__, e)
