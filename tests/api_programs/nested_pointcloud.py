"""Point clouds of different sizes as nested tensors: PointNet-style shared MLPs, max pooling, padding."""
import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

clouds = [torch.randn(n, 3) * s for n, s in ((6, 1.0), (4, 2.0), (9, 0.5), (5, 1.5))]

# strided layout: each cloud keeps its own shape; sizes only where regular
pts = torch.nested.nested_tensor(clouds)
print(pts.is_nested, pts.layout, pts.dim(), pts.size(0), pts.size(2), pts.numel())
for bad in (lambda: pts.size(1), lambda: pts.shape, lambda: pts + torch.ones(3), lambda: pts.sum(-1),
            lambda: pts.transpose(0, 1), lambda: pts.exp(), lambda: pts.chunk(2, 1)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e)[:120])
print(torch.nested.to_padded_tensor(pts, 0.0).shape)
print(torch.nested.to_padded_tensor(pts, -1.0, output_size=(4, 10, 4))[1, 3:5].tolist())

# per-cloud Gram matrices with bmm, and a softmax over the last dim
gram = torch.bmm(pts, pts.transpose(1, 2))
print([tuple(g.shape) for g in gram.unbind()], [round(g.trace().item(), 4) for g in gram.unbind()])
att = gram.softmax(-1)
print([round(a.sum().item(), 4) for a in att.unbind()])
print([round(v.item(), 4) for v in (pts * 2).sum(-1, keepdim=True).unbind()[0][:3].flatten()])

# jagged layout: one buffer of all points and offsets
x = torch.nested.as_nested_tensor(clouds, layout=torch.jagged)
print(x.shape[0], x.shape[2], x.offsets().tolist(), x.values().shape, x.is_contiguous())

# normalise each cloud: centre, then scale by its largest radius
centre = torch.stack([c.mean(0) for c in x.unbind()])
xc = x - centre.unsqueeze(1)
radius = torch.stack([c.norm(dim=-1).max() for c in xc.unbind()])
xn = xc / radius.view(-1, 1, 1)
print(radius.round(decimals=4).tolist())
print([round(c.norm(dim=-1).max().item(), 4) for c in xn.unbind()])

# a shared point-wise MLP (Linear/ReLU/LayerNorm on the last dim) and a symmetric max pool per cloud
mlp = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.LayerNorm(32), nn.Linear(32, 64), nn.GELU())
head = nn.Linear(64, 5)
feat = mlp(xn)
print(feat.shape[-1], type(feat.grad_fn).__name__, feat.values().shape)
pooled = feat.to_padded_tensor(float("-inf")).amax(1)
logits = head(pooled)
print(pooled.shape, logits.round(decimals=4)[:, :3].tolist())
labels = torch.tensor([0, 3, 1, 4])
loss = F.cross_entropy(logits, labels)
loss.backward()
print(round(loss.item(), 4), round(mlp[0].weight.grad.abs().sum().item(), 4),
      round(head.bias.grad.abs().sum().item(), 4))

# permutation invariance: shuffling the points of each cloud leaves the pooled features unchanged
perm = [torch.randperm(len(c)) for c in clouds]
xs = torch.nested.as_nested_tensor([c[p] for c, p in zip(xn.unbind(), perm)], layout=torch.jagged)
print(torch.allclose(mlp(xs).to_padded_tensor(float("-inf")).amax(1), pooled, atol=1e-6))

# points inside a radius, selected from a padded batch with a mask
padded = xn.detach().to_padded_tensor(0.0)
valid = torch.arange(padded.shape[1])[None] < torch.tensor([len(c) for c in clouds])[:, None]
inner = valid & (padded.norm(dim=-1) < 0.6)
print(inner.sum(1).tolist())
near = torch.nested.masked_select(padded[..., 0], inner)
print(near.shape[0], near.offsets().tolist(), near.values().round(decimals=4).tolist())

# features to other dtypes, and detached copies
f64 = feat.to(torch.float64)
print(f64.dtype, f64.offsets() is feat.offsets(), feat.detach().requires_grad, feat.requires_grad)
print([round(t.sum().item(), 3) for t in feat.detach().clone().unbind()])
