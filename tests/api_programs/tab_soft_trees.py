"""Differentiable soft decision trees and an oblivious-tree ensemble (NODE-style) trained by gradient boosting steps."""
import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class SoftTree(nn.Module):
    """A complete binary tree of depth d: sigmoid routing at inner nodes, leaf values mixed by path probability."""

    def __init__(self, n_in, depth, n_out, temperature=1.0):
        super().__init__()
        self.depth = depth
        self.inner = nn.Linear(n_in, 2 ** depth - 1)
        self.leaves = nn.Parameter(torch.randn(2 ** depth, n_out) * 0.1)
        self.register_buffer("temperature", torch.tensor(temperature))

    def path_probs(self, x):
        p = torch.sigmoid(self.inner(x) / self.temperature)
        mu = x.new_ones(x.shape[0], 1)
        begin = 0
        for level in range(self.depth):
            n = 2 ** level
            node = p[:, begin:begin + n]
            mu = torch.stack([mu * node, mu * (1 - node)], dim=2).flatten(1)
            begin += n
        return mu

    def forward(self, x):
        return self.path_probs(x) @ self.leaves


class ODST(nn.Module):
    """Oblivious trees: every level of a tree shares one soft feature choice and threshold."""

    def __init__(self, n_in, n_trees, depth):
        super().__init__()
        self.feature_logits = nn.Parameter(torch.randn(n_in, n_trees, depth))
        self.thresholds = nn.Parameter(torch.zeros(n_trees, depth))
        self.log_temp = nn.Parameter(torch.zeros(n_trees, depth))
        self.response = nn.Parameter(torch.randn(n_trees, 2 ** depth) * 0.1)
        codes = torch.arange(2 ** depth)
        bits = (codes[:, None] >> torch.arange(depth - 1, -1, -1)) & 1
        self.register_buffer("bin_codes", bits.T.float())  # depth x leaves

    def forward(self, x):
        sel = torch.softmax(self.feature_logits, dim=0)
        fv = torch.einsum("bi,ind->bnd", x, sel)
        t = (fv - self.thresholds) * torch.exp(-self.log_temp)
        right = torch.sigmoid(t)
        bins = torch.stack([1 - right, right], dim=-1)  # b n d 2
        codes = self.bin_codes.T.long()  # leaves x depth
        per_level = bins[..., torch.arange(bins.shape[2])[None, :], codes]  # b n leaves depth
        leaf_prob = per_level.prod(-1)
        return torch.einsum("bnl,nl->b", leaf_prob, self.response)


X = torch.randn(64, 3)
y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).float()
tree = SoftTree(3, depth=3, n_out=1, temperature=0.5)
mu = tree.path_probs(X)
print("paths", tuple(mu.shape), mu.sum(1).sub(1).abs().max().item() < 1e-5, mu.grad_fn.name())
print(tree, tree.temperature.item(), [n for n, _ in tree.named_buffers()])
opt = torch.optim.Adam(tree.parameters(), lr=0.05)
for step in range(30):
    opt.zero_grad()
    loss = F.binary_cross_entropy_with_logits(tree(X).squeeze(1), y)
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print("tree", step, round(loss.item(), 4))
acc = ((tree(X).squeeze(1) > 0).float() == y).float().mean()
print("tree acc", round(acc.item(), 4), "leaf usage", tree.path_probs(X).argmax(1).bincount(minlength=8).tolist())

odst = ODST(3, n_trees=4, depth=2)
print("bin codes", odst.bin_codes.tolist())
out = odst(X)
print("odst", tuple(out.shape), out.grad_fn.name())
# boosting: each new ensemble fits the residual of the frozen previous ones
ensembles, pred = [], torch.zeros(64)
for stage in range(3):
    m = ODST(3, n_trees=4, depth=2)
    o = torch.optim.SGD(m.parameters(), lr=0.5, momentum=0.9, nesterov=True)
    residual = y - torch.sigmoid(pred)
    for _ in range(20):
        o.zero_grad()
        l = F.mse_loss(m(X), residual)
        l.backward()
        o.step()
    with torch.no_grad():
        pred = pred + m(X)
    m.requires_grad_(False)
    ensembles.append(m)
    print("stage", stage, round(l.item(), 4), round(F.binary_cross_entropy_with_logits(pred, y).item(), 4))
print("frozen", all(not p.requires_grad for e in ensembles for p in e.parameters()))
print("einsum forms", torch.einsum("bi,ind->bnd", X[:2], torch.softmax(odst.feature_logits, 0)).shape,
      torch.einsum(X[:2], [0, 1], odst.feature_logits, [1, 2, 3], [0, 2, 3]).shape)
print("einsum ellipsis", torch.einsum("...i,i->...", X.view(8, 8, 3), torch.ones(3)).shape)
for name, fn in [
    ("einsum mismatch", lambda: torch.einsum("bi,ind->bnd", X, odst.feature_logits[:2])),
    ("einsum bad subscript", lambda: torch.einsum("b1,ij->bj", X, X)),
    ("einsum operands", lambda: torch.einsum("bi,ij->bj", X)),
]:
    try:
        fn()
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
