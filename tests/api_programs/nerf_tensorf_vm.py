"""TensoRF's vector-matrix decomposition: plane and line factors as ParameterLists read by grid_sample (lines as
width-1 images), density from summed products, appearance features through a basis matrix, L1 and TV regularisers,
upsampling the factors with bilinear interpolate(align_corners=True) and shrinking them to a bounding box, an alpha
mask from max_pool3d, and parameter groups with different learning rates."""

import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def r(t, n=6):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


MAT_MODE = [[0, 1], [0, 2], [1, 2]]
VEC_MODE = [2, 1, 0]


class TensorVM(nn.Module):
    def __init__(self, res=(8, 8, 8), n_comp=(2, 2, 2), app_comp=(3, 3, 3), app_dim=6, scale=0.1):
        super().__init__()
        self.res = list(res)
        self.density_plane, self.density_line = self.init_vm(n_comp, scale)
        self.app_plane, self.app_line = self.init_vm(app_comp, scale)
        self.basis_mat = nn.Linear(sum(app_comp), app_dim, bias=False)

    def init_vm(self, n_comp, scale):
        planes, lines = [], []
        for i in range(3):
            m0, m1 = MAT_MODE[i]
            planes.append(nn.Parameter(scale * torch.randn(1, n_comp[i], self.res[m1], self.res[m0])))
            lines.append(nn.Parameter(scale * torch.randn(1, n_comp[i], self.res[VEC_MODE[i]], 1)))
        return nn.ParameterList(planes), nn.ParameterList(lines)

    def coords(self, xyz):
        cp = torch.stack([xyz[..., MAT_MODE[i]] for i in range(3)]).detach().view(3, -1, 1, 2)
        cl = torch.stack([xyz[..., VEC_MODE[i]] for i in range(3)])
        cl = torch.stack((torch.zeros_like(cl), cl), dim=-1).detach().view(3, -1, 1, 2)
        return cp, cl

    def density(self, xyz):
        cp, cl = self.coords(xyz)
        sigma = torch.zeros(xyz.shape[0])
        for i in range(3):
            p = F.grid_sample(self.density_plane[i], cp[[i]], align_corners=True).view(-1, xyz.shape[0])
            l = F.grid_sample(self.density_line[i], cl[[i]], align_corners=True).view(-1, xyz.shape[0])
            sigma = sigma + torch.sum(p * l, dim=0)
        return F.softplus(sigma - 1.0)

    def appearance(self, xyz):
        cp, cl = self.coords(xyz)
        ps, ls = [], []
        for i in range(3):
            ps.append(F.grid_sample(self.app_plane[i], cp[[i]], align_corners=True).view(-1, xyz.shape[0]))
            ls.append(F.grid_sample(self.app_line[i], cl[[i]], align_corners=True).view(-1, xyz.shape[0]))
        return self.basis_mat((torch.cat(ps) * torch.cat(ls)).T)

    def l1(self):
        return sum(torch.mean(torch.abs(p)) + torch.mean(torch.abs(l))
                   for p, l in zip(self.density_plane, self.density_line))

    def tv(self):
        def tv2d(x):
            h = torch.pow(x[:, :, 1:, :] - x[:, :, :-1, :], 2).sum()
            w = torch.pow(x[:, :, :, 1:] - x[:, :, :, :-1], 2).sum()
            return 2 * (h / x[:, :, 1:, :].numel() + w / x[:, :, :, 1:].numel()) / x.shape[0]
        return sum(tv2d(p) * 1e-2 for p in self.density_plane)

    @torch.no_grad()
    def upsample(self, res):
        for i in range(3):
            m0, m1 = MAT_MODE[i]
            for planes, lines in ((self.density_plane, self.density_line), (self.app_plane, self.app_line)):
                planes[i] = nn.Parameter(F.interpolate(planes[i].data, size=(res[m1], res[m0]), mode="bilinear",
                                                       align_corners=True))
                lines[i] = nn.Parameter(F.interpolate(lines[i].data, size=(res[VEC_MODE[i]], 1), mode="bilinear",
                                                      align_corners=True))
        self.res = list(res)

    @torch.no_grad()
    def shrink(self, lo, hi):
        for i in range(3):
            v = VEC_MODE[i]
            self.density_line[i] = nn.Parameter(self.density_line[i].data[..., lo[v]:hi[v], :])
            m0, m1 = MAT_MODE[i]
            self.density_plane[i] = nn.Parameter(self.density_plane[i].data[..., lo[m1]:hi[m1], lo[m0]:hi[m0]])


model = TensorVM()
print([tuple(p.shape) for p in model.density_plane], [tuple(l.shape) for l in model.density_line])
print(model.density_plane)
xyz = torch.rand(16, 3) * 2 - 1
sig = model.density(xyz)
app = model.appearance(xyz)
print("sigma", tuple(sig.shape), r(sig), "app", tuple(app.shape), r(app[0]))
print("reg", round(model.l1().item(), 4), round(model.tv().item(), 6))

grad_vars = [{"params": list(model.density_line) + list(model.density_plane), "lr": 0.02},
             {"params": model.basis_mat.parameters(), "lr": 1e-3}]
opt = torch.optim.Adam(grad_vars, betas=(0.9, 0.99))
target = torch.linspace(0, 1, 16)
for step in range(5):
    loss = F.mse_loss(model.density(xyz), target) + 8e-5 * model.l1() + model.tv()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 5))
print("groups", [g["lr"] for g in opt.param_groups], len(opt.state))

before = model.density(xyz).detach()
model.upsample((12, 12, 12))
print("upsampled", [tuple(p.shape) for p in model.density_plane], [tuple(l.shape) for l in model.app_line])
print("same_field", round((model.density(xyz) - before).abs().max().item(), 3))
grid = torch.stack(torch.meshgrid(*[torch.linspace(-1, 1, 12)] * 3, indexing="ij"), -1).view(-1, 3)
with torch.no_grad():
    alpha = 1 - torch.exp(-model.density(grid).view(12, 12, 12) * 0.5)
pooled = F.max_pool3d(alpha[None, None], kernel_size=3, padding=1, stride=1).view(12, 12, 12)
mask = pooled > pooled.quantile(0.9)
idx = mask.nonzero()
lo, hi = idx.amin(0), idx.amax(0) + 1
print("alpha_mask", int(mask.sum()), lo.tolist(), hi.tolist())
model.shrink(lo.flip(0).tolist(), hi.flip(0).tolist())
print("shrunk", [tuple(p.shape) for p in model.density_plane])
try:
    model.density_plane[3]
except Exception as e:
    print(type(e).__name__, e)
try:
    model.density_plane[0] = torch.zeros(2)
except Exception as e:
    print(type(e).__name__, e)
print(type(model.density_plane[0]).__name__)
