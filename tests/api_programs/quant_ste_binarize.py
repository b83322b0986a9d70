"""Straight-through estimators as papers write them: the detach trick for rounding, a custom autograd Function
with a clipped STE (BinaryConnect / BNN sign), XNOR-Net's scaled binary weights, ternary weights (TWN) and a
tiny binarized MLP trained for a few steps."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def round_ste(x):
    """Round in the forward, identity in the backward (the detach trick)."""
    return x + (x.round() - x).detach()


x = torch.tensor([-1.6, -0.5, 0.2, 0.5, 1.5, 2.49], requires_grad=True)
y = round_ste(x * 2) / 2
print("round_ste", y.tolist(), type(y.grad_fn).__name__)
(y * torch.tensor([1.0, 2, 3, 4, 5, 6])).sum().backward()
print("grad", x.grad.tolist())


class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x >= 0, torch.ones_like(x), -torch.ones_like(x))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x.abs() <= 1).to(g.dtype)


x = torch.tensor([-2.0, -0.7, 0.0, 0.3, 1.0, 1.2], requires_grad=True)
b = SignSTE.apply(x)
print("sign", b.tolist(), type(b.grad_fn).__name__)
b.sum().backward()
print("clipped STE grad", x.grad.tolist())
print("torch.sign at 0", torch.sign(torch.tensor([0.0, -0.0])).tolist())

# hardtanh-based STE as in BNN code: forward sign, backward hardtanh'
x.grad = None
h = F.hardtanh(x)
b2 = h + (torch.sign(h) - h).detach()
b2.backward(torch.ones(6))
print("hardtanh STE", b2.tolist(), x.grad.tolist())


def xnor_weight(w):
    alpha = w.abs().mean(dim=(1, 2, 3), keepdim=True)
    return alpha * SignSTE.apply(w), alpha


w = torch.randn(3, 2, 3, 3, requires_grad=True)
wb, alpha = xnor_weight(w)
print("xnor alpha", alpha.flatten().round(decimals=4).tolist())
print("xnor distinct per filter", [torch.unique(wb[i].detach()).numel() for i in range(3)])


def ternarize(w, t=0.7):
    delta = t * w.abs().mean()
    mask = (w.abs() > delta).float()
    alpha = (w.abs() * mask).sum() / mask.sum()
    return alpha * torch.sign(w) * mask, delta, alpha


wt, delta, a = ternarize(w.detach())
print("ternary delta/alpha", round(delta.item(), 4), round(a.item(), 4))
vals, counts = torch.unique(wt.sign(), return_counts=True)
print("ternary levels", vals.tolist(), counts.tolist())


class BinaryLinear(nn.Linear):
    def forward(self, x):
        wb = self.weight + (torch.sign(self.weight) - self.weight).detach()
        return F.linear(x, wb * self.weight.abs().mean(), self.bias)


X = torch.randn(64, 8)
Y = (X[:, :4].sum(1) > X[:, 4:].sum(1)).long()
model = nn.Sequential(BinaryLinear(8, 16), nn.BatchNorm1d(16), nn.Hardtanh(), BinaryLinear(16, 2))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(30):
    loss = F.cross_entropy(model(X), Y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for m in model:
            if isinstance(m, BinaryLinear):
                m.weight.clamp_(-1, 1)
    if step % 10 == 0 or step == 29:
        print("step", step, "loss", round(loss.item(), 4))
model.eval()
acc = (model(X).argmax(1) == Y).float().mean().item()
print("train acc", round(acc, 4))
print("weights in [-1,1]", all(m.weight.abs().max().item() <= 1 for m in model if isinstance(m, BinaryLinear)))


# misuse: a Function's backward returning too many gradients
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.sign()

    @staticmethod
    def backward(ctx, g):
        return g, g


try:
    Bad.apply(torch.ones(2, requires_grad=True)).sum().backward()
except Exception as e:
    print(type(e).__name__, e)
