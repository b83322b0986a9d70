"""Deformation regularisers from registration toolkits: diffusion and bending energy by finite differences written
three ways (torch.diff with prepend/append, slicing, torch.gradient with spacing/edge_order), boundary handling by
F.pad's constant/replicate/reflect/circular modes, and the errors such padding raises."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
disp = torch.randn(1, 3, 4, 5, 6, dtype=torch.float64)

# diffusion (first-order) regulariser, three ways
d1 = [torch.diff(disp, dim=d) for d in (2, 3, 4)]
print([tuple(t.shape) for t in d1], [round(t.pow(2).mean().item(), 4) for t in d1])
sl = [disp[:, :, 1:] - disp[:, :, :-1], disp[:, :, :, 1:] - disp[:, :, :, :-1], disp[..., 1:] - disp[..., :-1]]
print(all(torch.equal(a, b) for a, b in zip(d1, sl)))
g = torch.gradient(disp, dim=(2, 3, 4))
print(len(g), type(g).__name__, [round(t.pow(2).mean().item(), 4) for t in g])
g2 = torch.gradient(disp[0, 0], spacing=(2.0, 0.5, 1.5), edge_order=2)
print([t[1, 2].round(decimals=4).tolist() for t in g2])
coords = torch.tensor([0.0, 1.0, 3.0, 4.0, 7.0, 8.0], dtype=torch.float64)
g3 = torch.gradient(disp[0, 0, 0, 0], spacing=(coords,))
print(g3[0].round(decimals=4))
g4 = torch.gradient(disp[0, 0, 0], spacing=[torch.arange(5.0).double(), coords], edge_order=1)
print(g4[1][2].round(decimals=4))

# diff variants
v = torch.tensor([1, 4, 9, 16, 25])
print(torch.diff(v), torch.diff(v, n=2), torch.diff(v, n=5), torch.diff(v, n=7).shape)
print(torch.diff(v, prepend=torch.tensor([0]), append=torch.tensor([36, 49])))
print(torch.diff(torch.tensor([True, False, False, True])), torch.diff(v.float(), n=2, prepend=v[:1].float()))
print(torch.diff(torch.tensor([1, 2], dtype=torch.uint8).flip(0)), torch.diff(v.to(torch.int8) * 10))


# bending energy with second derivatives (central differences), padded border
def bending(d):
    dxx = d[:, :, 2:, 1:-1, 1:-1] - 2 * d[:, :, 1:-1, 1:-1, 1:-1] + d[:, :, :-2, 1:-1, 1:-1]
    dyy = d[:, :, 1:-1, 2:, 1:-1] - 2 * d[:, :, 1:-1, 1:-1, 1:-1] + d[:, :, 1:-1, :-2, 1:-1]
    dzz = d[:, :, 1:-1, 1:-1, 2:] - 2 * d[:, :, 1:-1, 1:-1, 1:-1] + d[:, :, 1:-1, 1:-1, :-2]
    dxy = d[:, :, 2:, 2:, 1:-1] - d[:, :, 2:, :-2, 1:-1] - d[:, :, :-2, 2:, 1:-1] + d[:, :, :-2, :-2, 1:-1]
    return (dxx**2 + dyy**2 + dzz**2 + 2 * (dxy / 4) ** 2).mean()


for mode in ("constant", "replicate", "reflect", "circular"):
    p = F.pad(disp, (1, 1, 1, 1, 1, 1), mode=mode)
    print(mode, tuple(p.shape), round(bending(p).item(), 4), p[0, 0, 0, 0, :3].round(decimals=4).tolist())
print("value", F.pad(disp, (1, 0), value=-1.0)[0, 0, 0, 0, :2].tolist())
print("negative", F.pad(disp, (-1, -2, 0, 1)).shape, F.pad(disp, (-1, -2, 0, 1, 0, 0), mode="replicate").shape)
x = disp.clone().requires_grad_(True)
be = bending(F.pad(x, (1, 1, 1, 1, 1, 1), mode="replicate"))
be.backward()
print("be grad", round(x.grad.abs().sum().item(), 4), x.grad[0, 0, 0, 0, :3].round(decimals=4).tolist())
x.grad = None
F.pad(x, (2, 2, 2, 2, 2, 2), mode="reflect").sum().backward()
print("reflect grad counts", x.grad[0, 0, :, 0, 0].tolist(), x.grad[0, 0, 1, 2].tolist())
x.grad = None
F.pad(x, (3, 3, 0, 0, 0, 0), mode="circular").sum().backward()
print("circular grad", x.grad[0, 0, 0, 0].tolist())
print(F.pad(torch.arange(6.0).view(1, 2, 3), (2, 1), mode="reflect"))
print(F.pad(torch.arange(6.0).view(2, 3), (2, 1), mode="replicate"))
print(F.pad(torch.arange(4).view(1, 1, 4), (1, 1), mode="circular"))
print(F.pad(torch.arange(4).view(1, 1, 4), (1, 1), mode="replicate").dtype)

cases = [
    lambda: F.pad(disp, (4, 0), mode="reflect"),
    lambda: F.pad(disp, (7, 0), mode="circular"),
    lambda: F.pad(disp, (1, 1, 1), mode="constant"),
    lambda: F.pad(disp, (1, 1), mode="wrap"),
    lambda: F.pad(disp[0, 0, 0], (1, 1), mode="reflect"),
    lambda: F.pad(disp, (1, 1, 1, 1, 1, 1, 1, 1), mode="replicate"),
    lambda: F.pad(disp, (1, 1), mode="replicate", value=2.0),
    lambda: F.pad(disp, (-7, 0)),
    lambda: F.pad(torch.zeros(1, 1, 0, 3), (1, 1, 0, 0), mode="reflect"),
    lambda: F.pad(torch.zeros(1, 1, 3), (1, 1), mode="reflect").long(),
    lambda: F.pad(torch.arange(4).view(1, 1, 4), (1, 1), mode="reflect"),
    lambda: torch.diff(v, dim=1),
    lambda: torch.diff(torch.tensor(3.0)),
    lambda: torch.diff(v, prepend=torch.tensor([[0]])),
    lambda: torch.diff(v, prepend=torch.tensor([0.5])),
    lambda: torch.gradient(torch.arange(2.0), edge_order=2),
    lambda: torch.gradient(v.float(), spacing=(1.0, 2.0)),
    lambda: torch.gradient(v.float(), edge_order=3),
    lambda: torch.gradient(v, spacing=2),
    lambda: torch.gradient(v.float(), spacing=[torch.arange(4.0)]),
]
for i, fn in enumerate(cases):
    try:
        r = fn()
        print(i, "ok", r if not isinstance(r, torch.Tensor) else (tuple(r.shape), r.dtype))
    except Exception as e:
        print(i, type(e).__name__, str(e).split("\n")[0][:160])
