"""Fine-tuning and meta-learning optimizer idioms: layer-wise lr decay groups built from named_parameters (BEiT/ELECTRA
style) with no decay for norms and biases, gradual unfreezing where frozen parameters (grad None) are skipped and
keep no state, per-group lr read back after a scheduler, and SGD(differentiable=True) unrolled for a hypergradient
of the learning rate."""

import torch
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class Encoder(nn.Module):
    def __init__(self, dim=6, depth=3):
        super().__init__()
        self.embed = nn.Linear(4, dim)
        self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU())
                                    for _ in range(depth))
        self.head = nn.Linear(dim, 2)

    def forward(self, x):
        h = self.embed(x)
        for blk in self.blocks:
            h = h + blk(h)
        return self.head(h)


def layer_id(name, depth):
    if name.startswith("embed"):
        return 0
    if name.startswith("blocks."):
        return int(name.split(".")[1]) + 1
    return depth + 1


def llrd_groups(model, base_lr=1e-2, decay=0.5, wd=0.05):
    depth = len(model.blocks)
    groups = {}
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        lid = layer_id(name, depth)
        no_wd = p.ndim == 1
        key = (lid, no_wd)
        if key not in groups:
            groups[key] = {"params": [], "names": [], "lr": base_lr * decay ** (depth + 1 - lid),
                           "weight_decay": 0.0 if no_wd else wd, "layer": lid}
        groups[key]["params"].append(p)
        groups[key]["names"].append(name)
    return [groups[k] for k in sorted(groups)]


torch.manual_seed(1)
model = Encoder()
X, y = torch.randn(20, 4), torch.randint(0, 2, (20,))
groups = llrd_groups(model)
for g in groups:
    print(f"layer {g['layer']} lr {g['lr']:.5f} wd {g['weight_decay']} {g['names']}")
opt = torch.optim.AdamW(groups, lr=1e-2)
print("extra keys kept in groups:", sorted(set(opt.param_groups[0]) - set(opt.defaults)))
sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=4)

# gradual unfreezing: only the head trains first
for name, p in model.named_parameters():
    p.requires_grad_(name.startswith("head"))
for epoch in range(5):
    if epoch == 2:
        for p in model.blocks[-1].parameters():
            p.requires_grad_(True)
    if epoch == 3:
        for p in model.parameters():
            p.requires_grad_(True)
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(X), y)
    loss.backward()
    opt.step()
    sched.step()
    with_state = sum(1 for g in opt.param_groups for p in g["params"] if len(opt.state[p]) > 0)
    print(f"epoch {epoch} loss {loss.item():.4f} params with state {with_state} "
          f"lrs {[round(g['lr'], 5) for g in opt.param_groups[::2]]}")
print("embed step:", opt.state[model.embed.weight]["step"].item(), "head step:",
      opt.state[model.head.weight]["step"].item())
print("head:", model.head.weight.detach()[0])

# hypergradient of the learning rate through an unrolled differentiable SGD
torch.manual_seed(2)
w0 = torch.randn(3)
A, b = torch.randn(10, 3), torch.randn(10)
Av, bv = torch.randn(10, 3), torch.randn(10)
log_lr = torch.tensor(-2.0, requires_grad=True)
for outer in range(4):
    w = w0.clone().requires_grad_(True)
    inner = torch.optim.SGD([w], lr=log_lr.exp(), momentum=0.5, differentiable=True)
    params = [w]
    for _ in range(3):
        loss = ((A @ params[-1] - b) ** 2).mean()
        (g,) = torch.autograd.grad(loss, params[-1], create_graph=True)
        new = params[-1] - log_lr.exp() * g
        params.append(new)
    val = ((Av @ params[-1] - bv) ** 2).mean()
    (hyper,) = torch.autograd.grad(val, log_lr)
    with torch.no_grad():
        log_lr -= 0.5 * hyper
    print(f"outer {outer} val {val.item():.4f} dval/dlog_lr {hyper.item():.4f} lr {log_lr.exp().item():.4f}")
print("differentiable group flag:", inner.param_groups[0]["differentiable"], "lr is tensor:",
      torch.is_tensor(inner.param_groups[0]["lr"]))

# a differentiable SGD step keeps the graph to the parameter
p = torch.tensor([1.0, 2.0], requires_grad=True)
q = p * 1.0
q.retain_grad()
dopt = torch.optim.SGD([q], lr=0.1, differentiable=True)
(q**2).sum().backward(create_graph=True)
dopt.step()
print("after differentiable step:", q, q.grad_fn is not None)
