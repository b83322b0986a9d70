"""tensor printing, reshapes, init, containers, misc ops."""

import math
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


x = T(2, 3, 4)
print(
    x.permute(2, 0, 1).shape,
    x.flatten(1).shape,
    x.flatten(0, 1).unflatten(0, (2, 3)).shape,
    x.movedim(0, -1).shape,
    x.mT.shape,
    x.transpose(-1, -2).contiguous().is_contiguous(),
)
print(
    x.view(-1, 4).shape,
    x.reshape(6, -1).stride(),
    x.unsqueeze(1).squeeze(1).shape,
    x.squeeze().shape,
    x[:, None, ..., None].shape,
    x.expand(2, 2, 3, 4).shape if False else x.unsqueeze(0).expand(2, -1, -1, -1).shape,
)
print(
    torch.chunk(x, 2, dim=-1)[0].shape,
    [t.shape for t in x.split([1, 3], dim=2)],
    x.unbind(1)[0].shape,
    torch.tensor_split(torch.arange(7), 3),
    x.narrow(2, 1, 2).shape,
)
print(
    x.repeat(1, 2, 1).shape,
    x.repeat_interleave(2, dim=0).shape,
    torch.tile(x, (2,)).shape,
    x.flip(0).shape,
    x.roll(1, 2).shape,
    torch.rot90(x[0]).shape,
)
print(
    torch.cat([x, x], 1).shape,
    torch.stack([x, x]).shape,
    torch.hstack([x, x]).shape,
    torch.vstack([x, x]).shape,
    torch.dstack([x, x]).shape,
    torch.column_stack([torch.ones(3), torch.zeros(3)]).shape,
)
print(
    torch.meshgrid(torch.arange(3), torch.arange(2), indexing="ij")[0].shape,
    torch.cartesian_prod(torch.arange(2), torch.arange(3)).shape,
    torch.combinations(torch.arange(4), 2).shape,
)
print(
    x.unfold(2, 2, 1).shape,
    torch.nn.functional.unfold(T(1, 2, 4, 4), kernel_size=2).shape,
    nn.Unflatten(1, (3, 1))(T(2, 3)).shape,
    nn.Flatten()(x).shape,
)
print(torch.arange(6).reshape(2, 3))
print(torch.tensor([[1.5, -2.25], [1e-5, 3.0]]))
print(
    torch.tensor([1e10, 1.0]),
    torch.tensor([0.1, 100.0]),
    torch.tensor([True, False]),
    torch.tensor([], dtype=torch.float32),
    torch.zeros(2, 0),
)
print(
    torch.tensor(3.14159),
    torch.tensor([float("nan"), float("inf"), -float("inf")]),
    torch.tensor(7),
    torch.tensor([1, 2], dtype=torch.int32),
)
print(
    torch.ones(2, 2, requires_grad=True),
    torch.ones(2, requires_grad=True) * 2,
    torch.ones(1, dtype=torch.float64, requires_grad=True).sum(),
)
print(torch.arange(1000.0))
torch.set_printoptions(precision=2, sci_mode=False)
print(torch.tensor([1.23456, 1e-6]))
torch.set_printoptions(profile="default")
print(nn.Parameter(torch.ones(2)))
print(
    repr(torch.Size([2, 3])),
    torch.Size([2, 3]) == (2, 3),
    torch.Size([2, 3]).numel(),
    x.size(),
    x.size(1),
    x.shape[-1],
    x.ndim,
    x.dim(),
    len(x),
    x.numel(),
    x.device,
    str(x.device),
    x.is_cuda,
    x.layout,
)
print(
    torch.device("cpu"),
    torch.device("cuda", 0),
    torch.device("cuda:1").index,
    torch.device("cpu") == torch.device("cpu"),
)
lin = nn.Linear(50, 40)
torch.manual_seed(0)
for fn in [
    nn.init.xavier_uniform_,
    nn.init.xavier_normal_,
    nn.init.kaiming_uniform_,
    nn.init.kaiming_normal_,
    nn.init.orthogonal_,
    nn.init.trunc_normal_,
]:
    fn(lin.weight)
    print(fn.__name__, lin.weight.shape, 0.05 < lin.weight.std().item() < 1.0)
nn.init.kaiming_normal_(lin.weight, mode="fan_out", nonlinearity="relu")
print("kfo", abs(lin.weight.std().item() - (2 / 40) ** 0.5) < 0.03)
nn.init.constant_(lin.bias, 0.1)
nn.init.ones_(lin.bias)
nn.init.eye_(torch.empty(3, 3))
nn.init.dirac_(torch.empty(4, 2, 3))
nn.init.uniform_(lin.bias, -1, 1)
nn.init.sparse_(torch.empty(6, 4), 0.5)
print(
    "gain",
    nn.init.calculate_gain("relu"),
    round(nn.init.calculate_gain("leaky_relu", 0.2), 4),
    nn.init.calculate_gain("tanh"),
    nn.init._calculate_fan_in_and_fan_out(torch.empty(4, 3, 2, 2)),
)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])
        self.heads = nn.ModuleDict({"a": nn.Linear(3, 1), "b": nn.Linear(3, 2)})
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(3)) for _ in range(2)])
        self.pd = nn.ParameterDict({"t": nn.Parameter(torch.zeros(1))})
        self.register_buffer("steps", torch.tensor(0))
        self.register_buffer("tmp", torch.zeros(1), persistent=False)
        self.register_parameter("unused", None)

    def forward(self, x):
        for l, s in zip(self.layers, self.scales):
            x = l(x) * s
        return {k: h(x) for k, h in self.heads.items()}


n = Net()
print([k for k, _ in n.named_parameters()])
print([k for k, _ in n.named_buffers()], list(n.state_dict().keys())[-2:])
n.layers.append(nn.Linear(3, 3))
n.layers.extend([nn.Identity()])
n.layers.insert(0, nn.Identity())
print(
    len(n.layers),
    type(n.layers[-1]).__name__,
    "a" in n.heads,
    list(n.heads.keys()),
    len(n.scales),
    n.layers[1:3].__class__.__name__,
)
n.requires_grad_(False)
n.heads.requires_grad_(True)
print(sum(p.requires_grad for p in n.parameters()), n.training, n.eval().training, n.train().training, n.training)
print(
    n.double().steps.dtype,
    n.float().layers[1].weight.dtype,
    n.to(torch.float64).scales[0].dtype,
    n.half().pd["t"].dtype,
    n.float().pd.t.dtype,
)
n.zero_grad()
print(n.heads.a.weight.grad)
print("children", len(list(n.children())), type(next(n.modules())).__name__)
torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-7]))
try:
    torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]))
except AssertionError as e:
    print("assert_close", str(e).splitlines()[0])
try:
    torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64))
except AssertionError as e:
    print("assert_close_dtype", str(e).splitlines()[0])
print(
    torch.where(x > 0, x, 0.0).shape,
    torch.where(torch.tensor([True, False]))[0].tolist(),
    x.nonzero().shape,
    torch.argwhere(x > 1).shape,
    x.masked_fill(x > 0, 0).max().item(),
)
v, i = x.topk(2, dim=-1)
print(
    v.shape,
    i.dtype,
    x.sort(descending=True, stable=True).indices.shape,
    x.argsort(dim=1).shape,
    x.kthvalue(2, dim=-1).values.shape,
    x.max(dim=1).indices.shape,
    x.median(),
    x.mode(dim=-1).values.shape if hasattr(x, "mode") else None,
)
print(
    x.cumsum(-1).shape,
    x.cumprod(0).shape,
    torch.cummax(x, 1).values.shape,
    torch.logcumsumexp(x, 0).shape,
    torch.diff(x, dim=-1).shape,
    x.var(dim=1, unbiased=False).shape,
    x.std(correction=0).shape,
    torch.var_mean(x, dim=0)[0].shape,
)
print(
    torch.clamp(x, min=-0.5).min().item() >= -0.5,
    x.clip(-1, 1).abs().max().item() <= 1,
    torch.isclose(x, x).all().item(),
    torch.allclose(x, x + 1e-9),
    torch.equal(x, x.clone()),
    x.any().item(),
    x.all().item(),
)
print(
    torch.linspace(0, 1, 5).tolist(),
    torch.logspace(0, 2, 3).tolist(),
    torch.full((2,), 3).dtype,
    torch.full((2,), 3.0).dtype,
    torch.eye(2, 3).shape,
    torch.empty_like(x).shape,
    torch.zeros_like(x, dtype=torch.int64).dtype,
    torch.rand_like(x).shape,
    torch.randint_like(x, 5).dtype,
    torch.ones(2).new_zeros(3).shape,
    x.new_tensor([1, 2]).dtype,
    x.new_full((2,), 1).dtype,
    x.new_empty(0).shape,
)
print(
    torch.tensor(np.arange(3)).dtype,
    torch.as_tensor([1, 2]).dtype,
    torch.from_numpy(np.ones(2, dtype=np.float16)).dtype,
    x.numpy().dtype,
    x.tolist()[0][0][0] == x[0, 0, 0].item(),
    torch.tensor([[1, 2]]).T.tolist(),
    float(torch.tensor(2.5)),
    int(torch.tensor(3)),
    bool(torch.tensor(1)),
)
print(
    torch.einsum("bij,bjk->bik", x, x.transpose(1, 2)).shape,
    torch.tensordot(x, x, dims=([1, 2], [1, 2])).shape,
    torch.outer(torch.ones(2), torch.ones(3)).shape,
    torch.baddbmm(torch.zeros(2, 3, 3), x, x.mT).shape,
    torch.addmm(torch.zeros(2), torch.ones(3, 4), torch.ones(4, 2)).shape,
    torch.matmul(x, torch.ones(4)).shape,
)
print(
    math.isclose(torch.pi, math.pi),
    torch.inf,
    torch.nan != torch.nan,
    torch.e,
    x[..., torch.newaxis].shape if hasattr(torch, "newaxis") else None,
)
print(
    torch.nn.functional.one_hot(torch.tensor([0, 2]), num_classes=3).tolist(),
    torch.nn.functional.pad(x, (1, 1, 2, 0)).shape,
    torch.nn.functional.normalize(x, dim=-1).norm(dim=-1).mean().item() > 0.99,
    torch.nn.functional.interpolate(T(1, 1, 4, 4), scale_factor=2, mode="bilinear", align_corners=False).shape,
)
print(
    torch.nn.functional.cosine_similarity(T(3, 4), T(3, 4)).shape,
    torch.cdist(T(3, 4), T(5, 4)).shape,
    torch.nn.functional.pairwise_distance(T(3, 4), T(3, 4)).shape,
    torch.nn.functional.softplus(x, beta=2).shape,
    torch.nn.functional.gumbel_softmax(T(3, 4), tau=0.5, hard=True).sum(-1).tolist(),
)
print("OK")
