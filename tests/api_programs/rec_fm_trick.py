"""Factorization machines: the O(kn) pairwise trick against the naive O(kn^2) sum, field-aware offsets, training."""

import itertools

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(1)
torch.set_printoptions(precision=4)

field_dims = [5, 4, 6, 3]
offsets = torch.tensor((0, *torch.cumsum(torch.tensor(field_dims), 0)[:-1].tolist()), dtype=torch.long)
n_features = sum(field_dims)
print("offsets", offsets, "features", n_features)


class FeaturesLinear(nn.Module):
    def __init__(self, n, out=1):
        super().__init__()
        self.fc = nn.Embedding(n, out)
        self.bias = nn.Parameter(torch.zeros((out,)))

    def forward(self, x):
        return torch.sum(self.fc(x), dim=1) + self.bias


class FMInteraction(nn.Module):
    """0.5 * sum_k ((sum_i v_ik)^2 - sum_i v_ik^2): every pair once, in O(kn)."""

    def __init__(self, reduce_sum=True):
        super().__init__()
        self.reduce_sum = reduce_sum

    def forward(self, e):
        square_of_sum = torch.sum(e, dim=1) ** 2
        sum_of_square = torch.sum(e ** 2, dim=1)
        ix = square_of_sum - sum_of_square
        if self.reduce_sum:
            ix = torch.sum(ix, dim=1, keepdim=True)
        return 0.5 * ix


class FM(nn.Module):
    def __init__(self, n, k):
        super().__init__()
        self.embedding = nn.Embedding(n, k)
        nn.init.xavier_uniform_(self.embedding.weight.data)
        self.linear = FeaturesLinear(n)
        self.fm = FMInteraction()

    def forward(self, x):
        x = x + offsets.unsqueeze(0)
        out = self.linear(x) + self.fm(self.embedding(x))
        return out.squeeze(1)


def naive_pairwise(e):
    total = torch.zeros(e.shape[0])
    for a, b in itertools.combinations(range(e.shape[1]), 2):
        total = total + (e[:, a] * e[:, b]).sum(-1)
    return total


n = 64
X = torch.stack([torch.randint(0, d, (n,)) for d in field_dims], dim=1)
print("X", X.shape, X.dtype, X[:3].tolist())
model = FM(n_features, 6)
emb = model.embedding(X + offsets)
fast = model.fm(emb).squeeze(1)
slow = naive_pairwise(emb)
print("fm fast", fast[:4])
print("fm slow", slow[:4])
print("allclose", torch.allclose(fast, slow, atol=1e-6), "max diff", (fast - slow).abs().max().item() < 1e-5)

# triu_indices version of the same pairwise sum
rows, cols = torch.triu_indices(len(field_dims), len(field_dims), offset=1)
print("pairs", rows.tolist(), cols.tolist())
pair = (emb[:, rows] * emb[:, cols]).sum(-1)
print("pair matrix", pair.shape, torch.allclose(pair.sum(1), fast, atol=1e-6))

# gradient of the trick against gradient of the naive form
e1 = emb.detach().clone().requires_grad_(True)
e2 = emb.detach().clone().requires_grad_(True)
FMInteraction()(e1).sum().backward()
naive_pairwise(e2).sum().backward()
print("grad match", torch.allclose(e1.grad, e2.grad, atol=1e-5), e1.grad[0, 0])
# d/dv_i = sum_j v_j - v_i
manual = emb.detach().sum(1, keepdim=True) - emb.detach()
print("grad formula", torch.allclose(e1.grad, manual, atol=1e-6))

# synthetic CTR labels from a hidden FM
torch.manual_seed(2)
teacher = FM(n_features, 3)
with torch.no_grad():
    logits_true = teacher(X)
    y = (torch.sigmoid(logits_true) > 0.5).float()
print("positive rate", y.mean().item(), "labels", y[:12].tolist())

opt = torch.optim.Adagrad(model.parameters(), lr=0.1)
for step in range(60):
    logits = model(X)
    loss = F.binary_cross_entropy_with_logits(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0 or step == 59:
        acc = ((logits > 0).float() == y).float().mean()
        print(f"step {step:2d} loss {loss.item():.4f} acc {acc.item():.4f}")

print("linear weight", model.linear.fc.weight.shape, "bias", model.linear.bias.data)
print("emb norms by field", [round(model.embedding.weight[o:o + d].norm().item(), 4)
                             for o, d in zip(offsets.tolist(), field_dims)])
state = opt.state_dict()
print("adagrad state keys", sorted(state["state"][0].keys()), state["param_groups"][0]["initial_accumulator_value"])
print("sum sq", state["state"][0]["sum"].shape, round(state["state"][0]["sum"].sum().item(), 4))

# reduce_sum=False keeps the k-dim interaction vector (used by NFM's bi-interaction pooling)
bi = FMInteraction(reduce_sum=False)(emb.detach())
print("bi-interaction", bi.shape, torch.allclose(bi.sum(1), fast.detach(), atol=1e-6))
bn = nn.BatchNorm1d(6)
h = F.relu(bn(bi))
print("nfm hidden", h.shape, round(h.mean().item(), 4), bn.running_mean)
