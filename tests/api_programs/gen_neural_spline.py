"""Neural spline flows (rational-quadratic splines) as nflows writes them: softmax widths/heights, cumsum knots
padded with F.pad, bin lookup with torch.searchsorted (and the sum(x >= knots) idiom), forward/inverse with
closed-form log|det|, linear tails outside the interval, checked against autograd's jacobian and torch.func.vmap."""

import math

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


DEFAULT_MIN_BIN_WIDTH = 1e-3
DEFAULT_MIN_BIN_HEIGHT = 1e-3
DEFAULT_MIN_DERIVATIVE = 1e-3


def searchsorted(bin_locations, inputs, eps=1e-6):
    bin_locations = bin_locations.clone()
    bin_locations[..., -1] += eps
    return torch.sum(inputs[..., None] >= bin_locations, dim=-1) - 1


def rational_quadratic_spline(inputs, uw, uh, ud, inverse=False, left=-3.0, right=3.0, bottom=-3.0, top=3.0,
                              min_bin_width=DEFAULT_MIN_BIN_WIDTH, min_bin_height=DEFAULT_MIN_BIN_HEIGHT,
                              min_derivative=DEFAULT_MIN_DERIVATIVE):
    num_bins = uw.shape[-1]
    widths = F.softmax(uw, dim=-1)
    widths = min_bin_width + (1 - min_bin_width * num_bins) * widths
    cumwidths = torch.cumsum(widths, dim=-1)
    cumwidths = F.pad(cumwidths, pad=(1, 0), mode="constant", value=0.0)
    cumwidths = (right - left) * cumwidths + left
    cumwidths[..., 0] = left
    cumwidths[..., -1] = right
    widths = cumwidths[..., 1:] - cumwidths[..., :-1]

    derivatives = min_derivative + F.softplus(ud)

    heights = F.softmax(uh, dim=-1)
    heights = min_bin_height + (1 - min_bin_height * num_bins) * heights
    cumheights = torch.cumsum(heights, dim=-1)
    cumheights = F.pad(cumheights, pad=(1, 0), mode="constant", value=0.0)
    cumheights = (top - bottom) * cumheights + bottom
    cumheights[..., 0] = bottom
    cumheights[..., -1] = top
    heights = cumheights[..., 1:] - cumheights[..., :-1]

    if inverse:
        bin_idx = searchsorted(cumheights, inputs)[..., None]
    else:
        bin_idx = searchsorted(cumwidths, inputs)[..., None]

    input_cumwidths = cumwidths.gather(-1, bin_idx)[..., 0]
    input_bin_widths = widths.gather(-1, bin_idx)[..., 0]
    input_cumheights = cumheights.gather(-1, bin_idx)[..., 0]
    delta = heights / widths
    input_delta = delta.gather(-1, bin_idx)[..., 0]
    input_derivatives = derivatives.gather(-1, bin_idx)[..., 0]
    input_derivatives_plus_one = derivatives[..., 1:].gather(-1, bin_idx)[..., 0]
    input_heights = heights.gather(-1, bin_idx)[..., 0]

    if inverse:
        a = (inputs - input_cumheights) * (input_derivatives + input_derivatives_plus_one - 2 * input_delta) \
            + input_heights * (input_delta - input_derivatives)
        b = input_heights * input_derivatives - (inputs - input_cumheights) * (
            input_derivatives + input_derivatives_plus_one - 2 * input_delta)
        c = -input_delta * (inputs - input_cumheights)
        discriminant = b.pow(2) - 4 * a * c
        assert (discriminant >= 0).all()
        root = (2 * c) / (-b - torch.sqrt(discriminant))
        outputs = root * input_bin_widths + input_cumwidths
        theta_one_minus_theta = root * (1 - root)
        denominator = input_delta + ((input_derivatives + input_derivatives_plus_one - 2 * input_delta)
                                     * theta_one_minus_theta)
        derivative_numerator = input_delta.pow(2) * (input_derivatives_plus_one * root.pow(2)
                                                     + 2 * input_delta * theta_one_minus_theta
                                                     + input_derivatives * (1 - root).pow(2))
        logabsdet = torch.log(derivative_numerator) - 2 * torch.log(denominator)
        return outputs, -logabsdet
    theta = (inputs - input_cumwidths) / input_bin_widths
    theta_one_minus_theta = theta * (1 - theta)
    numerator = input_heights * (input_delta * theta.pow(2) + input_derivatives * theta_one_minus_theta)
    denominator = input_delta + ((input_derivatives + input_derivatives_plus_one - 2 * input_delta)
                                 * theta_one_minus_theta)
    outputs = input_cumheights + numerator / denominator
    derivative_numerator = input_delta.pow(2) * (input_derivatives_plus_one * theta.pow(2)
                                                 + 2 * input_delta * theta_one_minus_theta
                                                 + input_derivatives * (1 - theta).pow(2))
    logabsdet = torch.log(derivative_numerator) - 2 * torch.log(denominator)
    return outputs, logabsdet


def unconstrained_rqs(inputs, uw, uh, ud, inverse=False, tail_bound=3.0):
    inside = (inputs >= -tail_bound) & (inputs <= tail_bound)
    outside = ~inside
    outputs = torch.zeros_like(inputs)
    logabsdet = torch.zeros_like(inputs)
    ud = F.pad(ud, pad=(1, 1))
    constant = math.log(math.exp(1 - DEFAULT_MIN_DERIVATIVE) - 1)
    ud[..., 0] = constant
    ud[..., -1] = constant
    outputs[outside] = inputs[outside]
    logabsdet[outside] = 0
    if inside.any():
        outputs[inside], logabsdet[inside] = rational_quadratic_spline(
            inputs[inside], uw[inside, :], uh[inside, :], ud[inside, :], inverse=inverse,
            left=-tail_bound, right=tail_bound, bottom=-tail_bound, top=tail_bound)
    return outputs, logabsdet


K = 5
N = 12
x = torch.linspace(-4.0, 4.0, N)
uw = torch.sin(torch.arange(N * K, dtype=torch.float32).view(N, K) * 0.61)
uh = torch.cos(torch.arange(N * K, dtype=torch.float32).view(N, K) * 0.43)
ud = 0.5 * torch.sin(torch.arange(N * (K - 1), dtype=torch.float32).view(N, K - 1) * 0.29 + 1)

y, lad = unconstrained_rqs(x, uw, uh, ud)
print("x  ", x)
print("y  ", y)
print("lad", lad)
xr, lad_inv = unconstrained_rqs(y, uw, uh, ud, inverse=True)
print("roundtrip", torch.allclose(xr, x, atol=1e-5), "lad sums to 0", torch.allclose(lad + lad_inv,
                                                                                    torch.zeros(N), atol=1e-5))
ys, _ = unconstrained_rqs(x, uw[5].expand(N, K), uh[5].expand(N, K), ud[5].expand(N, K - 1).clone())
print("one spline monotone", bool((torch.diff(ys) > 0).all()), r(ys, 12),
      "tails identity", torch.equal(y[[0, -1]], x[[0, -1]]))

# the bin indices: torch.searchsorted agrees with the sum(x >= knots) idiom
widths = F.softmax(uw, -1)
knots = F.pad(torch.cumsum(widths, -1), (1, 0)) * 6 - 3
inside = x.abs() <= 3
idx_sum = searchsorted(knots[inside], x[inside])
idx_ss = torch.searchsorted(knots[inside].contiguous(), x[inside].unsqueeze(-1), right=True).squeeze(-1) - 1
print("bins", idx_sum.tolist(), idx_sum.dtype, torch.equal(idx_sum, idx_ss.clamp(max=K - 1)))
print("searchsorted 1-D", torch.searchsorted(torch.tensor([-1.0, 0.0, 0.5, 2.0]), torch.tensor([-2.0, 0.0, 0.7, 3.0])),
      torch.searchsorted(torch.tensor([-1.0, 0.0, 0.5, 2.0]), torch.tensor([0.0, 0.5]), side="right"),
      torch.bucketize(torch.tensor([0.1, 0.5, 2.5]), torch.tensor([0.0, 0.5, 1.0]), right=False, out_int32=True))
seq = torch.tensor([3.0, 1.0, 2.0])
print("sorter", torch.searchsorted(seq, torch.tensor([1.5, 2.5]), sorter=torch.argsort(seq)))

# log|det| against autograd: the spline acts elementwise, so the Jacobian is diagonal
xi = x[inside].clone().requires_grad_(True)
yi, ladi = rational_quadratic_spline(xi, uw[inside], uh[inside], F.pad(ud[inside], (1, 1), value=math.log(
    math.exp(1 - DEFAULT_MIN_DERIVATIVE) - 1)))
(g,) = torch.autograd.grad(yi.sum(), xi)
print("autograd log|dy/dx|", r(torch.log(g), 8))
print("closed-form        ", r(ladi, 8), torch.allclose(torch.log(g), ladi, atol=1e-4))
J = torch.autograd.functional.jacobian(
    lambda v: rational_quadratic_spline(v, uw[inside], uh[inside], F.pad(ud[inside], (1, 1), value=0.5413))[0],
    x[inside])
print("jacobian", J.shape, "diagonal", torch.count_nonzero(J - torch.diag(torch.diagonal(J))).item() == 0)

# gradients flow into the spline parameters
uw_p = uw.clone().requires_grad_(True)
uh_p = uh.clone().requires_grad_(True)
ud_p = ud.clone().requires_grad_(True)
out, ld = unconstrained_rqs(x, uw_p, uh_p, ud_p)
nll = (0.5 * out ** 2 - ld).sum()
nll.backward()
print("nll", round(nll.item(), 4), "grad uw", r(uw_p.grad[2], 5), "\ngrad uh", r(uh_p.grad[2], 5),
      "\ngrad ud", r(ud_p.grad[2], 4), "outside rows zero", uw_p.grad[0].abs().sum().item() == 0)

# a batched spline through vmap over samples
def one(xs, a, b, c):
    return rational_quadratic_spline(xs, a, b, F.pad(c, (1, 1), value=0.5413))[0]


xs = torch.linspace(-2.5, 2.5, 4)
out_v = torch.func.vmap(one)(xs, uw[:4], uh[:4], ud[:4])
print("vmap", out_v, torch.allclose(out_v, one(xs, uw[:4], uh[:4], ud[:4])))
