"""Gradient accumulation for adapter training: scaled micro-batches, checkpointed frozen blocks, clipping, hooks."""

import torch

nn = torch.nn
F = torch.nn.functional
from torch.utils.checkpoint import checkpoint  # noqa: E402

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.lora_A = nn.Parameter(torch.randn(2, d) * 0.1)
        self.lora_B = nn.Parameter(torch.randn(d, 2) * 0.1)

    def forward(self, x):
        return x + torch.tanh(self.fc(x) + x @ self.lora_A.t() @ self.lora_B.t())


class Model(nn.Module):
    def __init__(self, d=6, n=3, use_ckpt=False, reentrant=False):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(n))
        self.head = nn.Linear(d, 2)
        self.use_ckpt, self.reentrant = use_ckpt, reentrant

    def forward(self, x):
        for b in self.blocks:
            x = checkpoint(b, x, use_reentrant=self.reentrant) if self.use_ckpt else b(x)
        return self.head(x)


def make(**kw):
    torch.manual_seed(0)
    m = Model(**kw)
    for n, p in m.named_parameters():
        p.requires_grad_("lora" in n or n.startswith("head"))
    return m


X = torch.randn(8, 6)
Y = torch.randint(0, 2, (8,))

# full batch vs 4 micro-batches of 2 with loss / accum
full = make()
F.cross_entropy(full(X), Y).backward()
acc = make()
accum = 4
for i in range(accum):
    xb, yb = X[2 * i : 2 * i + 2], Y[2 * i : 2 * i + 2]
    (F.cross_entropy(acc(xb), yb) / accum).backward()
same = all(
    torch.allclose(a.grad, b.grad, atol=1e-6) for a, b in zip(full.parameters(), acc.parameters()) if a.requires_grad
)
print("accumulated == full batch", same)
print("frozen grads", [p.grad for n, p in acc.named_parameters() if not p.requires_grad][:2])

# checkpointing frozen blocks: non-reentrant gives adapter grads
ck = make(use_ckpt=True)
F.cross_entropy(ck(X), Y).backward()
print(
    "ckpt grads match",
    all(
        torch.allclose(a.grad, b.grad, atol=1e-6) for a, b in zip(full.parameters(), ck.parameters()) if a.requires_grad
    ),
)
re = make(use_ckpt=True, reentrant=True)
out = re(X)
print("reentrant out grad_fn", out.grad_fn.name())
F.cross_entropy(out, Y).backward()
print("reentrant lora grad", re.blocks[0].lora_A.grad, "head grad ok", re.head.weight.grad is not None)
re2 = make(use_ckpt=True, reentrant=True)
Xg = X.clone().requires_grad_(True)
F.cross_entropy(re2(Xg), Y).backward()
print("with input grad", re2.blocks[0].lora_A.grad is not None, round(Xg.grad.abs().sum().item(), 4))

# a training loop with accumulation, clipping and set_to_none
model = make()
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=0.05, weight_decay=0.01)
norms = []
for step in range(8):
    xb, yb = X[(step % 4) * 2 : (step % 4) * 2 + 2], Y[(step % 4) * 2 : (step % 4) * 2 + 2]
    loss = F.cross_entropy(model(xb), yb) / 2
    loss.backward()
    if (step + 1) % 2 == 0:
        total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
        norms.append(round(total.item(), 4))
        opt.step()
        opt.zero_grad(set_to_none=True)
print("norms", norms)
print("grads cleared", all(p.grad is None for p in model.parameters()))
with torch.no_grad():
    print("final loss", round(F.cross_entropy(model(X), Y).item(), 4))

# clip utilities
params = [p for p in model.parameters() if p.requires_grad]
F.cross_entropy(model(X), Y).backward()
grads = [p.grad for p in params]
tn = torch.nn.utils.get_total_norm(grads, norm_type=2.0)
print("total norm", round(tn.item(), 4), round(torch.nn.utils.get_total_norm(grads, norm_type="inf").item(), 4))
torch.nn.utils.clip_grads_with_norm_(params, max_norm=0.1, total_norm=tn)
print("after clip", round(torch.nn.utils.get_total_norm([p.grad for p in params]).item(), 4))
torch.nn.utils.clip_grad_value_(params, clip_value=0.01)
print("max abs", round(max(p.grad.abs().max().item() for p in params), 4))
print("empty", torch.nn.utils.clip_grad_norm_([], 1.0))
params[0].grad[0, 0] = float("nan")
try:
    torch.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print(type(e).__name__, e)
print("nan norm", torch.nn.utils.clip_grad_norm_(params, 1.0).isnan().item())

# post-accumulate-grad hooks: step each adapter as soon as its grad is ready
model = make()
opt_map = {p: torch.optim.SGD([p], lr=0.1) for p in model.parameters() if p.requires_grad}
fired = []


def hook(p):
    fired.append(tuple(p.shape))
    opt_map[p].step()
    opt_map[p].zero_grad()


handles = [p.register_post_accumulate_grad_hook(hook) for p in opt_map]
F.cross_entropy(model(X), Y).backward()
print(fired)
print("grads consumed", all(p.grad is None for p in opt_map))
for h in handles:
    h.remove()
try:
    (model.head.weight * 2).register_post_accumulate_grad_hook(hook)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    checkpoint(model.blocks[0], X)
except Exception as e:
    print(type(e).__name__, str(e)[:120])
