"""Point-cloud autoencoders and completion as FoldingNet/PCN code writes them: a PointNet encoder with
max-pooled global codes, a 2-D grid from meshgrid folded twice by shared MLPs on cat(code, grid), a PCN coarse
decoder with fine patches from repeat_interleave and grid tiling, Chamfer training with a decayed LR, the
nn.Module reprs, state_dict round trips through BytesIO, and printed parameter counts."""

import io

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self, code=32):
        super().__init__()
        self.mlp1 = nn.Sequential(nn.Conv1d(3, 16, 1), nn.BatchNorm1d(16), nn.ReLU(), nn.Conv1d(16, 32, 1))
        self.mlp2 = nn.Sequential(nn.Conv1d(64, 64, 1), nn.BatchNorm1d(64), nn.ReLU(), nn.Conv1d(64, code, 1))

    def forward(self, x):
        n = x.shape[2]
        f = self.mlp1(x)
        g = torch.max(f, dim=2, keepdim=True)[0]
        f = torch.cat([g.expand(-1, -1, n), f], dim=1)
        return torch.max(self.mlp2(f), dim=2)[0]


class FoldingDecoder(nn.Module):
    def __init__(self, code=32, grid=5):
        super().__init__()
        xs = torch.linspace(-0.3, 0.3, grid)
        gx, gy = torch.meshgrid(xs, xs, indexing="xy")
        self.register_buffer("grid", torch.stack([gx, gy], 0).reshape(2, -1), persistent=False)
        self.fold1 = nn.Sequential(nn.Conv1d(code + 2, 32, 1), nn.ReLU(), nn.Conv1d(32, 3, 1))
        self.fold2 = nn.Sequential(nn.Conv1d(code + 3, 32, 1), nn.ReLU(), nn.Conv1d(32, 3, 1))

    def forward(self, code):
        b, m = code.shape[0], self.grid.shape[1]
        c = code.unsqueeze(2).repeat(1, 1, m)
        g = self.grid.unsqueeze(0).expand(b, -1, -1)
        f1 = self.fold1(torch.cat([c, g], 1))
        return self.fold2(torch.cat([c, f1], 1)).transpose(1, 2)


class PCNDecoder(nn.Module):
    def __init__(self, code=32, coarse=8, grid=2):
        super().__init__()
        self.coarse, self.grid_size = coarse, grid
        self.mlp = nn.Sequential(nn.Linear(code, 64), nn.ReLU(inplace=True), nn.Linear(64, 3 * coarse))
        a = torch.linspace(-0.05, 0.05, grid)
        self.register_buffer("seed", torch.stack(torch.meshgrid(a, a, indexing="ij"), -1).view(1, -1, 2))
        self.final = nn.Sequential(nn.Conv1d(code + 2 + 3, 32, 1), nn.ReLU(inplace=True), nn.Conv1d(32, 3, 1))

    def forward(self, code):
        b, r = code.shape[0], self.grid_size**2
        coarse = self.mlp(code).view(b, self.coarse, 3)
        pts = coarse.repeat_interleave(r, dim=1)
        seed = self.seed.repeat(b, self.coarse, 1)
        feat = torch.cat([code.unsqueeze(1).expand(-1, self.coarse * r, -1), seed, pts], -1)
        return coarse, self.final(feat.transpose(1, 2)).transpose(1, 2) + pts


def chamfer(a, b):
    d = torch.cdist(a, b) ** 2
    return d.min(2)[0].mean() + d.min(1)[0].mean()


enc, fold, pcn = Encoder(), FoldingDecoder(), PCNDecoder()
print(fold)
print("buffers", [n for n, _ in fold.named_buffers()], [n for n, _ in pcn.named_buffers()])
print("state keys", [k for k in pcn.state_dict() if "seed" in k], "grid" in fold.state_dict())
print("params", sum(p.numel() for p in enc.parameters()), sum(p.numel() for p in fold.parameters()),
      sum(p.numel() for p in pcn.parameters() if p.requires_grad))

u = torch.rand(4, 64, 2) * 2 - 1
clouds = torch.cat([u, (u**2).sum(-1, keepdim=True) * 0.5], -1)
x = clouds.transpose(1, 2)
code = enc(x)
rec = fold(code)
coarse, fine = pcn(code)
print("code", code.shape, "fold", rec.shape, "coarse", coarse.shape, "fine", fine.shape)
print("repeat_interleave", torch.equal(coarse.repeat_interleave(4, 1)[:, ::4], coarse))

params = list(enc.parameters()) + list(fold.parameters()) + list(pcn.parameters())
opt = torch.optim.Adam(params, lr=2e-3, betas=(0.9, 0.999))
sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
for step in range(5):
    code = enc(x)
    coarse, fine = pcn(code)
    loss = chamfer(fold(code), clouds) + chamfer(coarse, clouds) + chamfer(fine, clouds)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(params, max_norm=5.0)
    opt.step()
    sched.step()
    print("step", step, round(loss.item(), 4), round(gn.item(), 4), round(sched.get_last_lr()[0], 6))

buf = io.BytesIO()
torch.save({"enc": enc.state_dict(), "fold": fold.state_dict(), "opt": opt.state_dict()}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
enc2, fold2 = Encoder(), FoldingDecoder()
print(enc2.load_state_dict(ck["enc"]), fold2.load_state_dict(ck["fold"]))
enc.eval(), enc2.eval(), fold.eval(), fold2.eval()
with torch.no_grad():
    same = torch.equal(fold2(enc2(x)), fold(enc(x)))
print("reloaded equal", same, len(ck["opt"]["state"]), ck["opt"]["param_groups"][0]["lr"].__round__(6))
try:
    fold2.load_state_dict({"fold1.0.weight": torch.zeros(1)}, strict=True)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
r = fold2.load_state_dict({k: v for k, v in ck["fold"].items() if k.startswith("fold1")}, strict=False)
print("missing", r.missing_keys, "unexpected", r.unexpected_keys)
