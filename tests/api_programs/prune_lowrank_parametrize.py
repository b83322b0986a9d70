"""Low-rank compression two ways: a factorised parametrization (right_inverse returns U and V, so the
weight lives in original0/original1) trained in place, and SVD replacement of nn.Linear by two Linears."""

import torch
import torch.nn.utils.parametrize as parametrize

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class LowRank(nn.Module):
    def __init__(self, rank):
        super().__init__()
        self.rank = rank

    def forward(self, U, V):
        return U @ V.T

    def right_inverse(self, W):
        U, S, Vh = torch.linalg.svd(W, full_matrices=False)
        root = S[: self.rank].sqrt()
        return U[:, : self.rank] * root, Vh[: self.rank].T * root


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


def factorize(linear, rank):
    U, S, Vh = torch.linalg.svd(linear.weight.detach(), full_matrices=False)
    first = nn.Linear(linear.in_features, rank, bias=False)
    second = nn.Linear(rank, linear.out_features, bias=linear.bias is not None)
    with torch.no_grad():
        first.weight.copy_(S[:rank, None] * Vh[:rank])
        second.weight.copy_(U[:, :rank])
        if linear.bias is not None:
            second.bias.copy_(linear.bias)
    return nn.Sequential(first, second)


teacher = nn.Sequential(nn.Linear(8, 12), nn.Tanh(), nn.Linear(12, 4))
x = torch.randn(64, 8)
target = teacher(x).detach()

student = nn.Sequential(nn.Linear(8, 12), nn.Tanh(), nn.Linear(12, 4))
student.load_state_dict(teacher.state_dict())
parametrize.register_parametrization(student[0], "weight", LowRank(3))
layer = student[0]
print(type(layer).__name__, parametrize.type_before_parametrizations(layer).__name__)
print([n for n, _ in student.named_parameters()])
print(
    layer.parametrizations.weight.original0.shape,
    layer.parametrizations.weight.original1.shape,
    hasattr(layer.parametrizations.weight, "original"),
    layer.parametrizations.weight.ntensors,
)
print("rank", int(torch.linalg.matrix_rank(layer.weight)), "err", round(F.mse_loss(student(x), target).item(), 4))

opt = torch.optim.Adam(student.parameters(), lr=0.02)
for step in range(30):
    opt.zero_grad()
    with parametrize.cached():
        loss = F.mse_loss(student(x), target)
    loss.backward()
    opt.step()
print("trained err", round(loss.item(), 4), layer.weight.grad_fn is not None)
print("grads", [tuple(p.grad.shape) for p in layer.parametrizations.weight.parameters()])

# assignment goes through right_inverse; PyTorch set_s the factors, so their shape follows the value
layer.weight = torch.eye(12, 8)
print("after assign", round(layer.weight.sum().item(), 4), int(torch.linalg.matrix_rank(layer.weight)))
layer.weight = torch.ones(5, 8)
print("reshaped", tuple(layer.weight.shape), tuple(layer.parametrizations.weight.original0.shape))
layer.weight = torch.eye(12, 8)

try:
    parametrize.register_parametrization(student[2], "bias", Symmetric())
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
parametrize.register_parametrization(student[2], "weight", nn.Identity(), unsafe=True)
print(parametrize.is_parametrized(student[2], "weight"), parametrize.is_parametrized(student[2], "bias"))
try:
    parametrize.remove_parametrizations(student[2], "bias")
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[-1])
try:
    layer.weight = torch.eye(12, 8).double()
except Exception as e:
    print(type(e).__name__, e)

parametrize.remove_parametrizations(layer, "weight", leave_parametrized=True)
print(type(layer).__name__, [n for n, _ in layer.named_parameters()], round(layer.weight.sum().item(), 4))

# SVD replacement of a trained teacher layer, rank by rank
big = teacher[0]
for rank in (1, 4, 8):
    fac = factorize(big, rank)
    params = sum(p.numel() for p in fac.parameters())
    err = (fac(x) - big(x)).pow(2).mean().item()
    print("rank", rank, "params", params, "of", sum(p.numel() for p in big.parameters()), "err", round(err, 4))
S = torch.linalg.svdvals(big.weight.detach())
energy = S.pow(2).cumsum(0) / S.pow(2).sum()
print("energy", energy.round(decimals=4).tolist())
print("rank for 90%", int((energy < 0.9).sum()) + 1)
compressed = nn.Sequential(factorize(teacher[0], 6), teacher[1], factorize(teacher[2], 3))
print(compressed)
print("compressed err", round(F.mse_loss(compressed(x), target).item(), 4))
