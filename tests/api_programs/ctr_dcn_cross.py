"""DCN and DCN-v2 cross layers: vector and matrix kernels, a low-rank mixture of experts, stacked vs parallel towers."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)


class CrossNetV1(nn.Module):
    """x_{l+1} = x_0 * (x_l . w_l) + b_l + x_l (vector kernel, Wang et al. 2017)."""

    def __init__(self, d, num_layers):
        super().__init__()
        self.kernels = nn.ParameterList([nn.Parameter(torch.empty(d, 1)) for _ in range(num_layers)])
        self.bias = nn.ParameterList([nn.Parameter(torch.zeros(d, 1)) for _ in range(num_layers)])
        for k in self.kernels:
            nn.init.xavier_normal_(k)

    def forward(self, x):
        x0 = x.unsqueeze(2)
        xl = x0
        for w, b in zip(self.kernels, self.bias):
            xl_w = torch.tensordot(xl, w, dims=([1], [0]))
            xl = torch.matmul(x0, xl_w) + b + xl
        return xl.squeeze(2)


class CrossNetMix(nn.Module):
    """DCN-v2's low-rank mixture: x0 * sum_e g_e(x) * U_e tanh(C_e tanh(V_e^T x)) + b + x."""

    def __init__(self, d, num_layers=2, num_experts=3, rank=2):
        super().__init__()
        self.U = nn.ParameterList(
            [nn.Parameter(nn.init.xavier_normal_(torch.empty(num_experts, d, rank))) for _ in range(num_layers)]
        )
        self.V = nn.ParameterList(
            [nn.Parameter(nn.init.xavier_normal_(torch.empty(num_experts, d, rank))) for _ in range(num_layers)]
        )
        self.C = nn.ParameterList(
            [nn.Parameter(nn.init.xavier_normal_(torch.empty(num_experts, rank, rank))) for _ in range(num_layers)]
        )
        self.gating = nn.ModuleList([nn.Linear(d, 1, bias=False) for _ in range(num_experts)])
        self.bias = nn.ParameterList([nn.Parameter(torch.zeros(d, 1)) for _ in range(num_layers)])

    def forward(self, x):
        x0 = x.unsqueeze(2)
        xl = x0
        for i in range(len(self.U)):
            outs, gates = [], []
            for e in range(len(self.gating)):
                gates.append(self.gating[e](xl.squeeze(2)))
                v_x = torch.tanh(torch.matmul(self.V[i][e].t(), xl))
                v_x = torch.tanh(torch.matmul(self.C[i][e], v_x))
                uv_x = torch.matmul(self.U[i][e], v_x)
                outs.append((x0 * (uv_x + self.bias[i])).squeeze(2))
            outs = torch.stack(outs, 2)
            gates = torch.softmax(torch.stack(gates, 1), 1)
            xl = torch.matmul(outs, gates) + xl
        return xl.squeeze(2)


d = 6
x = torch.randn(5, d)
v1 = CrossNetV1(d, 3)
print(v1)
out = v1(x)
print("v1", out.shape, out.sum().item().__round__(4), out.grad_fn.name())
# closed form check of one layer: x0 * (x0 . w) + b + x0
w = v1.kernels[0].detach()
one = x * (x @ w) + x
print("layer-1 closed form", torch.allclose(CrossNetV1(d, 1).requires_grad_(False).forward(x) * 0 + one, one))

# DCN-v2 full-rank cross with nn.Linear: x0 * W(x_l) + x_l
cross = nn.ModuleList([nn.Linear(d, d) for _ in range(2)])
xl = x
for lin in cross:
    xl = x * lin(xl) + xl
print("v2 full", xl.shape, round(xl.abs().mean().item(), 4))

mix = CrossNetMix(d)
y = mix(x)
print("mix", y.shape, round(y.sum().item(), 4))
print("mix params", sum(p.numel() for p in mix.parameters()), len(list(mix.named_parameters())))
print([n for n, _ in mix.named_parameters()][:5])

# einsum form of the vector cross equals the tensordot form
w0, b0 = v1.kernels[0], v1.bias[0]
ein = torch.einsum("bi,bj,jk->bi", x, x, w0) + b0.squeeze(1) + x
ref = torch.matmul(x.unsqueeze(2), torch.tensordot(x.unsqueeze(2), w0, dims=([1], [0]))).squeeze(2) + b0.squeeze(1) + x
print("einsum == tensordot", torch.allclose(ein, ref, atol=1e-6))

# stacked and parallel towers on top, trained jointly
deep = nn.Sequential(nn.Linear(d, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU())
head_stacked = nn.Linear(8, 1)
head_parallel = nn.Linear(d + 8, 1)
target = (x[:, 0] * x[:, 1] > 0).float()
params = (
    list(v1.parameters()) + list(deep.parameters()) + list(head_stacked.parameters()) + list(head_parallel.parameters())
)
opt = torch.optim.AdamW(params, lr=0.05)
for step in range(20):
    c = v1(x)
    stacked = head_stacked(deep(c)).squeeze(-1)
    parallel = head_parallel(torch.cat([c, deep(x)], dim=-1)).squeeze(-1)
    loss = F.binary_cross_entropy_with_logits(stacked, target) + F.binary_cross_entropy_with_logits(parallel, target)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    if step == 0:
        print("grad norms", [round(p.grad.norm().item(), 4) for p in v1.kernels])
    opt.step()
print("final loss", round(loss.item(), 4))
print("kernel[0]", v1.kernels[0].detach().flatten().round(decimals=4).tolist())
print(v1.kernels)
bc = torch.tensordot(x.unsqueeze(2), w0, dims=([2], [0]))
print("size-1 contraction broadcasts", bc.shape, torch.allclose(bc, x.unsqueeze(2) * w0.sum(0)))
try:
    torch.tensordot(x.unsqueeze(2).expand(5, d, 2), w0, dims=([2], [0]))
except Exception as e:
    print(type(e).__name__, e)
