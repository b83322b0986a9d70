"""N:M semi-structured sparsity as sparse-training code writes it: 2:4 masks from topk over groups of four along
the input dim with scatter_, SR-STE's custom autograd Function (sparse forward, dense straight-through gradient
with a decay on pruned weights), block sparsity by max-pooled block norms, masks as parametrizations, and the
checks on the resulting patterns."""

import torch
from torch.nn.utils import parametrize

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def nm_mask(w, n=2, m=4):
    out_f, in_f = w.shape
    groups = w.detach().abs().reshape(out_f, in_f // m, m)
    idx = groups.topk(n, dim=-1, largest=True, sorted=False).indices
    mask = torch.zeros_like(groups).scatter_(-1, idx, 1.0)
    return mask.reshape(out_f, in_f)


w = torch.randn(4, 8)
mask = nm_mask(w)
print("mask", mask.int().tolist())
print("per group", mask.view(4, 2, 4).sum(-1).int().tolist(), "density", mask.mean().item())
kept = (w * mask).abs().view(4, 2, 4)
dropped = (w * (1 - mask)).abs().view(4, 2, 4)
print("kept >= dropped", bool((kept.topk(2, -1).values.min(-1).values >= dropped.max(-1).values).all()))
print("1:4", nm_mask(w, 1, 4).sum().item(), "4:8", nm_mask(w, 4, 8).view(4, 1, 8).sum(-1).flatten().tolist())


class SRSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, weight, n, m, decay):
        mask = nm_mask(weight, n, m)
        ctx.save_for_backward(weight, mask)
        ctx.decay = decay
        return weight * mask

    @staticmethod
    def backward(ctx, grad):
        weight, mask = ctx.saved_tensors
        return grad + ctx.decay * (1 - mask) * weight, None, None, None


class SparseLinear(nn.Linear):
    def forward(self, x):
        return F.linear(x, SRSTE.apply(self.weight, 2, 4, 2e-4), self.bias)


torch.manual_seed(1)
layer = SparseLinear(8, 3)
x, y = torch.randn(16, 8), torch.randn(16, 3)
out = layer(x)
print("grad_fn", out.grad_fn.name(), [None if f is None else f.name() for f, _ in out.grad_fn.next_functions])
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
flips = []
prev = nm_mask(layer.weight)
for step in range(6):
    loss = F.mse_loss(layer(x), y)
    opt.zero_grad()
    loss.backward()
    dense_grad = layer.weight.grad.clone()
    opt.step()
    cur = nm_mask(layer.weight)
    flips.append(int((cur != prev).sum()))
    prev = cur
    print(step, round(loss.item(), 4), "grad on pruned", bool((dense_grad * (1 - cur) != 0).any()))
print("mask flips", flips)

# gradcheck flags the straight-through rule: its dense gradient is not the masked Jacobian
wd = torch.tensor([[0.9, -0.1, 0.5, 0.05, -1.2, 0.3, 0.02, 0.7]], dtype=torch.float64, requires_grad=True)
try:
    torch.autograd.gradcheck(lambda t: SRSTE.apply(t, 2, 4, 0.0), (wd,), eps=1e-6, atol=1e-4)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print("no raise", torch.autograd.gradcheck(lambda t: SRSTE.apply(t, 2, 4, 0.0), (wd,), raise_exception=False))
print("masked part ok", torch.autograd.gradcheck(lambda t: t * nm_mask(t), (wd,), eps=1e-6, atol=1e-4))

# block sparsity: keep the strongest 2x2 blocks by L2 norm
W = torch.randn(6, 8)
norms = F.avg_pool2d(W.pow(2).unsqueeze(0), 2, stride=2).squeeze(0).mul(4).sqrt()
thr = norms.flatten().kthvalue(norms.numel() // 2).values
block_mask = (norms > thr).float().repeat_interleave(2, 0).repeat_interleave(2, 1)
print("block norms", tuple(norms.shape), "kept blocks", int((norms > thr).sum()), "density", block_mask.mean().item())
unf = F.unfold((W * block_mask).view(1, 1, 6, 8), kernel_size=2, stride=2)
print("blocks all-or-nothing", bool(((unf != 0).sum(1) % 4 == 0).all() | ((unf != 0).sum(1) <= 4).all()))


class NMMask(nn.Module):
    def forward(self, w):
        return w * nm_mask(w)


lin = nn.Linear(8, 4)
parametrize.register_parametrization(lin, "weight", NMMask())
print(type(lin).__name__, parametrize.is_parametrized(lin, "weight"), list(lin.parametrizations.keys()))
print("pattern", lin.weight.ne(0).view(4, 2, 4).sum(-1).unique().tolist())
print("orig keys", sorted(lin.state_dict()))
parametrize.remove_parametrizations(lin, "weight", leave_parametrized=True)
print("after remove", sorted(lin.state_dict()), float((lin.weight == 0).float().mean()))
for call in [lambda: nm_mask(torch.randn(4, 6)), lambda: torch.randn(2, 4).topk(5, dim=-1),
             lambda: torch.zeros(2, 4).scatter_(-1, torch.tensor([[0, 4]]), 1.0)]:
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
