"""Strided nested tensors (components ragged in every dim): per-component products, attention by hand, gradients."""
import math

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

# sequences of different lengths and images of different sizes
seqs = [torch.randn(n, 8) for n in (3, 6, 4)]
imgs = [torch.randn(h, w) for h, w in ((3, 5), (4, 2), (2, 6))]
q = torch.nested.nested_tensor(seqs, requires_grad=True)
im = torch.nested.nested_tensor(imgs)
print(q.dim(), q.size(0), q.size(2), q.is_leaf, q.requires_grad)
print([tuple(t.shape) for t in im.unbind()], im.numel(), im.size(0))
for d in (1, 2):
    try:
        im.size(d)
    except RuntimeError as e:
        print("RuntimeError", e)

# attention by hand, per sequence: scores (n x n), softmax over the last dim, weighted values
scores = torch.matmul(q, q.transpose(1, 2)) / math.sqrt(8)
print([tuple(s.shape) for s in scores.unbind()], type(scores.grad_fn).__name__)
w = scores.softmax(-1)
out = torch.bmm(w, q)
print([round(o.sum().item(), 4) for o in out.unbind()])
ref = [torch.softmax(s @ s.T / math.sqrt(8), -1) @ s for s in seqs]
print(all(torch.allclose(o, r, atol=1e-5) for o, r in zip(out.unbind(), ref)))

# a linear projection and layer norm on the last (regular) dim
lin = nn.Linear(8, 4)
ln = nn.LayerNorm(4)
h = ln(F.relu(lin(out)))
print([tuple(t.shape) for t in h.unbind()], type(h.grad_fn).__name__)
print(h.to_padded_tensor(0.0).shape, h.to_padded_tensor(0.0, output_size=(3, 8, 4)).sum().item().__round__(4))

# gradients: the leaf's .grad is a nested tensor of the leaf's shapes
loss = h.to_padded_tensor(0.0).pow(2).sum() + (out * out).sum(-1, keepdim=True).to_padded_tensor(0.0).sum()
loss.backward()
print(q.grad.is_nested, [tuple(g.shape) for g in q.grad.unbind()])
print([round(g.abs().sum().item(), 2) for g in q.grad.unbind()], round(lin.weight.grad.abs().sum().item(), 3))

# per-component check against dense autograd
dense = [s.clone().requires_grad_() for s in seqs]
total = 0
for s in dense:
    o = torch.softmax(s @ s.T / math.sqrt(8), -1) @ s
    total = total + ln(F.relu(lin(o))).pow(2).sum() + (o * o).sum()
total.backward()
print(all(torch.allclose(g, d.grad, atol=1e-4) for g, d in zip(q.grad.unbind(), dense)))

# elementwise with scalars and another nested tensor of the same shapes; chunk on the last dim
z = (im * 2 - 1).abs() + im
print([round(t.sum().item(), 4) for t in z.unbind()])
halves = torch.nested.nested_tensor([torch.randn(2, 4), torch.randn(3, 4)]).chunk(2, -1)
print(len(halves), [tuple(t.shape) for t in halves[1].unbind()])
print(q.detach().requires_grad, q.clone().requires_grad, q.to(torch.float64).dtype)
print(torch.nested.nested_tensor([torch.ones(2), torch.zeros(3)], dtype=torch.float64))

# what the strided layout refuses
for bad in (lambda: im + torch.ones(1), lambda: im + torch.nested.nested_tensor(imgs[:2]), lambda: im.exp(),
            lambda: im.softmax(0), lambda: F.log_softmax(im, -1), lambda: im.sum(1, keepdim=True),
            lambda: im.sum(dim=(1, 2)), lambda: F.layer_norm(im, (5,)), lambda: torch.matmul(im, torch.ones(5, 2)),
            lambda: im.unbind(1), lambda: im[:, 0]):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e)[:100])
