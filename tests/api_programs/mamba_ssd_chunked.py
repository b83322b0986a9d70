"""Mamba-2's state-space duality (SSD): segment sums built with cumsum, tril masks and masked_fill(-inf), the
chunked minimal SSD (intra-chunk diagonal blocks, inter-chunk states, a recurrence over chunks with F.pad) against
a sequential reference, with gradients and multi-operand einsums."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)


def segsum(x):
    T = x.size(-1)
    x = x[..., None].expand(*x.shape, T)
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)
    x = x.masked_fill(~mask, 0)
    x_segsum = torch.cumsum(x, dim=-2)
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=0)
    return x_segsum.masked_fill(~mask, -torch.inf)


def ssd(X, A, B, C, block_len, initial_states=None):
    b, l, h, p = X.shape
    c = l // block_len
    X, A, B, C = [t.reshape(b, c, block_len, *t.shape[2:]) for t in (X, A, B, C)]
    A = A.permute(0, 3, 1, 2)  # b h c l
    A_cumsum = torch.cumsum(A, dim=-1)
    L = torch.exp(segsum(A))
    Y_diag = torch.einsum("bclhn,bcshn,bhcls,bcshp->bclhp", C, B, L, X)
    decay_states = torch.exp(A_cumsum[:, :, :, -1:] - A_cumsum)
    states = torch.einsum("bclhn,bhcl,bclhp->bchpn", B, decay_states, X)
    if initial_states is None:
        initial_states = torch.zeros_like(states[:, :1])
    states = torch.cat([initial_states, states], dim=1)
    decay_chunk = torch.exp(segsum(F.pad(A_cumsum[:, :, :, -1], (1, 0))))
    new_states = torch.einsum("bhzc,bchpn->bzhpn", decay_chunk, states)
    states, final_state = new_states[:, :-1], new_states[:, -1]
    state_decay_out = torch.exp(A_cumsum)
    Y_off = torch.einsum("bclhn,bchpn,bhcl->bclhp", C, states, state_decay_out)
    Y = (Y_diag + Y_off).reshape(b, c * block_len, h, p)
    return Y, final_state


def ssd_ref(X, A, B, C):
    b, l, h, p = X.shape
    state = X.new_zeros(b, h, p, B.shape[-1])
    ys = []
    for t in range(l):
        state = state * torch.exp(A[:, t])[..., None, None] + X[:, t, :, :, None] * B[:, t, :, None, :]
        ys.append(torch.einsum("bhpn,bhn->bhp", state, C[:, t]))
    return torch.stack(ys, 1), state


s = segsum(torch.tensor([1.0, 2.0, 3.0]))
print("segsum", s.tolist())
print("exp segsum", torch.exp(s).round(decimals=4).tolist())

b, l, h, p, n = 2, 12, 2, 3, 4
X = torch.randn(b, l, h, p, requires_grad=True)
dt = F.softplus(torch.randn(b, l, h) - 1)
A_log = torch.tensor([0.0, 0.5], requires_grad=True)
A = -torch.exp(A_log) * dt
B = torch.randn(b, l, h, n)
C = torch.randn(b, l, h, n)
Y, fs = ssd(X, A, B, C, block_len=4)
Yr, fr = ssd_ref(X, A, B, C)
print("Y", tuple(Y.shape), Y.grad_fn.__class__.__name__, round(Y.sum().item(), 4))
print("ssd==ref", torch.allclose(Y, Yr, atol=1e-4), torch.allclose(fs, fr, atol=1e-4), tuple(fs.shape))
for bl in (3, 6, 12):
    print("block", bl, torch.allclose(ssd(X, A, B, C, bl)[0], Yr, atol=1e-4))

# continue from a final state
Y1, s1 = ssd(X[:, :8], A[:, :8], B[:, :8], C[:, :8], 4)
Y2, s2 = ssd(X[:, 8:], A[:, 8:], B[:, 8:], C[:, 8:], 4, initial_states=s1[:, None])
print("resume", torch.allclose(torch.cat([Y1, Y2], 1), Yr, atol=1e-4), torch.allclose(s2, fr, atol=1e-4))

g = torch.randn_like(Y)
gx, ga = torch.autograd.grad((Y * g).sum(), (X, A_log), retain_graph=True)
gxr, gar = torch.autograd.grad((Yr * g).sum(), (X, A_log))
print("grads", torch.allclose(gx, gxr, atol=1e-4), torch.allclose(ga, gar, atol=1e-3), ga.round(decimals=3).tolist())

# einsum forms
M = torch.randn(2, 3, 4)
print("einsum ellipsis", torch.einsum("...ij,...jk->...ik", M, M.transpose(1, 2)).shape)
print("einsum trace", round(torch.einsum("bii->", M[:, :3, :3]).item(), 4))
print("einsum diag", torch.einsum("ii->i", torch.arange(9.0).view(3, 3)).tolist())
print("einsum sublist", torch.einsum(M, [0, 1, 2], [0, 2]).shape)
print("einsum outer", torch.einsum("i,j", torch.ones(2), torch.arange(3.0)).tolist())
print("einsum spaces", torch.einsum("b i j , b j -> b i", M, torch.ones(2, 4)).shape)
print(
    "masked_fill -inf exp",
    torch.exp(torch.zeros(3).masked_fill(torch.tensor([0, 1, 0], dtype=torch.bool), -torch.inf)).tolist(),
)
print("inf", torch.inf, -torch.inf, torch.nan != torch.nan)
try:
    torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(4, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.einsum("ij->ijk", torch.ones(2, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.einsum("ij,jk", torch.ones(2, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(3).masked_fill(torch.tensor([0, 1, 0]), 1.0)
except Exception as e:
    print(type(e).__name__, e)
