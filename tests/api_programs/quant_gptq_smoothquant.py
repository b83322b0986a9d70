"""Post-training quantization of a linear layer as the LLM papers do it: SmoothQuant's per-channel migration of
activation outliers into the weights, per-token dynamic int8 activations, and GPTQ's column-by-column
quantization with error feedback through the Cholesky factor of the inverse Hessian, against round-to-nearest."""

import torch

torch.manual_seed(0)
n_tok, d_in, d_out = 64, 16, 8
X = torch.randn(n_tok, d_in)
X[:, 3] *= 25.0  # an outlier channel, as in LLM activations
X[:, 11] *= 8.0
W = torch.randn(d_out, d_in) * 0.2
Y = X @ W.t()


def quant_sym(t, bits=8, dim=None):
    qmax = 2 ** (bits - 1) - 1
    amax = t.abs().amax() if dim is None else t.abs().amax(dim=dim, keepdim=True)
    s = amax.clamp(min=1e-8) / qmax
    return torch.clamp(torch.round(t / s), -qmax - 1, qmax) * s


def rel_err(a):
    return round((torch.linalg.norm(a - Y) / torch.linalg.norm(Y)).item(), 4)


act_max = X.abs().amax(dim=0)
w_max = W.abs().amax(dim=0)
print("act channel max", act_max.round(decimals=2).tolist()[:6])
print("per-tensor W8A8", rel_err(quant_sym(X) @ quant_sym(W, dim=1).t()))
print("per-token W8A8", rel_err(quant_sym(X, dim=1) @ quant_sym(W, dim=1).t()))
for alpha in (0.25, 0.5, 0.75):
    s = (act_max.pow(alpha) / w_max.pow(1 - alpha)).clamp(min=1e-5)
    Xs, Ws = X / s, W * s
    same = torch.allclose(Xs @ Ws.t(), Y, atol=1e-4)
    print(
        "smooth alpha",
        alpha,
        "exact",
        same,
        "err",
        rel_err(quant_sym(Xs, dim=1) @ quant_sym(Ws, dim=1).t()),
        "max ratio",
        round((Xs.abs().amax(0).max() / Xs.abs().amax(0).min()).item(), 2),
    )

# int8 path with int32 accumulation for the per-token scheme
xs = X.abs().amax(dim=1, keepdim=True) / 127
ws = W.abs().amax(dim=1, keepdim=True) / 127
xq = torch.round(X / xs).to(torch.int8)
wq = torch.round(W / ws).to(torch.int8)
acc = torch.matmul(xq.to(torch.int32), wq.to(torch.int32).t())
print("int32 acc", acc.dtype, acc.abs().max().item(), "err", rel_err(acc.float() * xs * ws.t()))


def gptq(W, H, bits=4, block=4, damp=0.01):
    W = W.clone()
    qmax = 2 ** (bits - 1) - 1
    scale = W.abs().amax(dim=1, keepdim=True) / qmax
    dead = torch.diag(H) == 0
    H = H.clone()
    H[dead, dead] = 1
    W[:, dead] = 0
    H += damp * torch.mean(torch.diag(H)) * torch.eye(H.shape[0])
    L = torch.linalg.cholesky(H)
    Hinv = torch.cholesky_inverse(L)
    Hinv = torch.linalg.cholesky(Hinv, upper=True)
    Q = torch.zeros_like(W)
    for i1 in range(0, W.shape[1], block):
        i2 = min(i1 + block, W.shape[1])
        W1 = W[:, i1:i2].clone()
        Err = torch.zeros_like(W1)
        Hb = Hinv[i1:i2, i1:i2]
        for i in range(i2 - i1):
            w = W1[:, i]
            q = torch.clamp(torch.round(w.unsqueeze(1) / scale), -qmax - 1, qmax).squeeze(1) * scale.squeeze(1)
            Q[:, i1 + i] = q
            err = (w - q) / Hb[i, i]
            W1[:, i:] -= err.unsqueeze(1) @ Hb[i, i:].unsqueeze(0)
            Err[:, i] = err
        W[:, i2:] -= Err @ Hinv[i1:i2, i2:]
    return Q


H = 2 * X.t() @ X / n_tok
print("H symmetric", torch.allclose(H, H.t()), "cond", round(torch.linalg.cond(H).item(), 1))
rtn = quant_sym(W, bits=4, dim=1)
Q = gptq(W, H, bits=4)
print("4-bit RTN err", rel_err(X @ rtn.t()), "GPTQ err", rel_err(X @ Q.t()))
print("GPTQ levels per row", [torch.unique(Q[r]).numel() for r in range(3)])
L = torch.linalg.cholesky(H + 0.01 * torch.eye(d_in))
print(
    "cholesky_inverse",
    torch.allclose(torch.cholesky_inverse(L), torch.linalg.inv(H + 0.01 * torch.eye(d_in)), atol=1e-4),
)
U = torch.linalg.cholesky(H + 0.01 * torch.eye(d_in), upper=True)
print("upper == L^T", torch.allclose(U, L.t(), atol=1e-6), "triu", torch.equal(U, torch.triu(U)))
try:
    torch.linalg.cholesky(-H)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.matmul(xq, wq.t())
    print("int8 matmul ok")
except Exception as e:
    print(type(e).__name__, e)
