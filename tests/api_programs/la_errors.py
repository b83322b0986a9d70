"""What torch.linalg raises when numerical code feeds it bad matrices, caught and printed as a library's error
handler would: LinAlgError on singular and non-positive-definite inputs (batched, with the failing index), shape
and dtype mismatches, bad UPLO/mode/driver/ord strings, and the _ex variants that report instead of raising."""

import torch

torch.manual_seed(13)
torch.set_printoptions(precision=4, sci_mode=False)
LA = torch.linalg
f64 = torch.float64


def attempt(name, fn):
    try:
        out = fn()
    except torch.linalg.LinAlgError as e:
        print(f"{name}: LinAlgError (is RuntimeError: {isinstance(e, RuntimeError)}): {e}")
        return
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        shown = torch.round(out, decimals=4) if out.is_floating_point() else out
        print(f"{name}: ok {tuple(out.shape)} {shown}")
    else:
        print(f"{name}: ok {type(out).__name__}")


sing = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=f64)
spd = torch.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=f64)
indef = torch.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=f64)
zeros3 = torch.zeros(3, 3, dtype=f64)

print("LinAlgError", torch.linalg.LinAlgError.__name__, issubclass(torch.linalg.LinAlgError, RuntimeError))
attempt("inv singular", lambda: LA.inv(sing))
attempt("inv batch singular", lambda: LA.inv(torch.stack([spd, spd, sing])))
attempt("inv 4-d batch", lambda: LA.inv(torch.stack([spd, sing]).reshape(2, 1, 2, 2)))
attempt("solve singular", lambda: LA.solve(sing, torch.ones(2, dtype=f64)))
attempt("solve zeros", lambda: LA.solve(zeros3, torch.ones(3, 1, dtype=f64)))
attempt("cholesky indefinite", lambda: LA.cholesky(indef))
attempt("cholesky batch", lambda: LA.cholesky(torch.stack([spd, indef, indef])))
attempt("cholesky upper", lambda: LA.cholesky(-spd, upper=True))
attempt("lu_factor singular ok", lambda: LA.lu_factor(sing).LU)
attempt("lu_factor_ex info", lambda: LA.lu_factor_ex(sing).info)
attempt("torch.inverse", lambda: torch.inverse(zeros3))
attempt("cholesky_inverse of indefinite chol", lambda: torch.cholesky_inverse(LA.cholesky(indef)))
attempt("inv_ex check_errors", lambda: LA.inv_ex(sing, check_errors=True))
attempt("cholesky_ex check_errors", lambda: LA.cholesky_ex(indef, check_errors=True))
attempt("solve_ex check_errors", lambda: LA.solve_ex(sing, torch.ones(2, 1, dtype=f64), check_errors=True))
print("inv_ex silent", LA.inv_ex(sing).info.item(), "cholesky_ex silent", LA.cholesky_ex(indef).info.item())

# --- shapes --------------------------------------------------------------------------------------------------
attempt("inv non-square", lambda: LA.inv(torch.randn(2, 3)))
attempt("inv 1-d", lambda: LA.inv(torch.randn(3)))
attempt("det non-square", lambda: LA.det(torch.randn(3, 2)))
attempt("cholesky non-square", lambda: LA.cholesky(torch.randn(2, 3)))
attempt("eigh non-square", lambda: LA.eigh(torch.randn(2, 3)))
attempt("eig non-square", lambda: LA.eig(torch.randn(3, 2)))
attempt("solve mismatched", lambda: LA.solve(spd, torch.ones(3, dtype=f64)))
attempt("solve batch mismatch", lambda: LA.solve(torch.randn(2, 3, 3), torch.randn(4, 3, 1)))
attempt("lstsq rows mismatch", lambda: LA.lstsq(torch.randn(4, 2), torch.randn(3, 1)))
attempt("solve_triangular 1-d rhs", lambda: LA.solve_triangular(torch.eye(3), torch.ones(3), upper=True))
attempt("cross wrong size", lambda: LA.cross(torch.randn(4), torch.randn(4)))
attempt("multi_dot one", lambda: LA.multi_dot([torch.randn(2, 2)]))
attempt("multi_dot shapes", lambda: LA.multi_dot([torch.randn(2, 3), torch.randn(4, 2)]))
attempt("multi_dot 3-d", lambda: LA.multi_dot([torch.randn(2, 2, 2), torch.randn(2, 2)]))
attempt("matrix_power non-square", lambda: LA.matrix_power(torch.randn(2, 3), 2))
attempt("matrix_power singular negative", lambda: LA.matrix_power(sing, -1))
attempt("matrix_norm 1-d", lambda: LA.matrix_norm(torch.randn(3)))
attempt("tensorinv bad ind", lambda: LA.tensorinv(torch.randn(4, 4), ind=0))
attempt("tensorsolve reshaped B", lambda: LA.tensorsolve(torch.randn(2, 3, 6), torch.randn(3, 2)))
attempt("tensorsolve bad A", lambda: LA.tensorsolve(torch.randn(2, 2, 6), torch.randn(3, 2)))
attempt("tensorsolve prod mismatch", lambda: LA.tensorsolve(torch.randn(2, 3, 5), torch.randn(3, 2)))
attempt("cond batch with singular", lambda: LA.cond(torch.stack([sing, spd]), p="fro"))
attempt("cond -inf singular", lambda: LA.cond(torch.stack([spd, sing]), p=-torch.inf))
attempt("vander 0-d", lambda: LA.vander(torch.tensor(2.0)))
attempt("householder tau too long", lambda: LA.householder_product(torch.randn(3, 2), torch.randn(3)))

# --- dtypes and options --------------------------------------------------------------------------------------
attempt("inv int", lambda: LA.inv(torch.eye(2, dtype=torch.int64)))
attempt("solve mixed dtypes", lambda: LA.solve(spd, torch.ones(2, dtype=torch.float32)))
attempt("cholesky half", lambda: LA.cholesky(spd.half()))
attempt("det bool", lambda: LA.det(torch.eye(2, dtype=torch.bool)))
attempt("eigh UPLO", lambda: LA.eigh(spd, UPLO="X"))
attempt("eigvalsh UPLO", lambda: LA.eigvalsh(spd, UPLO="upper"))
attempt("qr mode", lambda: LA.qr(spd, mode="full"))
attempt("lstsq driver", lambda: LA.lstsq(spd, spd, driver="gelsx"))
attempt("vector_norm str ord", lambda: LA.vector_norm(torch.ones(3), "fro"))
attempt("matrix_norm ord 3", lambda: LA.matrix_norm(spd, ord=3))
attempt("norm nuc on vector", lambda: LA.norm(torch.ones(3), ord="nuc"))
attempt("cond singular huge", lambda: LA.cond(sing) > 1e15)
attempt("cond p=1 singular", lambda: LA.cond(sing, p=1))
attempt("vector_norm int", lambda: LA.vector_norm(torch.arange(3)))
attempt("matrix_rank both tols", lambda: LA.matrix_rank(spd, atol=0.1, rtol=0.1))
attempt("pinv singular ok", lambda: LA.pinv(sing))
attempt("slogdet singular ok", lambda: LA.slogdet(sing).logabsdet)
