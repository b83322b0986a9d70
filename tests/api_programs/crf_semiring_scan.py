"""A linear-chain CRF the torch-struct way: edge potentials (B, N-1, C, C), a log-semiring matrix product by
logsumexp over a broadcast, a parallel prefix scan that halves the chain with F.pad(-inf/identity) each round,
the max semiring for Viterbi scores, entropy by expectation, and enumeration with cartesian_prod as the oracle."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(14)

B, N, C = 2, 6, 3
unary = torch.randn(B, N, C)
pair = torch.randn(C, C) * 0.5
edge = (pair.view(1, 1, C, C) + unary[:, 1:].unsqueeze(2)).clone()
edge[:, 0] += unary[:, 0].unsqueeze(-1)
edge.requires_grad_()
print("edge", tuple(edge.shape))


def log_mm(a, b):
    return torch.logsumexp(a.unsqueeze(-1) + b.unsqueeze(-3), dim=-2)


def max_mm(a, b):
    return (a.unsqueeze(-1) + b.unsqueeze(-3)).amax(dim=-2)


def log_eye(c, like):
    return torch.full((c, c), float("-inf"), dtype=like.dtype).fill_diagonal_(0.0)


def scan(pots, mm):
    chain = pots
    while chain.size(1) > 1:
        if chain.size(1) % 2:
            ident = log_eye(C, chain).expand(chain.size(0), 1, C, C)
            chain = torch.cat([chain, ident], dim=1)
        chain = mm(chain[:, 0::2], chain[:, 1::2])
    return chain.squeeze(1)


total = scan(edge, log_mm)
logZ = total.flatten(1).logsumexp(-1)
seq = edge[:, 0]
for t in range(1, N - 1):
    seq = log_mm(seq, edge[:, t])
print("logZ", logZ.round(decimals=4).tolist(), torch.allclose(logZ, seq.flatten(1).logsumexp(-1), atol=1e-5))
(marg,) = torch.autograd.grad(logZ.sum(), edge, create_graph=True)
print("edge marginals sum", marg.sum((-1, -2)).round(decimals=4).tolist())
node = torch.cat([marg[:, :1].sum(-1), marg.sum(-2)], 1)
print("node marginals", node[0].round(decimals=4).tolist())
entropy = logZ - (marg * edge).sum((1, 2, 3))
print("entropy", entropy.round(decimals=4).tolist())
entropy.sum().backward()
print("entropy grad norm", round(edge.grad.norm().item(), 4))

vit = scan(edge.detach(), max_mm).flatten(1).max(-1).values
print("viterbi", vit.round(decimals=4).tolist())
paths = torch.cartesian_prod(*[torch.arange(C)] * N)
print("paths", tuple(paths.shape), paths[:2].tolist())
sc = unary[:, torch.arange(N), paths].sum(-1) + pair[paths[:, :-1], paths[:, 1:]].sum(-1)
print("sc", tuple(sc.shape))
print(
    "brute logZ", sc.logsumexp(-1).round(decimals=4).tolist(), "brute max", sc.max(-1).values.round(decimals=4).tolist()
)
print("argmax path", paths[sc.argmax(-1)].tolist())
pe = sc.softmax(-1)
print("brute entropy", (-(pe * pe.log()).sum(-1)).round(decimals=4).tolist())

ii, jj = torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij")
xx, yy = torch.meshgrid(torch.arange(2), torch.arange(3), indexing="xy")
print("meshgrid", ii.tolist(), xx.shape, yy.tolist())
print(
    "combinations",
    torch.combinations(torch.arange(4), r=2).tolist()[:4],
    torch.combinations(torch.arange(3), with_replacement=True).shape,
)
print(
    "pad -inf",
    F.pad(torch.zeros(1, 2), (1, 1), value=float("-inf")).tolist(),
    F.pad(torch.ones(2, 2), (0, 0, 0, 1)).tolist(),
)
print("fill_diagonal wrap", torch.zeros(5, 2).fill_diagonal_(1.0, wrap=True).tolist())
print("block_diag", torch.block_diag(torch.ones(1, 2), 2 * torch.ones(2, 1)).tolist())
for bad in [
    lambda: log_mm(torch.ones(2, 3), torch.ones(2, 3)),
    lambda: torch.zeros(2, 3, 4).fill_diagonal_(1.0),
    lambda: torch.cartesian_prod(torch.ones(2, 2)),
    lambda: torch.meshgrid(torch.ones(2), indexing="ik"),
    lambda: F.pad(torch.ones(2), (1, 1, 1)),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
