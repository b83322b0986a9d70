"""Neural style transfer as Gatys et al. run it: a small fixed feature extractor, Gram matrices (bmm and einsum,
normalised), content and style losses with per-layer weights, the image itself optimised by LBFGS with
line_search_fn='strong_wolfe' through a closure that clamps, LBFGS's state (func_evals, n_iter, history), its
state_dict round trip, and the options LBFGS refuses."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Features(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 8, 3, padding=1)
        self.c3 = nn.Conv2d(8, 16, 3, padding=1, stride=2)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_uniform_(m.weight, a=0.2)
                nn.init.constant_(m.bias, 0.01)

    def forward(self, x):
        f1 = F.relu(self.c1(x))
        f2 = F.relu(self.c2(f1))
        f3 = F.relu(self.c3(F.avg_pool2d(f2, 2)))
        return {"relu1": f1, "relu2": f2, "relu3": f3}


def gram(f):
    b, c, h, w = f.shape
    m = f.view(b, c, h * w)
    return torch.bmm(m, m.transpose(1, 2)) / (c * h * w)


def gram_einsum(f):
    return torch.einsum("bchw,bdhw->bcd", f, f) / f[0].numel()


feats = Features().eval().requires_grad_(False)
yy, xx = torch.meshgrid(torch.linspace(0, 1, 16), torch.linspace(0, 1, 16), indexing="ij")
content = torch.stack([xx, yy, (xx + yy) / 2]).unsqueeze(0)
style = torch.stack(
    [torch.sin(12 * xx) * 0.5 + 0.5, torch.cos(9 * yy) * 0.5 + 0.5, torch.sin(7 * (xx + yy)) * 0.5 + 0.5]
).unsqueeze(0)

with torch.no_grad():
    c_t = feats(content)["relu2"]
    s_t = {k: gram(v) for k, v in feats(style).items()}
print("grams", {k: (tuple(v.shape), round(v.sum().item(), 4)) for k, v in s_t.items()})
print("einsum == bmm", all(torch.allclose(gram(v), gram_einsum(v), atol=1e-6) for v in feats(style).values()))
print("symmetric", torch.allclose(s_t["relu3"], s_t["relu3"].transpose(1, 2)))
evals = torch.linalg.eigvalsh(s_t["relu1"][0].double())
print("psd", bool(evals.min() > -1e-9), round(evals.max().item(), 4))

style_w = {"relu1": 1.0, "relu2": 0.8, "relu3": 0.5}
img = content.clone().requires_grad_(True)
opt = torch.optim.LBFGS([img], lr=1, max_iter=10, history_size=5, line_search_fn="strong_wolfe")
print(type(opt).__name__, opt.defaults)
log = []


def closure():
    with torch.no_grad():
        img.clamp_(0, 1)
    opt.zero_grad()
    out = feats(img)
    c_loss = F.mse_loss(out["relu2"], c_t)
    s_loss = sum(style_w[k] * F.mse_loss(gram(out[k]), s_t[k], reduction="sum") for k in out)
    tv = (img[..., 1:, :] - img[..., :-1, :]).abs().mean() + (img[..., :, 1:] - img[..., :, :-1]).abs().mean()
    loss = c_loss + 1e3 * s_loss + 1e-3 * tv
    loss.backward()
    log.append((round(c_loss.item(), 5), round(s_loss.item(), 6)))
    return loss


for outer in range(3):
    loss = opt.step(closure)
    st = opt.state[img]
    print(
        "outer",
        outer,
        round(loss.item(), 4),
        "func_evals",
        st["func_evals"],
        "n_iter",
        st["n_iter"],
        "hist",
        len(st["old_dirs"]),
        "t",
        round(float(st["t"]), 4) > 0,
    )
with torch.no_grad():
    img.clamp_(0, 1)
print("first", log[0], "last", log[-1], "evals", len(log))
print("decreased", log[-1][1] < log[0][1])
print(
    "img range",
    round(img.min().item(), 4) >= 0,
    round(img.max().item(), 4) <= 1,
    img.requires_grad,
    img.grad is not None,
)

sd = opt.state_dict()
print("state keys", sorted(sd["state"][0].keys()))
print("param_groups", {k: v for k, v in sd["param_groups"][0].items() if k != "params"})
opt2 = torch.optim.LBFGS([img], lr=1, line_search_fn="strong_wolfe")
opt2.load_state_dict(sd)
print("loaded", opt2.state[img]["n_iter"], len(opt2.state[img]["old_stps"]))

# plain LBFGS without line search on a quadratic: converges to the mean image
target = style.clone()
z = torch.zeros_like(target, requires_grad=True)
o = torch.optim.LBFGS([z], lr=0.5, max_iter=20, tolerance_grad=1e-9, tolerance_change=1e-12)


def quad():
    o.zero_grad()
    l = (z - target).pow(2).sum()
    l.backward()
    return l


for _ in range(2):
    o.step(quad)
print("quad err", round((z - target).abs().max().item(), 4), o.state[z]["func_evals"])

for bad in [
    lambda: torch.optim.LBFGS([img], line_search_fn="armijo"),
    lambda: torch.optim.LBFGS([img, z]).step(),
    lambda: torch.optim.LBFGS([{"params": [img]}, {"params": [z]}]),
    lambda: torch.optim.LBFGS([img], lr=-1),
]:
    try:
        r = bad()
        print("ok", type(r).__name__)
    except Exception as e:
        print(type(e).__name__, e)
