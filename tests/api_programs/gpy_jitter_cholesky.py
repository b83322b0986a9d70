"""GPyTorch-style psd_safe_cholesky by hand: jitter retries driven by linalg.cholesky_ex info codes, a NotPSD error
class, batched failures, NaN inputs, and the LinAlgError messages users see."""

import warnings

import torch

torch.set_printoptions(precision=4, sci_mode=False)


class NotPSDError(RuntimeError):
    pass


def psd_safe_cholesky(A, upper=False, jitter=None, max_tries=4):
    L, info = torch.linalg.cholesky_ex(A, upper=upper)
    if not torch.any(info):
        return L
    if torch.isnan(A).any():
        raise NotPSDError(
            f"cholesky_cpu: {(torch.isnan(A)).sum().item()} of {A.numel()} elements of the "
            f"{tuple(A.shape)} tensor are NaN."
        )
    jitter = jitter or (1e-6 if A.dtype == torch.float32 else 1e-8)
    Aprime = A.clone()
    jitter_prev = 0
    for i in range(max_tries):
        jitter_new = jitter * (10**i)
        Aprime.diagonal(dim1=-2, dim2=-1).add_(jitter_new - jitter_prev)
        jitter_prev = jitter_new
        L, info = torch.linalg.cholesky_ex(Aprime, upper=upper)
        if not torch.any(info):
            warnings.warn(f"A not p.d., added jitter of {jitter_new:.1e} to the diagonal", RuntimeWarning)
            return L
    raise NotPSDError(
        f"Matrix not positive definite after repeatedly adding jitter up to {jitter_new:.1e}. "
        f"Original error on first attempt: {info.tolist()}"
    )


x = torch.linspace(0, 1, 6, dtype=torch.float64)
K = torch.exp(-0.5 * (x[:, None] - x[None, :]).pow(2) / 0.5**2)
L, info = torch.linalg.cholesky_ex(K)
print("info", info, info.dtype, info.shape)
print("eig min < 1e-5", torch.linalg.eigvalsh(K).min().item() < 1e-5)
Kbad = K.clone()
Kbad[0, 1] = Kbad[1, 0] = 1.0001
L, info = torch.linalg.cholesky_ex(Kbad)
print("bad info", info.item(), "L finite upper-left", torch.isfinite(L[: info.item() - 1]).all().item())
try:
    torch.linalg.cholesky(Kbad)
except torch.linalg.LinAlgError as e:
    print(type(e).__name__, "|", e)
try:
    torch.linalg.cholesky_ex(Kbad, check_errors=True)
except RuntimeError as e:
    print(type(e).__name__, "|", e)

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    Lj = psd_safe_cholesky(Kbad - 0.0005 * torch.eye(6, dtype=torch.float64), jitter=1e-4)
    print([str(m.message) for m in w], [m.category.__name__ for m in w])
print("Lj diag", Lj.diagonal().round(decimals=4))

batch = torch.stack([K + 1e-4 * torch.eye(6, dtype=torch.float64), Kbad, -torch.eye(6, dtype=torch.float64)])
L, info = torch.linalg.cholesky_ex(batch)
print("batch info", info.tolist())
try:
    torch.linalg.cholesky(batch)
except torch.linalg.LinAlgError as e:
    print(type(e).__name__, "|", e)
Lu, info = torch.linalg.cholesky_ex(batch[0], upper=True)
print("upper", torch.allclose(Lu.mT @ Lu, batch[0]), Lu.stride())

try:
    psd_safe_cholesky(torch.full((3, 3), float("nan")))
except NotPSDError as e:
    print("NotPSDError", e)
try:
    psd_safe_cholesky(-torch.eye(3), max_tries=2)
except NotPSDError as e:
    print("NotPSDError", e)

f32 = K.float() + 1e-6 * torch.eye(6)
L32, info32 = torch.linalg.cholesky_ex(f32)
print("float32 info", info32.item(), L32.dtype)
for bad in [torch.ones(2, 3), torch.eye(3, dtype=torch.int64), torch.eye(2).half()]:
    try:
        torch.linalg.cholesky(bad)
    except RuntimeError as e:
        print(type(e).__name__, "|", e)
empty = torch.linalg.cholesky_ex(torch.empty(0, 0))
print("empty", empty.L.shape, empty.info)
print("zero-batch", torch.linalg.cholesky_ex(torch.empty(0, 3, 3)).info.shape)
print(torch.linalg.cholesky_ex(torch.eye(2)))
