"""A unitary RNN (uRNN-style) whose complex recurrent matrix is kept unitary by
parametrizations.orthogonal, next to a real orthogonal RNN with the Cayley map: norms are preserved
over long sequences, the constraint survives Adam steps, and the weights are baked for inference."""

import torch
import torch.nn.utils.parametrize as parametrize
from torch.nn.utils import parametrizations as P

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class UnitaryCell(nn.Module):
    def __init__(self, n_in, hidden):
        super().__init__()
        self.inp = nn.Linear(n_in, hidden, bias=False, dtype=torch.complex64)
        self.rec = P.orthogonal(nn.Linear(hidden, hidden, bias=False, dtype=torch.complex64))
        self.bias = nn.Parameter(torch.zeros(hidden))

    def forward(self, x, h):
        z = self.rec(h) + self.inp(x.to(torch.complex64))
        mag = z.abs()
        return z / mag.clamp_min(1e-6) * F.relu(mag + self.bias)  # modReLU


cell = UnitaryCell(3, 6)
rec = cell.rec.parametrizations.weight
print(type(rec[0]).__name__, rec[0].orthogonal_map.name, rec.original.dtype, tuple(rec[0].base.shape))
W = cell.rec.weight
print("unitary", round((W @ W.mH - torch.eye(6, dtype=torch.complex64)).abs().max().item(), 4), W.dtype)
print("eig moduli", torch.linalg.eigvals(W.detach()).abs().round(decimals=4).tolist())

h = torch.randn(2, 6, dtype=torch.complex64)
start = h.abs().pow(2).sum(1)
with torch.no_grad():
    for _ in range(50):
        h = cell.rec(h)
print("norm kept over 50 steps", torch.allclose(h.abs().pow(2).sum(1), start, rtol=1e-3))

xs = torch.randn(5, 2, 3)
target = torch.randn(2)
readout = nn.Linear(6, 1)
opt = torch.optim.Adam(list(cell.parameters()) + list(readout.parameters()), lr=0.05)
for step in range(8):
    opt.zero_grad()
    h = torch.zeros(2, 6, dtype=torch.complex64)
    for x in xs:
        h = cell(x, h)
    loss = F.mse_loss(readout(h.abs()).squeeze(1), target)
    loss.backward()
    opt.step()
    if step % 3 == 0:
        W = cell.rec.weight
        print(
            step,
            round(loss.item(), 4),
            "unitary err < 1e-4",
            (W @ W.mH - torch.eye(6, dtype=torch.complex64)).abs().max().item() < 1e-4,
            rec.original.grad.dtype,
        )

real = P.orthogonal(nn.Linear(4, 4), orthogonal_map="cayley")
rnn_h = torch.ones(1, 4)
for _ in range(20):
    rnn_h = torch.tanh(real(rnn_h))
print(
    "cayley",
    round((real.weight @ real.weight.T - torch.eye(4)).abs().max().item(), 4),
    rnn_h.round(decimals=4).tolist(),
)
try:
    P.orthogonal(nn.Linear(4, 4, dtype=torch.complex64), orthogonal_map="householder")
except Exception as e:
    print(type(e).__name__, e)
tall = P.orthogonal(nn.Linear(3, 5, bias=False, dtype=torch.complex64))
print(
    "tall default",
    tall.parametrizations.weight[0].orthogonal_map.name,
    round((tall.weight.mH @ tall.weight - torch.eye(3, dtype=torch.complex64)).abs().max().item(), 4),
)

parametrize.remove_parametrizations(cell.rec, "weight")
print(type(cell.rec).__name__, [n for n, _ in cell.named_parameters()], cell.rec.weight.dtype)
W = cell.rec.weight.detach()
print("baked unitary", round((W @ W.mH - torch.eye(6, dtype=torch.complex64)).abs().max().item(), 4))
