"""The linear algebra functions PyTorch removed in 1.9 but still defines (`torch.lstsq`, `torch.solve`, `torch.eig`,
`torch.symeig`, `torch.matrix_rank`): old code finds them, and calling one raises PyTorch's migration message."""

from __future__ import annotations

from ember.core.methods import attach

__all__ = ["lstsq", "solve", "eig", "symeig", "matrix_rank"]

_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def lstsq(input, A, *, out=None):
    """Removed for `linalg.lstsq` (reversed arguments)."""
    raise RuntimeError(
        f"{_REMOVED} `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
        "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition in "
        "the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\n"
        "The returned solution in `torch.lstsq` stored the residuals of the solution in the "
        "last m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, "
        "the residuals are in the field 'residuals' of the returned named tuple.\n\n"
        "The unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\n"
        "should be replaced with:\nX = torch.linalg.lstsq(A, B).solution")


def solve(input, A, *, out=None):
    """Removed for `linalg.solve` (reversed arguments)."""
    raise RuntimeError(
        f"{_REMOVED} `torch.solve` is deprecated in favor of `torch.linalg.solve`. "
        "`torch.linalg.solve` has its arguments reversed and does not return the LU factorization.\n\n"
        "To get the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\n"
        "X = torch.solve(B, A).solution should be replaced with:\nX = torch.linalg.solve(A, B)")


def eig(self, eigenvectors=False, *, e=None, v=None):
    """Removed for `linalg.eig`/`linalg.eigvals` (complex results)."""
    raise RuntimeError(
        f"{_REMOVED} `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real "
        "tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\n"
        "L_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced "
        "with:\nL_complex, V_complex = torch.linalg.eig(A)")


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """Removed for `linalg.eigh`/`linalg.eigvalsh` (which read the lower triangle by default)."""
    raise RuntimeError(
        f"{_REMOVED} The default behavior has changed from using the upper triangular portion of the matrix by "
        "default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced "
        "with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\n"
        "L, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n"
        "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed for `linalg.matrix_rank` (`symmetric` renamed `hermitian`)."""
    raise RuntimeError(
        f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function instead. "
        "The parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.")


for _fn in (lstsq, solve, eig, symeig):
    attach(_fn.__name__, _fn)
