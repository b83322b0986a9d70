"""A grid-based SDF (Instant-NSR/NeuS2-style): a dense feature volume read by 3-D grid_sample with a tiny MLP head,
analytic normals by autograd.grad(create_graph=True) through grid_sample, the eikonal penalty backpropagated to both
the volume and the query points (grid_sample's double backward), finite-difference normals for comparison, and a few
Adam steps towards a sphere."""

import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def r(t, n=6):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


R = 8
lin = torch.linspace(-1, 1, R)
zz, yy, xx = torch.meshgrid(lin, lin, lin, indexing="ij")
sphere = (torch.stack([xx, yy, zz]).norm(dim=0) - 0.5)[None, None]


class GridSDF(nn.Module):
    def __init__(self, C=4):
        super().__init__()
        self.volume = nn.Parameter(torch.cat([sphere, 0.1 * torch.randn(1, C - 1, R, R, R)], 1))
        self.head = nn.Sequential(nn.Linear(C, 16), nn.Softplus(beta=10), nn.Linear(16, 1))
        with torch.no_grad():
            self.head[2].bias.fill_(0.0)

    def forward(self, p, align_corners=True, padding_mode="border"):
        feat = F.grid_sample(self.volume, p.view(1, -1, 1, 1, 3), mode="bilinear", padding_mode=padding_mode,
                             align_corners=align_corners)
        feat = feat.view(self.volume.shape[1], -1).t()
        return feat[:, :1] + self.head(feat)


model = GridSDF()
print(model)
pts = torch.tensor([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.3, -0.3, 0.2], [0.9, 0.9, -0.9], [1.2, 0.0, 0.0]])
with torch.no_grad():
    print("sdf", r(model(pts)), r(model(pts, align_corners=False, padding_mode="zeros")))

x = pts.clone().requires_grad_(True)
sdf = model(x)
(grad,) = torch.autograd.grad(sdf, x, torch.ones_like(sdf), create_graph=True)
print("normal_grad_fn", grad.grad_fn.name(), tuple(grad.shape), r(grad[2]))
eps = 1e-3
fd = torch.stack([(model(pts + eps * e) - model(pts - eps * e)).squeeze(-1) / (2 * eps) for e in torch.eye(3)], -1)
print("fd_agrees", torch.allclose(fd.detach(), grad.detach(), atol=2e-2), r(fd[2]))
eik = ((grad.norm(dim=-1) - 1) ** 2).mean()
eik.backward()
print("eikonal", round(eik.item(), 4), r(x.grad[2]), round(model.volume.grad.abs().sum().item(), 4))
print("head_grad", round(model.head[0].weight.grad.abs().sum().item(), 4), int((model.volume.grad != 0).sum()))

for ac, pad in ((False, "zeros"), (False, "reflection"), (True, "reflection")):
    model.zero_grad()
    q = pts.clone().requires_grad_(True)
    s = model(q, align_corners=ac, padding_mode=pad)
    (g,) = torch.autograd.grad(s.sum(), q, create_graph=True)
    g.pow(2).sum().backward()
    vol_l1 = round(model.volume.grad.abs().sum().item(), 2)
    print("second", ac, pad, [round(v, 2) for v in q.grad[3].tolist()], vol_l1)

opt = torch.optim.Adam(model.parameters(), lr=1e-2)
train = torch.rand(256, 3) * 1.6 - 0.8
target = train.norm(dim=-1, keepdim=True) - 0.4
for step in range(6):
    opt.zero_grad()
    p = train.clone().requires_grad_(True)
    pred = model(p)
    (n,) = torch.autograd.grad(pred.sum(), p, create_graph=True)
    loss = F.l1_loss(pred, target) + 0.1 * ((n.norm(dim=-1) - 1) ** 2).mean()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4))
with torch.no_grad():
    print("after", r(model(pts)))
vol = torch.randn(1, 1, 3, 3, 3, dtype=torch.float64, requires_grad=True)
grd = (torch.rand(1, 2, 2, 1, 3, dtype=torch.float64) * 2 - 1).requires_grad_(True)
print("gradgradcheck", torch.autograd.gradgradcheck(
    lambda v, g: F.grid_sample(v, g, align_corners=False, padding_mode="border"), (vol, grd)))
img = torch.randn(1, 2, 4, 5, dtype=torch.float64, requires_grad=True)
g2 = (torch.rand(1, 3, 2, 2, dtype=torch.float64) * 2.4 - 1.2).requires_grad_(True)
for mode in ("bilinear", "bicubic", "nearest"):
    print("gradgradcheck2d", mode, torch.autograd.gradgradcheck(
        lambda v, g: F.grid_sample(v, g, mode=mode, align_corners=True, padding_mode="reflection"), (img, g2)))
