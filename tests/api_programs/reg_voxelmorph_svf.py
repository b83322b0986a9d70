"""VoxelMorph's diffeomorphic path: a SpatialTransformer with a registered identity grid (meshgrid, flipped channel
order, [-1, 1] normalisation), VecInt's scaling and squaring of a stationary velocity field, ResizeTransform
and a tiny 3-D U-Net, trained a few steps with an NCC + gradient loss."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


class SpatialTransformer(nn.Module):
    def __init__(self, size, mode="bilinear"):
        super().__init__()
        self.mode = mode
        vectors = [torch.arange(0, s) for s in size]
        grids = torch.meshgrid(vectors, indexing="ij")
        grid = torch.stack(grids).unsqueeze(0).type(torch.FloatTensor)
        self.register_buffer("grid", grid, persistent=False)

    def forward(self, src, flow):
        new_locs = self.grid + flow
        shape = flow.shape[2:]
        for i in range(len(shape)):
            new_locs[:, i, ...] = 2 * (new_locs[:, i, ...] / (shape[i] - 1) - 0.5)
        new_locs = new_locs.permute(0, 2, 3, 4, 1)
        new_locs = new_locs[..., [2, 1, 0]]
        return F.grid_sample(src, new_locs, align_corners=True, mode=self.mode)


class VecInt(nn.Module):
    def __init__(self, inshape, nsteps):
        super().__init__()
        self.nsteps = nsteps
        self.scale = 1.0 / (2**nsteps)
        self.transformer = SpatialTransformer(inshape)

    def forward(self, vec):
        vec = vec * self.scale
        for _ in range(self.nsteps):
            vec = vec + self.transformer(vec, vec)
        return vec


class ResizeTransform(nn.Module):
    def __init__(self, vel_resize, ndims):
        super().__init__()
        self.factor = 1.0 / vel_resize
        self.mode = "trilinear" if ndims == 3 else "bilinear"

    def forward(self, x):
        if self.factor < 1:
            x = F.interpolate(x, align_corners=True, scale_factor=self.factor, mode=self.mode)
            x = self.factor * x
        elif self.factor > 1:
            x = self.factor * x
            x = F.interpolate(x, align_corners=True, scale_factor=self.factor, mode=self.mode)
        return x


class TinyUnet(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.enc = nn.Conv3d(2, c, 3, padding=1)
        self.down = nn.Conv3d(c, c, 3, stride=2, padding=1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.dec = nn.Conv3d(2 * c, c, 3, padding=1)
        self.flow = nn.Conv3d(c, 3, 3, padding=1)
        self.flow.weight = nn.Parameter(torch.distributions.Normal(0, 1e-2).sample(self.flow.weight.shape))
        self.flow.bias = nn.Parameter(torch.zeros(self.flow.bias.shape))

    def forward(self, x):
        e = F.leaky_relu(self.enc(x), 0.2)
        d = F.leaky_relu(self.down(e), 0.2)
        u = torch.cat([self.up(d), e], dim=1)
        return self.flow(F.leaky_relu(self.dec(u), 0.2))


shape = (6, 8, 8)
st = SpatialTransformer(shape)
print(st.grid.shape, st.grid.dtype, list(st.state_dict().keys()), st.grid[0, :, 2, 3, 4].tolist())
zz, yy, xx = torch.meshgrid(*[torch.linspace(-1, 1, s) for s in shape], indexing="ij")
fixed = torch.exp(-(zz**2 + yy**2 + (xx - 0.2) ** 2) / 0.3).view(1, 1, *shape)
moving = torch.exp(-(zz**2 + (yy + 0.2) ** 2 + xx**2) / 0.3).view(1, 1, *shape)
zero = torch.zeros(1, 3, *shape)
print("identity warp err", (st(moving, zero) - moving).abs().max().item() < 1e-6)
shift = torch.zeros(1, 3, *shape)
shift[:, 2] = 1.0
print("shift x", st(moving, shift)[0, 0, 3, 4].round(decimals=4))
print("nearest", SpatialTransformer(shape, "nearest")(moving, shift * 0.6)[0, 0, 3, 4].round(decimals=4))

vel = torch.randn(1, 3, *shape) * 0.5
for n in (0, 1, 4, 7):
    disp = VecInt(shape, n)(vel)
    print("vecint", n, round(disp.abs().mean().item(), 4), round(disp.std().item(), 4))
inv = VecInt(shape, 7)(-vel)
fwd = VecInt(shape, 7)(vel)
comp = fwd + st(inv, fwd)
print("inverse consistency", round(comp.abs().mean().item(), 4) < round(fwd.abs().mean().item(), 4))

down, up = ResizeTransform(2, 3), ResizeTransform(0.5, 3)
hv = down(vel)
print("resize", hv.shape, round(hv.abs().sum().item(), 3), up(hv).shape, round(up(hv).abs().sum().item(), 3))


def ncc(a, b, win=3):
    filt = torch.ones(1, 1, win, win, win, dtype=a.dtype)
    pad = win // 2
    a2, b2, ab = a * a, b * b, a * b
    sums = [F.conv3d(t, filt, padding=pad) for t in (a, b, a2, b2, ab)]
    n = win**3
    ua, ub = sums[0] / n, sums[1] / n
    cross = sums[4] - ub * sums[0] - ua * sums[1] + ua * ub * n
    va = sums[2] - 2 * ua * sums[0] + ua * ua * n
    vb = sums[3] - 2 * ub * sums[1] + ub * ub * n
    return -torch.mean(cross * cross / (va * vb + 1e-5))


def grad_loss(d):
    dy = torch.abs(d[:, :, 1:] - d[:, :, :-1]) ** 2
    dx = torch.abs(d[:, :, :, 1:] - d[:, :, :, :-1]) ** 2
    dz = torch.abs(d[:, :, :, :, 1:] - d[:, :, :, :, :-1]) ** 2
    return (dx.mean() + dy.mean() + dz.mean()) / 3.0


net = TinyUnet()
integ = VecInt(shape, 4)
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
x = torch.cat([moving, fixed], dim=1).double()
net.double()
integ.double()
st.double()
print("buffer dtype after double", st.grid.dtype, integ.transformer.grid.dtype)
for step in range(4):
    opt.zero_grad()
    v = net(x)
    flow = integ(v)
    warped = st(moving.double(), flow)
    loss = ncc(warped, fixed.double()) + 0.1 * grad_loss(flow)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), round(net.flow.weight.grad.norm().item(), 4), warped.grad_fn.name())
