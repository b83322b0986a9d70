"""Mixed freezing of CLIP towers (LiT-style locked image tower, partially unlocked text layers): requires_grad_
on submodules, eval() for frozen norms, optimizer groups over trainable parameters only, no-weight-decay
groups for gains/biases/logit_scale, parameter counts, state_dict filtering and the grads that stay None."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Tower(nn.Module):
    def __init__(self, din, d, n_layers):
        super().__init__()
        self.stem = nn.Linear(din, d)
        self.layers = nn.ModuleList(
            [nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d), nn.GELU()) for _ in range(n_layers)]
        )
        self.bn = nn.BatchNorm1d(d)
        self.head = nn.Linear(d, 6, bias=False)

    def forward(self, x):
        x = self.stem(x)
        for layer in self.layers:
            x = x + layer(x)
        return self.head(self.bn(x))

    def lock(self, unlocked_groups=0, freeze_bn_stats=False):
        for p in self.parameters():
            p.requires_grad = False
        groups = [self.stem, *self.layers, [self.bn, self.head]]
        for g in groups[len(groups) - unlocked_groups :] if unlocked_groups else []:
            for m in g if isinstance(g, list) else [g]:
                m.requires_grad_(True)
        if freeze_bn_stats:
            for m in self.modules():
                if isinstance(m, nn.BatchNorm1d):
                    m.eval()


class CLIP(nn.Module):
    def __init__(self):
        super().__init__()
        self.visual = Tower(10, 12, 3)
        self.text = Tower(7, 12, 2)
        self.logit_scale = nn.Parameter(torch.ones([]) * 2.6593)

    def forward(self, img, txt):
        a = F.normalize(self.visual(img), dim=-1)
        b = F.normalize(self.text(txt), dim=-1)
        return self.logit_scale.exp() * a @ b.T


def count(m, trainable=None):
    return sum(p.numel() for p in m.parameters() if trainable is None or p.requires_grad == trainable)


model = CLIP()
print("total", count(model), "visual", count(model.visual), "text", count(model.text))
model.visual.lock(unlocked_groups=0, freeze_bn_stats=True)
model.text.lock(unlocked_groups=2)
print("trainable", count(model, True), "frozen", count(model, False))
print("trainable names", [n for n, p in model.named_parameters() if p.requires_grad])
model.train()
model.visual.lock(freeze_bn_stats=True)
print("bn training", model.visual.bn.training, model.text.bn.training, model.training)

exclude = lambda n, p: p.ndim < 2 or "bn" in n or "logit_scale" in n
named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
gain_or_bias = [p for n, p in named if exclude(n, p)]
rest = [p for n, p in named if not exclude(n, p)]
opt = torch.optim.AdamW(
    [{"params": gain_or_bias, "weight_decay": 0.0}, {"params": rest, "weight_decay": 0.2}],
    lr=1e-2,
    betas=(0.9, 0.98),
    eps=1e-6,
)
print("groups", [len(g["params"]) for g in opt.param_groups], [g["weight_decay"] for g in opt.param_groups])
print(opt)

img, txt = torch.randn(6, 10), torch.randn(6, 7)
labels = torch.arange(6)
vis_before = {k: v.clone() for k, v in model.visual.state_dict().items()}
for step in range(3):
    opt.zero_grad()
    logits = model(img, txt)
    loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), round(model.logit_scale.item(), 4))

print(
    "visual grads",
    {n: p.grad for n, p in model.visual.named_parameters()}.get("stem.weight"),
    all(p.grad is None for p in model.visual.parameters()),
)
print("text stem grad", model.text.stem.weight.grad, "text head grad", tuple(model.text.head.weight.grad.shape))
print("visual unchanged", all(torch.equal(vis_before[k], v) for k, v in model.visual.state_dict().items()))
print("bn running stats", model.visual.bn.num_batches_tracked.item(), model.text.bn.num_batches_tracked.item())
print("opt state sizes", len(opt.state), sorted(len(s) for s in opt.state.values())[:2])

# saving only the trainable part
sd = {k: v for k, v in model.state_dict().items() if not k.startswith("visual.")}
print("partial keys", len(sd), list(sd)[:4])
fresh = CLIP()
res = fresh.load_state_dict(sd, strict=False)
print("missing", len(res.missing_keys), res.missing_keys[:3], "unexpected", res.unexpected_keys)
print("loaded", torch.equal(fresh.text.head.weight, model.text.head.weight), round(fresh.logit_scale.item(), 4))

# a frozen tower under torch.no_grad vs requires_grad False: same values, no graph
with torch.no_grad():
    f1 = model.visual(img)
f2 = model.visual(img)
print("no graph", f1.requires_grad, f2.requires_grad, f2.grad_fn, torch.equal(f1, f2))
model.visual.requires_grad_()
print("unfrozen", count(model, True))
try:
    torch.optim.AdamW([{"params": rest}, {"params": rest[:1]}])
except Exception as e:
    print(type(e).__name__, e)
try:
    fresh.load_state_dict(sd)
except Exception as e:
    print(type(e).__name__, str(e)[:160])
try:
    model.logit_scale.requires_grad_(True)
    (model.logit_scale.detach() * 2).backward()
except Exception as e:
    print(type(e).__name__, e)
