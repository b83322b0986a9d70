"""The mistakes a scientist makes moving numpy/scipy analysis code to torch, and what PyTorch says for each: integer
data into mean/quantile/histograms, float32/float64 mixes in solvers, 0-d inputs to integrators, bad ranges and bin
counts, empty reductions, windows of an integer dtype, spacing and edge_order in torch.gradient, plus the fixes
(explicit casts, keepdim, nan-aware reductions) with the values they then print."""

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64
rng = np.random.default_rng(30)


def attempt(label, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{label}: {type(e).__name__}: {str(e).splitlines()[0]}")
        return None
    if isinstance(out, torch.Tensor):
        shown = (
            np.round(out.detach().double().flatten()[:6].numpy(), 4).tolist()
            if out.is_floating_point()
            else out.flatten()[:6].tolist()
        )
        print(f"{label}: {out.dtype} {tuple(out.shape)} {shown}")
    else:
        print(f"{label}: {out}")
    return out


counts = torch.from_numpy(rng.poisson(4.0, 50))
print("counts", counts.dtype, counts[:8].tolist())
attempt("mean of int64", lambda: counts.mean())
attempt("mean with dtype", lambda: counts.mean(dtype=torch.float32))
attempt("float().mean()", lambda: counts.float().mean())
attempt("std of int64", lambda: counts.std())
attempt("quantile of int64", lambda: torch.quantile(counts, 0.5))
attempt("quantile of double", lambda: torch.quantile(counts.double(), torch.tensor([0.25, 0.5, 0.75], dtype=f64)))
attempt("quantile q float32 vs double data", lambda: torch.quantile(counts.double(), torch.tensor([0.5])))
attempt("median of int64", lambda: counts.median())
attempt("histc of int64", lambda: torch.histc(counts, bins=4))
attempt("histc of float", lambda: torch.histc(counts.float(), bins=4, min=0, max=12))
attempt("histc min > max", lambda: torch.histc(counts.float(), bins=4, min=10, max=2))
attempt("histogram of int64", lambda: torch.histogram(counts, bins=4))
attempt("histogram range reversed", lambda: torch.histogram(counts.double(), bins=4, range=(12.0, 0.0)))
attempt("histogram range equal", lambda: torch.histogram(counts.double(), bins=2, range=(4.0, 4.0)).hist)
attempt(
    "histogramdd ranges", lambda: torch.histogramdd(torch.rand(5, 2, dtype=f64), bins=2, range=[0.0, 1.0, 1.0, 0.5])
)
attempt("bincount", lambda: torch.bincount(counts))
attempt("bincount of float", lambda: torch.bincount(counts.float()))
attempt("bincount weights float32", lambda: torch.bincount(counts, weights=torch.ones(50)).dtype)
attempt("bincount minlength negative", lambda: torch.bincount(counts, minlength=-1))
attempt("mode of int64", lambda: torch.mode(counts).values)

print("-- linear algebra")
A64 = torch.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=f64)
b32 = torch.tensor([1.0, 2.0])
attempt("solve f64 with f32 rhs", lambda: torch.linalg.solve(A64, b32))
attempt("solve after cast", lambda: torch.linalg.solve(A64, b32.double()))
attempt("lstsq f64 with f32", lambda: torch.linalg.lstsq(A64, b32[:, None]))
attempt("lstsq int64 with f32", lambda: torch.linalg.lstsq(A64.long(), b32[:, None]))
attempt("lstsq int64", lambda: torch.linalg.lstsq(A64.long(), b32[:, None].long()))
attempt("lstsq wrong length vector", lambda: torch.linalg.lstsq(A64, torch.ones(3, dtype=f64)))
attempt("lstsq wrong rows", lambda: torch.linalg.lstsq(A64, torch.ones(3, 1, dtype=f64)))
attempt("cholesky_solve 1-D rhs", lambda: torch.cholesky_solve(torch.ones(2, dtype=f64), torch.linalg.cholesky(A64)))
attempt(
    "cholesky_solve rhs (2,1)", lambda: torch.cholesky_solve(torch.ones(2, 1, dtype=f64), torch.linalg.cholesky(A64))
)
attempt("cholesky_solve sizes", lambda: torch.cholesky_solve(torch.ones(3, 1, dtype=f64), torch.linalg.cholesky(A64)))
attempt("cholesky_solve dtypes", lambda: torch.cholesky_solve(torch.ones(2, 1), torch.linalg.cholesky(A64)))
attempt("cholesky_inverse non-square", lambda: torch.cholesky_inverse(torch.ones(3, 2, dtype=f64)))
attempt("det of int", lambda: torch.linalg.det(A64.long()))
attempt("inv of int", lambda: torch.linalg.inv(A64.int()))
attempt("vander of a number", lambda: torch.linalg.vander(torch.tensor(2.0), N=3))
attempt("vander N=1", lambda: torch.linalg.vander(torch.tensor([1.0, 2.0]), N=1))
attempt("vander of bools", lambda: torch.linalg.vander(torch.tensor([True, False])))
attempt("torch.vander of bools", lambda: torch.vander(torch.tensor([True, False]), N=3))
attempt("eigh keeps float32", lambda: torch.linalg.eigh(A64.float()).eigenvalues)
attempt("matrix_power of float32 f64 mix", lambda: torch.linalg.matrix_power(A64, 3) @ b32)

print("-- quadrature and derivatives")
attempt("trapezoid of a number", lambda: torch.trapezoid(torch.tensor(3.0)))
attempt("trapezoid number with x", lambda: torch.trapezoid(torch.tensor(3.0), torch.tensor(1.0)))
attempt("cumulative_trapezoid of a number", lambda: torch.cumulative_trapezoid(torch.tensor(3.0)))
attempt("trapezoid of ints", lambda: torch.trapezoid(torch.tensor([1, 2, 4])))
attempt("trapezoid x length", lambda: torch.trapezoid(torch.ones(4), torch.arange(3.0)))
attempt("trapezoid x and dx", lambda: torch.trapezoid(torch.ones(4), torch.arange(4.0), dx=0.5))
attempt("cumulative_trapezoid dim", lambda: torch.cumulative_trapezoid(torch.ones(2, 3), dim=0))
xg = torch.linspace(0, 1, 6, dtype=f64)
attempt("gradient spacing scalar", lambda: torch.gradient(xg**2, spacing=0.2)[0])
attempt("gradient spacing list of floats", lambda: torch.gradient(xg**2, spacing=[0.2])[0])
attempt("gradient coordinates", lambda: torch.gradient(xg**2, spacing=(xg,))[0])
attempt("gradient edge_order 2", lambda: torch.gradient(xg**2, spacing=(xg,), edge_order=2)[0])
attempt("gradient edge_order 3", lambda: torch.gradient(xg**2, edge_order=3))
attempt("gradient too short", lambda: torch.gradient(torch.ones(1)))
attempt("gradient of ints", lambda: torch.gradient(torch.tensor([1, 4, 9, 16]))[0])
attempt("diff n=2", lambda: torch.diff(xg**3, n=2))
attempt("diff of a number", lambda: torch.diff(torch.tensor(1.0)))
attempt("diff prepend wrong dims", lambda: torch.diff(torch.ones(2, 3), prepend=torch.ones(3)))

print("-- windows and spectra")
attempt("hann float64", lambda: torch.hann_window(5, periodic=False, dtype=f64))
attempt("hann int64", lambda: torch.hann_window(5, dtype=torch.int64))
attempt("hamming int32", lambda: torch.hamming_window(5, dtype=torch.int32))
attempt("blackman bool", lambda: torch.blackman_window(5, dtype=torch.bool))
attempt("kaiser uint8", lambda: torch.kaiser_window(5, dtype=torch.uint8))
attempt("bartlett negative", lambda: torch.bartlett_window(-2))
attempt("rfft of ints", lambda: torch.fft.rfft(torch.arange(4)).dtype)
attempt("fftfreq dtype", lambda: torch.fft.fftfreq(4, dtype=f64))
attempt("irfft n", lambda: torch.fft.irfft(torch.fft.rfft(xg), n=6))

print("-- reductions on empty and NaN data")
E0 = torch.empty(0, 3, dtype=f64)
attempt("nanmedian empty dim", lambda: E0.nanmedian(0))
attempt("median empty dim", lambda: E0.median(0))
attempt("nanmedian empty all", lambda: torch.empty(0).nanmedian())
attempt("kthvalue k too big", lambda: torch.kthvalue(xg, 10))
attempt("mode empty", lambda: torch.mode(torch.tensor([])))
attempt("mean of empty", lambda: torch.empty(0).mean())
attempt("amax of empty", lambda: torch.empty(0).amax())
attempt("logsumexp of empty", lambda: torch.logsumexp(torch.empty(0), 0))
attempt("quantile of empty", lambda: torch.quantile(torch.empty(0), 0.5))
attempt("quantile of 2**24+1", lambda: torch.quantile(torch.zeros(2**24 + 1), 0.5))
nanv = torch.tensor([1.0, float("nan"), 3.0, 4.0], dtype=f64)
attempt("mean with nan", lambda: nanv.mean())
attempt("nanmean", lambda: nanv.nanmean())
attempt("nansum", lambda: nanv.nansum())
attempt("nanquantile", lambda: torch.nanquantile(nanv, 0.5))
attempt("max with nan", lambda: nanv.max())
attempt("fmax", lambda: torch.fmax(nanv, torch.tensor(2.0, dtype=f64)))
attempt(
    "nan_to_num",
    lambda: torch.nan_to_num(torch.tensor([float("nan"), float("inf"), -float("inf")]), nan=0.0, posinf=1e6),
)
attempt("var of one element", lambda: torch.tensor([1.0]).var())
attempt("var correction too big", lambda: torch.ones(3, dtype=f64).var(correction=5))
attempt("std_mean of empty", lambda: torch.std_mean(torch.empty(0)))
attempt("cov of one observation", lambda: torch.cov(torch.tensor([[1.0], [2.0]])))
attempt("corrcoef constant row", lambda: torch.corrcoef(torch.tensor([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]])))
