"""Numerical-library mistakes from least-squares, covariance and spectral code, printed as type(e).__name__ and
the whole message: singular and non-square matrices, Cholesky of indefinite matrices, solve with mismatched
right-hand sides, integer inputs to decompositions, complex views of real tensors, fft over missing dims, and
the calls that work, with their results."""

import torch

torch.manual_seed(11)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    if isinstance(out, torch.Tensor):
        shown = torch.round(out, decimals=4) if out.is_floating_point() else out
        print(f"{name}: ok {tuple(out.shape)} {out.dtype} {shown}")
    else:
        print(f"{name}: ok {out}")
    return out


A = torch.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
S = torch.tensor([[1.0, 2.0], [2.0, 4.0]])
R = torch.randn(3, 4)
b = torch.tensor([1.0, 2.0, 3.0])

# --- inverses and solves --------------------------------------------------------------------------------------
show("inv_ok", lambda: torch.linalg.inv(A))
show("inv_singular", lambda: torch.linalg.inv(S))
show("inv_batch_singular", lambda: torch.linalg.inv(torch.stack([A[:2, :2], S])))
show("inv_rect", lambda: torch.linalg.inv(R))
show("inv_1d", lambda: torch.linalg.inv(b))
show("inv_int", lambda: torch.linalg.inv(torch.eye(3, dtype=torch.int64)))
show("inv_ex_info", lambda: torch.linalg.inv_ex(S).info)
show("pinv_singular_ok", lambda: torch.linalg.pinv(S))
show("solve_ok", lambda: torch.linalg.solve(A, b))
show("solve_rhs_size", lambda: torch.linalg.solve(A, torch.ones(4)))
show("solve_rhs_matrix", lambda: torch.linalg.solve(A, torch.ones(2, 3)))
show("solve_singular", lambda: torch.linalg.solve(S, torch.ones(2)))
show("solve_dtype", lambda: torch.linalg.solve(A, b.double()))
show("solve_triangular_upper_kw", lambda: torch.linalg.solve_triangular(A, b[:, None]))
show("solve_triangular_ok", lambda: torch.linalg.solve_triangular(A.triu(), b[:, None], upper=True))
show("lstsq_ok", lambda: torch.linalg.lstsq(R.T, torch.ones(4, 1)).solution)
show("lstsq_rows", lambda: torch.linalg.lstsq(R, torch.ones(4, 1)))
show("lstsq_driver", lambda: torch.linalg.lstsq(R, torch.ones(3, 1), driver="gelsz"))

# --- decompositions ------------------------------------------------------------------------------------------------
show("cholesky_ok", lambda: torch.linalg.cholesky(A))
show("cholesky_indefinite", lambda: torch.linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]])))
show("cholesky_batch", lambda: torch.linalg.cholesky(torch.stack([A[:2, :2], -torch.eye(2)])))
show("cholesky_ex_info", lambda: torch.linalg.cholesky_ex(torch.tensor([[1.0, 2.0], [2.0, 1.0]])).info)
show("cholesky_rect", lambda: torch.linalg.cholesky(R))
show("eigh_rect", lambda: torch.linalg.eigh(R))
show("eigh_ok", lambda: torch.linalg.eigvalsh(A))
show("eigh_uplo", lambda: torch.linalg.eigh(A, UPLO="X"))
show("eig_int", lambda: torch.linalg.eig(torch.eye(2, dtype=torch.int32)))
show("svd_int", lambda: torch.linalg.svd(torch.eye(2, dtype=torch.int64)))
show("svdvals_ok", lambda: torch.linalg.svdvals(R))
show("qr_mode", lambda: torch.linalg.qr(R, mode="thin"))
show("qr_r_ok", lambda: torch.linalg.qr(R, mode="r").R.abs())
show("det_rect", lambda: torch.linalg.det(R))
show("det_ok", lambda: torch.linalg.det(A))
show("slogdet_singular_ok", lambda: torch.linalg.slogdet(S))
show("matrix_rank_ok", lambda: torch.linalg.matrix_rank(S))
show("matrix_power_rect", lambda: torch.linalg.matrix_power(R, 2))
show("matrix_power_neg_singular", lambda: torch.linalg.matrix_power(S, -1))
show("matrix_exp_rect", lambda: torch.linalg.matrix_exp(R))
show("norm_ord", lambda: torch.linalg.norm(A, ord=3))
show("matrix_norm_ord", lambda: torch.linalg.matrix_norm(A, ord=3))
show("vector_norm_ok", lambda: torch.linalg.vector_norm(A, ord=3))
show("matrix_norm_1d", lambda: torch.linalg.matrix_norm(b))
show("cross_size", lambda: torch.linalg.cross(torch.ones(2, 2), torch.ones(2, 2)))
show("cross_ok", lambda: torch.linalg.cross(torch.eye(3), torch.ones(3, 3)))
show("multi_dot_one", lambda: torch.linalg.multi_dot([A]))
show("multi_dot_shapes", lambda: torch.linalg.multi_dot([A, R.T, A]))
show("multi_dot_ok", lambda: torch.linalg.multi_dot([R.T, A, b]))
show("diag_embed_ok", lambda: torch.diag_embed(b, offset=1))
show("diag_3d", lambda: torch.diag(torch.ones(2, 2, 2)))
show("trace_3d", lambda: torch.trace(torch.ones(2, 2, 2)))
show("cov_3d", lambda: torch.cov(torch.ones(2, 2, 2)))
show("cov_weights", lambda: torch.cov(R, fweights=torch.tensor([1.0, 2.0, 1.0, 1.0])))
show("cov_ok", lambda: torch.cov(R))
show("corrcoef_ok", lambda: torch.corrcoef(R))

# --- complex and fft -------------------------------------------------------------------------------------------------
show("view_as_complex_last", lambda: torch.view_as_complex(torch.ones(3, 3)))
show("view_as_complex_stride", lambda: torch.view_as_complex(torch.ones(2, 4)[:, ::2]))
show("view_as_complex_ok", lambda: torch.view_as_complex(torch.ones(3, 2)))
show("view_as_real_real", lambda: torch.view_as_real(torch.ones(3)))
show("complex_dtypes", lambda: torch.complex(torch.ones(2), torch.ones(2, dtype=torch.float64)))
show("complex_int", lambda: torch.complex(torch.ones(2, dtype=torch.long), torch.ones(2, dtype=torch.long)))
show("polar_ok", lambda: torch.polar(torch.ones(2), torch.tensor([0.0, 1.0])))
show("real_of_real_ok", lambda: torch.real(b))
show("imag_of_real", lambda: torch.imag(b))
show("complex_to_float_ok", lambda: torch.tensor([1 + 2j]).abs())
show("complex_lt", lambda: torch.tensor([1 + 2j]) < torch.tensor([2 + 0j]))
show("complex_max", lambda: torch.tensor([1 + 2j, 3j]).max())
show("complex_item_float", lambda: float(torch.tensor(1 + 2j)))
show("fft_dim", lambda: torch.fft.fft(b, dim=1))
show("fft_n_zero", lambda: torch.fft.fft(b, n=0))
show("fft_norm", lambda: torch.fft.fft(b, norm="unitary"))
show("rfft_complex", lambda: torch.fft.rfft(torch.ones(4, dtype=torch.complex64)))
show("fft2_1d", lambda: torch.fft.fft2(b))
show("fftn_s_dim", lambda: torch.fft.fftn(A, s=(3, 3), dim=(0,)))
show("rfft_ok", lambda: torch.fft.rfft(b).abs())
show("irfft_ok", lambda: torch.fft.irfft(torch.fft.rfft(b), n=3))
show("stft_no_window_ok", lambda: torch.stft(torch.ones(16), 8, return_complex=True, window=torch.ones(8)).shape)
show("stft_return_complex", lambda: torch.stft(torch.ones(16), 8))
show("stft_window_size", lambda: torch.stft(torch.ones(16), 8, window=torch.ones(5), return_complex=True))
