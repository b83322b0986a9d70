"""The numerical failures GP code meets and how it reports them: LinAlgError from singular and non-PD kernels,
NaN hyperparameters, info codes of the *_ex solvers, non-finite SVDs, and checks a fit loop uses to recover."""

import math
import warnings

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def report(label, fn):
    try:
        out = fn()
        print(label, "->", out)
    except Exception as e:  # noqa: BLE001
        print(label, "!!", type(e).__name__, isinstance(e, RuntimeError), "|", e)


x = torch.tensor([0.0, 0.0, 1.0], dtype=f64).unsqueeze(-1)  # duplicated input: singular K
K = torch.exp(-0.5 * torch.cdist(x, x).pow(2))
report("chol singular", lambda: torch.linalg.cholesky(K))
report("chol_ex info", lambda: torch.linalg.cholesky_ex(K).info)
report("inv singular", lambda: torch.linalg.inv(K))
report("inv_ex info", lambda: torch.linalg.inv_ex(K).info)
report("solve singular", lambda: torch.linalg.solve(K, torch.ones(3, dtype=f64)))
report("solve_ex", lambda: torch.linalg.solve_ex(K, torch.ones(3, dtype=f64)).info)
report("lu_factor", lambda: torch.linalg.lu_factor(K))
report("logdet singular", lambda: torch.logdet(K))
report("slogdet", lambda: tuple(torch.linalg.slogdet(K)))
report("cholinv zero diag", lambda: torch.cholesky_inverse(torch.tensor([[1.0, 0.0], [0.5, 0.0]], dtype=f64)))
report("cholinv batch", lambda: torch.cholesky_inverse(torch.stack([torch.eye(2), torch.zeros(2, 2)])))
report("pinv ok", lambda: torch.linalg.pinv(K, hermitian=True).round(decimals=4))
report("rank", lambda: torch.linalg.matrix_rank(K, hermitian=True))

raw = torch.tensor([float("nan"), 0.0], dtype=f64)
Knan = F.softplus(raw[0]) * torch.exp(-0.5 * torch.cdist(x, x).pow(2))
report("chol nan", lambda: torch.linalg.cholesky(Knan + torch.eye(3, dtype=f64)))
report("chol_ex nan", lambda: torch.linalg.cholesky_ex(Knan).info)
report("svd nan", lambda: torch.linalg.svd(Knan))
report("svdvals batch nan", lambda: torch.linalg.svdvals(torch.stack([K, Knan])))
report("svdvals inf", lambda: torch.linalg.svdvals(torch.tensor([[math.inf, 0.0], [0.0, 1.0]])))
report("eigh 2x2 nan", lambda: torch.linalg.eigvalsh(torch.full((2, 2), math.nan)))
report("chol inf", lambda: torch.linalg.cholesky(torch.full((2, 2), math.inf, dtype=f64)))
report(
    "chol_ex inf", lambda: tuple(torch.linalg.cholesky_ex(torch.tensor([[1.0, math.inf], [math.inf, 1.0]], dtype=f64)))
)
report("eigh lower-case uplo", lambda: torch.linalg.eigvalsh(K + torch.eye(3, dtype=f64), UPLO="u").round(decimals=4))
report("eigh bad uplo", lambda: torch.linalg.eigh(K, UPLO="both"))
report("chol half", lambda: torch.linalg.cholesky(torch.eye(2, dtype=torch.float16)))
report("chol int", lambda: torch.linalg.cholesky(torch.eye(2, dtype=torch.int32)))
report("chol 1-d", lambda: torch.linalg.cholesky(torch.ones(3)))
report("solve mixed", lambda: torch.linalg.solve(K.float(), torch.ones(3, dtype=f64)))
report("cholsolve mixed", lambda: torch.cholesky_solve(torch.ones(3, 1), torch.eye(3, dtype=f64)))
report("cholsolve shapes", lambda: torch.cholesky_solve(torch.ones(2, 1, dtype=f64), torch.eye(3, dtype=f64)))

jitters = []
for jitter in [0.0, 1e-8, 1e-6, 1e-4]:
    L, info = torch.linalg.cholesky_ex(K + jitter * torch.eye(3, dtype=f64))
    jitters.append((jitter, info.item()))
    if info.item() == 0:
        break
print("jitter schedule", jitters)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    L = torch.cholesky(K + 1e-4 * torch.eye(3, dtype=f64))
print("deprecated cholesky", [m.category.__name__ for m in w], str(w[0].message).splitlines()[0] if w else None)
print("L", L.diagonal().round(decimals=4), L.stride())
e = None
try:
    torch.linalg.cholesky(torch.stack([torch.eye(3, dtype=f64), K]))
except torch.linalg.LinAlgError as err:
    e = err
print("caught", type(e).__name__, type(e).__mro__[1].__name__, str(e).split(":")[1].strip())
print("args", len(e.args), "nan check", torch.isnan(Knan).any().item(), torch.isfinite(K).all().item())
