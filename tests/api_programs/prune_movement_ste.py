"""Movement pruning with learned scores: a parametrization multiplies the weight by a top-k mask of its
scores, a straight-through autograd Function passes the gradient to the scores, and the learned mask is
finally frozen into torch.nn.utils.prune with custom_from_mask and made permanent."""

import torch
import torch.nn.utils.parametrize as parametrize
import torch.nn.utils.prune as prune

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class TopKBinarizer(torch.autograd.Function):
    @staticmethod
    def forward(ctx, scores, keep):
        flat = scores.flatten()
        k = int(keep * flat.numel())
        mask = torch.zeros_like(flat)
        mask[flat.topk(k).indices] = 1.0
        return mask.view_as(scores)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class MovementMask(nn.Module):
    def __init__(self, shape, keep):
        super().__init__()
        self.scores = nn.Parameter(torch.zeros(shape))
        self.keep = keep

    def forward(self, W):
        return W * TopKBinarizer.apply(self.scores, self.keep)

    def mask(self):
        with torch.no_grad():
            return TopKBinarizer.apply(self.scores, self.keep)


model = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Linear(16, 3))
with torch.no_grad():
    for layer in (model[0], model[2]):
        layer.weight.mul_(2.0)
for layer in (model[0], model[2]):
    parametrize.register_parametrization(layer, "weight", MovementMask(layer.weight.shape, keep=0.5))
    nn.init.constant_(layer.parametrizations.weight[0].scores, 0.0)
    with torch.no_grad():
        layer.parametrizations.weight[0].scores.add_(layer.parametrizations.weight.original.abs() * 1e-3)

print([n for n, p in model.named_parameters()])
score_params = [p for n, p in model.named_parameters() if n.endswith("scores")]
weight_params = [p for n, p in model.named_parameters() if not n.endswith("scores")]
opt = torch.optim.Adam([{"params": weight_params, "lr": 0.01}, {"params": score_params, "lr": 0.05}])
print([len(g["params"]) for g in opt.param_groups], [g["lr"] for g in opt.param_groups])

x = torch.randn(48, 6)
y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
start_masks = [layer.parametrizations.weight[0].mask().clone() for layer in (model[0], model[2])]
for step in range(40):
    opt.zero_grad()
    with parametrize.cached():
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    if step % 13 == 0:
        g = model[0].parametrizations.weight[0].scores.grad
        print(step, round(loss.item(), 4), "score grad", round(g.abs().sum().item(), 4))
acc = (model(x).argmax(1) == y).float().mean()
print("acc", round(acc.item(), 4), model[0].weight.grad_fn.name())
for i, layer in zip((0, 2), (model[0], model[2])):
    m = layer.parametrizations.weight[0].mask()
    changed = int((m != start_masks[0 if i == 0 else 1]).sum())
    print(
        "layer",
        i,
        "kept",
        int(m.sum()),
        "of",
        m.numel(),
        "changed",
        changed,
        "zeros in weight",
        int(torch.sum(layer.weight == 0)),
    )

# freeze: bake the learned masks into prune's buffers and drop the scores
for layer in (model[0], model[2]):
    mask = layer.parametrizations.weight[0].mask()
    parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
    prune.custom_from_mask(layer, "weight", mask=mask)
print([n for n, _ in model.named_parameters()])
print([n for n, _ in model.named_buffers()])
print(type(model[0]).__name__, prune.is_pruned(model))
frozen_acc = (model(x).argmax(1) == y).float().mean()
print("frozen acc", round(frozen_acc.item(), 4))
for layer in (model[0], model[2]):
    prune.remove(layer, "weight")
sizes = [(int(torch.count_nonzero(l.weight)), l.weight.numel()) for l in (model[0], model[2])]
print("nonzero", sizes, "sparsity", round(1 - sum(a for a, _ in sizes) / sum(b for _, b in sizes), 4))
try:
    TopKBinarizer.apply(torch.zeros(2, 2), 2.0)
except Exception as e:
    print(type(e).__name__, e)
try:
    parametrize.remove_parametrizations(model[0], "weight")
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[-1])
