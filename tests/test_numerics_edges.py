"""Numerics at the edges: one table of cases, each a formula at the boundary of its domain or at an
extreme magnitude (probabilities of exactly 0 and 1, logits of +-1e4, all-equal and -inf inputs,
zero vectors, ties, empty and single-element reductions, ignored targets, a mean of 1e4 against a
spread of 1e-2), with its expected forward value and gradients.

The expectations are float64 values: PyTorch 2.13's results computed in float64 on the same
(float32-rounded) inputs, which agree with the float64 math; `ref="float32"` marks the few cases
whose edge exists only in float32 (a sigmoid that rounds to exactly 1), expected as PyTorch
computes them in float32. ember runs every case in float32 with autograd: the unmarked test
asserts it is finite where the expectation is and within the case's tolerance of it; the
torch-marked test recomputes each expectation with PyTorch and checks the table against it.
The gradient of a case is that of `(out * w).sum()` with fixed weights w = cos(0, 1, 2, ...),
so symmetric outputs (softmax rows) do not hide a wrong gradient behind a zero. A numpy
RuntimeWarning (overflow, invalid value) raised by a case fails it: PyTorch computes the same
infinities and NaNs silently.
"""

# ruff: noqa: E501 - the table's rows carry their expected values on one line

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from collections.abc import Callable

import numpy as np
import pytest

try:  # tests/ is a rootdir module or, with consider_namespace_packages, the package `tests`
    from tests.conftest import ember_torch
except ImportError:
    from conftest import ember_torch

INF, NAN = math.inf, math.nan


class Lib:
    """The torch-like module `t`, its functional `F`, and makers of inputs in the run's dtype."""

    def __init__(self, t, F, dtype: str, device: str = "cpu") -> None:
        self.t, self.F, self.dtype, self.device = t, F, getattr(t, dtype), device

    def _t(self, v, grad: bool):
        a = np.asarray(v, dtype=np.float32)  # every run sees the same float32-rounded inputs
        return self.t.tensor(a.astype(np.float64), dtype=self.dtype, device=self.device, requires_grad=grad)

    def x(self, v):
        """A leaf that requires grad."""
        return self._t(v, True)

    def c(self, v):
        """A constant."""
        return self._t(v, False)

    def i(self, v):
        """Class indices."""
        return self.t.tensor(np.asarray(v, dtype=np.int64), device=self.device)


@dataclass(frozen=True)
class Edge:
    name: str
    build: Callable      # build(Lib) -> (output, [leaves])
    forward: object      # expected output (nested lists, float64)
    grads: tuple = ()    # expected gradient of each leaf (none without leaves)
    rtol: float = 1e-5
    atol: float = 1e-6
    ref: str = "float64"
    differs: str = ""    # why ember deliberately differs from PyTorch here (the torch test skips it)


_BIG = [[-1.5, .5], [.3, -.2], [1.1, 1.9], [.1, -2.2]]  # x 1e-2 around 1e4: a spread 1e6 times below the mean


def _stats_input(shape):
    return (1e4 + 1e-2 * np.asarray(_BIG).reshape(-1)[:int(np.prod(shape))].reshape(shape)).tolist()


def _var_large_mean(L):
    x = L.x([1e4 + 0.01, 1e4 - 0.01, 1e4 + 0.02, 1e4])
    return x.var(), [x]


def _running_var(L):
    rm, rv = L.t.zeros(2, dtype=L.dtype), L.t.ones(2, dtype=L.dtype)
    L.F.batch_norm(L.c(_stats_input((4, 2))), rm, rv, training=True, momentum=1.0)
    return rv * 1e4, []


def _var_mean(L):
    x = L.x([1e4 + 0.01, 1e4 - 0.01, 1e4 + 0.02, 1e4])
    v, m = L.t.var_mean(x)
    return L.t.stack([v * 1e4, m - 1e4]), [x]


EDGES = [
    # binary cross entropy: the logs clamp at -100; the gradient is PyTorch's boundary rule
    Edge("bce_at_0_and_1", lambda L: (L.F.binary_cross_entropy(x := L.x([0., 1., .5]), L.c([0., 1., 1.])), [x]),
         0.2310490602, ([0.0, 0.0, -0.6666666667],)),
    Edge("bce_wrong_side_of_0_and_1", lambda L: (L.F.binary_cross_entropy(
        x := L.x([0., 1., 1e-30]), L.c([1., 0., 1.]), reduction="none"), [x]), [100.0, 100.0, 69.07755279], ([-1000000004000.0, 540302308000.0, 416146838200.0],)),
    Edge("bce_weight_sum", lambda L: (L.F.binary_cross_entropy(
        x := L.x([0., 1., .25]), L.c([.3, 1., 0.]), weight=L.c([2., 3., 4.]), reduction="sum"), [x]), 61.15073067, ([-600000026200.0, 0.0, 5.333333333],)),
    Edge("bce_target_grad_at_0_and_1", lambda L: (L.F.binary_cross_entropy(
        x := L.x([0., 1., .25]), y := L.x([.3, 1., 0.]), reduction="sum"), [x, y]), 30.28768326, ([-300000013100.0, 0.0, 1.333333333], [100.0, -100.0, 1.098612289],),
         differs="the target's gradient is that of the clamped logs, finite; PyTorch's is +-inf at 0 and 1"),
    Edge("bce_of_saturated_sigmoid", lambda L: (L.F.binary_cross_entropy(
        L.t.sigmoid(x := L.x([20., -20.])), L.c([0., 1.])), [x]), 60.0, ([0.0, -0.5],), ref="float32"),
    Edge("bce_logits_at_0", lambda L: (L.F.binary_cross_entropy_with_logits(
        x := L.x([0., 0., 0., 0.]), L.c([0., 1., .5, 1.])), [x]), 0.6931471806, ([0.125, -0.125, 0.0, -0.125],)),
    Edge("bce_logits_at_0_pos_weight_weight", lambda L: (L.F.binary_cross_entropy_with_logits(
        x := L.x([[0., 0.], [0., 0.]]), L.c([[0., 1.], [.5, 1.]]), weight=L.c([2., .5]),
        pos_weight=L.c([3., .25])), [x]), 1.08304247, ([[0.25, -0.015625], [-0.25, -0.015625]],)),
    Edge("bce_logits_1e4", lambda L: (L.F.binary_cross_entropy_with_logits(
        x := L.x([1e4, -1e4, 1e4, -1e4, 88.7, -104.]), L.c([0., 1., 1., 0., 0., 1.]), reduction="none"), [x]), [10000.0, 10000.0, 0.0, 0.0, 88.69999695, 104.0], ([1.0, -0.5403023059, 0.0, 0.0, -0.6536436209, -0.2836621855],)),
    Edge("bce_logits_1e4_pos_weight", lambda L: (L.F.binary_cross_entropy_with_logits(
        x := L.x([1e4, -1e4, 1e4, -1e4]), L.c([0., 1., 1., .5]), pos_weight=L.c([2., 2., 2., 2.]),
        reduction="none"), [x]), [10000.0, 20000.0, 0.0, 10000.0], ([1.0, -1.080604612, 0.0, 0.9899924966],)),
    Edge("multilabel_soft_margin_1e4", lambda L: (L.F.multilabel_soft_margin_loss(
        x := L.x([[1e4, -1e4, 0.]]), L.c([[0., 1., 1.]])), [x]), 6666.897716, ([[0.3333333333, -0.3333333333, -0.1666666667]],)),
    Edge("soft_margin_1e4", lambda L: (L.F.soft_margin_loss(
        x := L.x([1e4, -1e4, 0.]), L.c([-1., 1., -1.]), reduction="none"), [x]), [INF, INF, 0.6931471806], ([NAN, NAN, -0.2080734183],)),

    # softmax family: huge logits, ties, -inf entries and rows
    Edge("softmax_1e4_and_all_equal", lambda L: (L.F.softmax(x := L.x([[1e4, -1e4, 0.], [3., 3., 3.]]), 1), [x]),
         [[1.0, 0.0, 0.0], [0.3333333333, 0.3333333333, 0.3333333333]], ([[0.0, 0.0, 0.0], [-0.1788892842, -0.06677299229, 0.2456622765]],)),
    Edge("log_softmax_1e4_and_all_equal", lambda L: (L.F.log_softmax(
        x := L.x([[1e4, -1e4, 0.], [3., 3., 3.]]), 1), [x]), [[0.0, -20000.0, -10000.0], [-1.098612289, -1.098612289, -1.098612289]], ([[-0.1241554693, 0.5403023059, -0.4161468365], [-0.5366678526, -0.2003189769, 0.7369868295]],)),
    Edge("softmax_neg_inf_entry", lambda L: (L.F.softmax(x := L.x([[0., -INF, 1.]]), 1), [x]), [[0.2689414214, 0.0, 0.7310585786]], ([[0.2784313673, 0.0, -0.2784313673]],)),
    Edge("softmax_all_neg_inf_row", lambda L: (L.F.softmax(x := L.x([[0., -INF, 1.], [-INF, -INF, -INF]]), 1),
                                               [x]), [[0.2689414214, 0.0, 0.7310585786], [NAN, NAN, NAN]], ([[0.2784313673, 0.0, -0.2784313673], [NAN, NAN, NAN]],)),
    Edge("log_softmax_neg_inf_entry", lambda L: (L.F.log_softmax(x := L.x([[0., -INF, 1.]]), 1), [x]), [[-1.313261688, -INF, -0.3132616875]], ([[0.6976680302, 0.5403023059, -1.237970336]],)),
    Edge("softmin_1e4", lambda L: (L.F.softmin(x := L.x([[1e4, -1e4, 0.]]), 1), [x]), [[0.0, 1.0, 0.0]], ([[0.0, 0.0, 0.0]],)),
    Edge("logsumexp_1e4_and_all_equal", lambda L: (L.t.logsumexp(x := L.x([[1e4, -1e4, 1e4], [3., 3., 3.]]), 1),
                                                   [x]), [10000.69315, 4.098612289], ([[0.5, 0.0, 0.5], [0.1801007686, 0.1801007686, 0.1801007686]],)),
    Edge("logsumexp_neg_inf", lambda L: (L.t.logsumexp(x := L.x([[-INF, -INF], [0., -INF]]), 1), [x]), [-INF, 0.0], ([[NAN, NAN], [0.5403023059, 0.0]],)),

    # cross entropy / nll: ignore_index, label smoothing, huge logits
    Edge("cross_entropy_neg_inf_logit", lambda L: (L.F.cross_entropy(x := L.x([[0., -INF, 1.], [2., -INF, 0.]]),
                                                                     L.i([2, 0])), [x]), 0.2200948493, ([[0.1344707107, 0.0, -0.1344707107], [-0.05960146101, 0.0, 0.05960146101]],)),
    Edge("cross_entropy_all_ignored_mean", lambda L: (L.F.cross_entropy(x := L.x([[1., 2.], [3., 4.]]),
                                                                        L.i([-100, -100])), [x]), NAN, ([[0.0, 0.0], [0.0, 0.0]],)),
    Edge("cross_entropy_some_ignored", lambda L: (L.F.cross_entropy(x := L.x([[1., 2.], [3., 4.]]),
                                                                    L.i([1, -100])), [x]), 0.3132616875, ([[0.2689414214, -0.2689414214], [0.0, 0.0]],)),
    Edge("cross_entropy_ignored_with_label_smoothing", lambda L: (L.F.cross_entropy(
        x := L.x([[1., 2., 0.], [3., 4., 1.]]), L.i([1, 5]), ignore_index=5, label_smoothing=.2), [x]), 0.6076059644, ([[0.1780618044, -0.2014257109, 0.0233639065], [0.0, 0.0, 0.0]],)),
    Edge("cross_entropy_label_smoothing_weight", lambda L: (L.F.cross_entropy(
        x := L.x([[1., 2., 0.], [3., 4., 1.]]), L.i([1, 0]), weight=L.c([1., 2., 3.]), label_smoothing=.3), [x]),
         1.222975937, ([[0.1298189807, -0.08983936282, -0.03997961789], [-0.1542182005, 0.2389999555, -0.08478175498]],)),
    Edge("cross_entropy_1e4", lambda L: (L.F.cross_entropy(x := L.x([[1e4, -1e4, 0.], [0., 0., 0.]]),
                                                           L.i([1, 2])), [x]), 10000.54931, ([[0.5, -0.5, 0.0], [0.1666666667, 0.1666666667, -0.3333333333]],)),
    Edge("cross_entropy_probabilities_1e4", lambda L: (L.F.cross_entropy(
        x := L.x([[1e4, -1e4, 0.]]), L.c([[0., 1., 0.]])), [x]), 20000.0, ([[1.0, -1.0, 0.0]],)),
    Edge("nll_all_ignored_mean", lambda L: (L.F.nll_loss(x := L.x([[-1., -2.], [-3., -4.]]), L.i([-100, -100])),
                                            [x]), NAN, ([[0.0, 0.0], [0.0, 0.0]],)),
    Edge("nll_all_ignored_sum", lambda L: (L.F.nll_loss(x := L.x([[-1., -2.], [-3., -4.]]), L.i([-100, -100]),
                                                        reduction="sum"), [x]), 0.0, ([[0.0, 0.0], [0.0, 0.0]],)),

    # other losses at their kinks and boundaries
    Edge("kl_div_zero_target", lambda L: (L.F.kl_div(x := L.x([-1., -2., -INF]), L.c([0., .5, 0.]),
                                                     reduction="sum"), [x]), NAN, ([0.0, -0.5, 0.0],)),
    Edge("kl_div_log_target_neg_inf", lambda L: (L.F.kl_div(x := L.x([-1., -2., -3.]), L.c([-INF, -.5, -1e4]),
                                                            reduction="sum", log_target=True), [x]), NAN, ([0.0, -0.6065306597, 0.0],)),
    Edge("kl_div_target_grad_at_0", lambda L: (L.F.kl_div(x := L.x([-1., -2.]), y := L.x([0., .5]),
                                                           reduction="sum"), [x, y]), 0.6534264097, ([0.0, -0.5], [NAN, 2.306852819],)),
    Edge("poisson_nll_log_input_extremes", lambda L: (L.F.poisson_nll_loss(
        x := L.x([0., 50., -1e4]), L.c([0., 2., 1.]), reduction="sum"), [x]), 5.184705529e+21, ([1.0, 5.184705529e+21, -1.0],)),
    Edge("poisson_nll_full_target_0_and_1", lambda L: (L.F.poisson_nll_loss(
        x := L.x([.5, 1., 0.]), L.c([0., 1., 3.]), log_input=False, full=True, reduction="sum"), [x]), 58.52612377, ([1.0, 9.999999828e-09, -299999999.0],)),
    Edge("smooth_l1_beta_0", lambda L: (L.F.smooth_l1_loss(x := L.x([0., 1., -2.]), L.c([0., 0., 0.]), beta=0.,
                                                           reduction="sum"), [x]), 3.0, ([0.0, 1.0, -1.0],)),
    Edge("smooth_l1_at_kinks", lambda L: (L.F.smooth_l1_loss(x := L.x([0., 1., -1., 2.]), L.c([0., 0., 0., 0.]),
                                                             reduction="sum"), [x]), 2.5, ([0.0, 1.0, -1.0, 1.0],)),
    Edge("huber_at_kinks", lambda L: (L.F.huber_loss(x := L.x([0., 1., -1., 2.]), L.c([0., 0., 0., 0.]),
                                                     reduction="sum"), [x]), 2.5, ([0.0, 1.0, -1.0, 1.0],)),
    Edge("l1_at_0", lambda L: (L.F.l1_loss(x := L.x([0., 1.]), L.c([0., 0.])), [x]), 0.5, ([0.0, 0.5],)),
    Edge("margin_ranking_at_kink", lambda L: (L.F.margin_ranking_loss(
        a := L.x([1., 2.]), b := L.x([1., 1.]), L.c([1., -1.]), reduction="sum"), [a, b]), 1.0, ([-1.0, 1.0], [1.0, -1.0],)),
    Edge("hinge_embedding_at_kink", lambda L: (L.F.hinge_embedding_loss(x := L.x([1., .5]), L.c([-1., -1.]),
                                                                        reduction="sum"), [x]), 0.5, ([-1.0, -1.0],)),
    Edge("gaussian_nll_var_0", lambda L: (L.F.gaussian_nll_loss(x := L.x([1., 2.]), L.c([1., 1.]),
                                                                v := L.x([0., 1.]), reduction="sum"), [x, v]),
         -6.407755279, ([0.0, 1.0], [500000.0, 0.0],), rtol=1e-4),
    Edge("cosine_embedding_zero_vector", lambda L: (L.F.cosine_embedding_loss(
        a := L.x([[0., 0.], [1., 2.]]), b := L.x([[1., 2.], [1., 2.]]), L.c([1., -1.])), [a, b]), 1.0, ([[-223606.7982, -447213.5964], [1.999789223e-14, 3.999578446e-14]], [[0.0, 0.0], [1.999789223e-14, 3.999578446e-14]],)),
    Edge("triplet_margin_equal_points", lambda L: (L.F.triplet_margin_loss(
        a := L.x([[1., 2.]]), p := L.x([[1., 2.]]), n := L.x([[3., 2.]])), [a, p, n]), 0.0, ([[0.0, 0.0]], [[0.0, 0.0]], [[0.0, 0.0]],)),

    Edge("multi_margin_at_kink", lambda L: (L.F.multi_margin_loss(x := L.x([[1., 0., 1.]]), L.i([0])), [x]), 0.3333333333, ([[-0.3333333333, 0.0, 0.3333333333]],)),
    # norms, distances and normalizations of zero vectors
    Edge("norm_at_0", lambda L: ((x := L.x([0., 0., 0.])).norm(), [x]), 0.0, ([0.0, 0.0, 0.0],)),
    Edge("vector_norm_ord_1_3_inf_at_0", lambda L: (L.t.linalg.vector_norm(x := L.x([0., 0.]), 3)
                                                    + L.t.linalg.vector_norm(x, 1)
                                                    + L.t.linalg.vector_norm(x, INF), [x]), 0.0, ([0.0, 0.0],)),
    Edge("vector_norm_ord_half_with_a_0", lambda L: (L.t.linalg.vector_norm(x := L.x([0., 1.]), .5), [x]), 1.0, ([0.0, 1.0],)),
    Edge("norm_dim_zero_row", lambda L: ((x := L.x([[0., 0.], [3., 4.]])).norm(dim=1), [x]), [0.0, 5.0], ([[0.0, 0.0], [0.3241813835, 0.4322418447]],)),
    Edge("norm_huge_and_tiny", lambda L: (L.t.stack([(x := L.x([3e30, 4e30])).norm() * 1e-30,
                                                     (y := L.x([3e-30, 4e-30])).norm() * 1e30]), [x, y]),
         [INF, 0.0], ([0.0, 0.0], [0.0, 0.0],), ref="float32"),  # float32 squares overflow and underflow, as in PyTorch
    Edge("cosine_similarity_zero_vectors", lambda L: (L.F.cosine_similarity(
        a := L.x([[0., 0.], [1., 0.]]), b := L.x([[1., 2.], [0., 0.]])), [a, b]), [0.0, 0.0], ([[44721359.55, 89442719.1], [0.0, 0.0]], [[0.0, 0.0], [54030230.59, 0.0]],)),
    Edge("cosine_similarity_below_eps", lambda L: (L.F.cosine_similarity(a := L.x([[1e-10, 0.]]),
                                                                         b := L.x([[1., 2.]])), [a, b]), [0.004472136015], ([[44274145.95, 89442719.1]], [[0.003577708812, -0.001788854406]],)),
    Edge("normalize_zero_row", lambda L: (L.F.normalize(x := L.x([[0., 0.], [3., 4.]])), [x]), [[0.0, 0.0], [0.6, 0.8]], ([[1000000000000.0, 540302305900.0], [0.0417724846, -0.03132936345]],)),
    Edge("normalize_p1_zero_row", lambda L: (L.F.normalize(x := L.x([[0., 0.], [3., -4.]]), p=1), [x]), [[0.0, 0.0], [0.4285714286, -0.5714285714]], ([[1000000000000.0, 540302305900.0], [-0.1147868843, -0.08609016325]],)),
    Edge("cdist_zero_distance", lambda L: (L.t.cdist(a := L.x([[0., 0.], [1., 1.]]), b := L.x([[0., 0.], [1., 2.]])),
                                           [a, b]), [[0.0, 2.236067977], [1.414213562, 1.0]], ([[-0.2416305369, -0.4832610737], [-0.2942602501, 0.6957322465]], [[0.2942602501, 0.2942602501], [0.2416305369, -0.5067314229]],)),
    Edge("cdist_p1_zero_distance", lambda L: (L.t.cdist(a := L.x([[0., 0.], [1., 1.]]), b := L.x([[0., 0.]]), p=1),
                                              [a, b]), [[0.0], [2.0]], ([[0.0, 0.0], [0.5403023059, 0.5403023059]], [[-0.5403023059, -0.5403023059]],)),
    Edge("pdist_zero_distance", lambda L: (L.F.pdist(x := L.x([[0., 0.], [0., 0.], [1., 1.]])), [x]), [0.0, 1.414213562, 1.414213562], ([[-0.3820514244, -0.3820514244], [0.2942602501, 0.2942602501], [0.08779117428, 0.08779117428]],)),
    Edge("pairwise_distance_equal_points", lambda L: (L.F.pairwise_distance(a := L.x([[1., 2.]]),
                                                                            b := L.x([[1., 2.]])), [a, b]), [1.414213562e-06], ([[0.7071067812, 0.7071067812]], [[-0.7071067812, -0.7071067812]],)),
    Edge("dist_equal_points", lambda L: (L.t.dist(a := L.x([1., 2.]), b := L.x([1., 2.])), [a, b]), 0.0, ([0.0, 0.0], [0.0, 0.0],)),

    # elementwise math at 0 and at kinks
    Edge("sqrt_at_0", lambda L: ((x := L.x([0., 4.])).sqrt(), [x]), [0.0, 2.0], ([INF, 0.1350755765],)),
    Edge("pow_half_at_0", lambda L: ((x := L.x([0., 4.])) ** .5, [x]), [0.0, 2.0], ([INF, 0.1350755765],)),
    Edge("pow_2_at_0", lambda L: ((x := L.x([0., 3.])) ** 2, [x]), [0.0, 9.0], ([0.0, 3.241813835],)),
    Edge("pow_0_at_0", lambda L: ((x := L.x([0., 3.])) ** 0, [x]), [1.0, 1.0], ([0.0, 0.0],)),
    Edge("pow_tensor_exponent_base_0", lambda L: (L.t.pow(x := L.x([0., 0., 2.]), e := L.x([2., 0., 3.])), [x, e]),
         [0.0, 1.0, 8.0], ([0.0, 0.0, -4.993762039], [0.0, 0.0, -2.307608052],)),
    Edge("pow_scalar_base_0", lambda L: (L.t.pow(0., e := L.x([2., 0., .5])), [e]), [0.0, 1.0, 0.0], ([0.0, 0.0, 0.0],)),
    Edge("rsqrt_and_log_at_0", lambda L: (L.t.stack([L.t.rsqrt(x := L.x([0., 4.])), L.t.log(x)]), [x]), [[INF, 0.5], [-INF, 1.386294361]], ([-INF, -0.2812670183],)),
    Edge("log1p_at_minus_1", lambda L: (L.t.log1p(x := L.x([-1., 0.])), [x]), [-INF, 0.0], ([INF, 0.5403023059],)),
    Edge("xlogy_at_0", lambda L: (L.t.xlogy(x := L.x([0., 1.]), y := L.x([0., 2.])), [x, y]), [0.0, 0.6931471806], ([0.0, 0.37450902], [NAN, 0.2701511529],)),
    Edge("div_by_a_tiny_divisor", lambda L: (L.t.div(x := L.x([0., 1e-30, 1.]), y := L.x([1e-30, 1e-30, 2.])), [x, y]),
         [0.0, 1.0, 0.5], ([9.999999968e+29, 5.403023042e+29, -0.2080734183], [0.0, -5.403023042e+29, 0.1040367091],)),
    Edge("xlogy_gradient_at_x_0", lambda L: (L.t.xlogy(x := L.x([0., 0., 0., 1.]), y := L.x([0., -1., 2.5, 3.])), [x, y]),
         [0.0, 0.0, 0.0, 1.098612289], ([0.0, 0.0, -0.3813114894, -1.087617922], [NAN, 0.0, 0.0, -0.3299974989],)),
    Edge("copysign_gradients", lambda L: (L.t.copysign(x := L.x([0., 2., -3.]), y := L.x([-1., -1., 2.])), [x, y]), [0.0, -2.0, 3.0], ([0.0, -0.5403023059, 0.4161468365], [0.0, 0.0, 0.0],)),
    Edge("atan2_at_origin", lambda L: (L.t.atan2(x := L.x([0., 1.]), y := L.x([0., 2.])), [x, y]), [0.0, 0.463647609], ([0.0, 0.2161209223], [0.0, -0.1080604612],)),
    Edge("hypot_at_origin", lambda L: (L.t.hypot(x := L.x([0., 3.]), y := L.x([0., 4.])), [x, y]), [0.0, 5.0], ([NAN, 0.3241813835], [NAN, 0.4322418447],)),
    Edge("expm1_log1p_tiny", lambda L: (L.t.expm1(x := L.x([1e-10, -1e-10])) + L.t.log1p(x), [x]), [2.000000027e-10, -2.000000027e-10], ([2.0, 1.080604612],)),
    Edge("abs_relu_at_0", lambda L: (L.t.stack([(x := L.x([0., -1., 2.])).abs(), L.F.relu(x)]), [x]), [[0.0, 1.0, 2.0], [0.0, 0.0, 2.0]], ([0.0, -0.5403023059, -0.1324846511],)),
    Edge("clamp_at_bounds", lambda L: (L.t.clamp(x := L.x([0., 1., .5, -1., 2.]), 0., 1.), [x]), [0.0, 1.0, 0.5, 0.0, 1.0], ([1.0, 0.5403023059, -0.4161468365, 0.0, 0.0],)),
    Edge("clamp_min_equals_max", lambda L: (L.t.clamp(x := L.x([0., 1., .5]), .5, .5), [x]), [0.5, 0.5, 0.5], ([0.0, 0.0, -0.4161468365],)),
    Edge("sign_floor_ceil_trunc_round_zero_gradient", lambda L: (L.t.stack([
        L.t.sign(x := L.x([1.5, -.5, 0.])), L.t.floor(x), L.t.ceil(x), L.t.trunc(x), L.t.round(x)]), [x]),
         [[1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]], ([0.0, 0.0, 0.0],)),
    Edge("maximum_tie", lambda L: (L.t.maximum(x := L.x([1., 2.]), y := L.x([1., 1.])), [x, y]), [1.0, 2.0], ([0.5, 0.5403023059], [0.5, 0.0],)),
    Edge("minimum_tie", lambda L: (L.t.minimum(x := L.x([1., 2.]), y := L.x([1., 1.])), [x, y]), [1.0, 1.0], ([0.5, 0.0], [0.5, 0.5403023059],)),

    # activations at extreme inputs and at kinks
    Edge("sigmoid_tanh_1e4", lambda L: (L.t.stack([L.t.sigmoid(x := L.x([1e4, -1e4, 0.])), L.t.tanh(x)]), [x]),
         [[1.0, 0.0, 0.5], [1.0, -1.0, 0.0]], ([0.0, 0.0, 0.1796254763],)),
    Edge("logsigmoid_extremes", lambda L: (L.F.logsigmoid(x := L.x([1e4, -1e4, 0., -100., 100.])), [x]), [0.0, -10000.0, -0.6931471806, -100.0, -3.720075976e-44], ([0.0, 0.5403023059, -0.2080734183, -0.9899924966, -2.431603931e-44],)),
    Edge("softplus_extremes_and_threshold", lambda L: (L.F.softplus(x := L.x([1e4, -1e4, 0., 20., 21., -100.])),
                                                       [x]), [10000.0, 0.0, 0.6931471806, 20.0, 21.0, 3.720075976e-44], ([1.0, 0.0, -0.2080734183, -0.9899924946, -0.6536436209, 1.055244881e-44],)),
    Edge("softplus_beta_threshold", lambda L: (L.F.softplus(x := L.x([1e4, -1e4, 0., 10., 11.]), beta=2.), [x]),
         [10000.0, 0.0, 0.3465735903, 10.0, 11.0], ([1.0, 0.0, -0.2080734183, -0.9899924946, -0.6536436209],)),
    Edge("gelu_extremes", lambda L: (L.F.gelu(x := L.x([1e4, -1e4, 0., -10.])), [x]), [10000.0, 0.0, 0.0, 0.0], ([1.0, 0.0, -0.2080734183, 7.617594905e-22],)),
    Edge("gelu_tanh_extremes", lambda L: (L.F.gelu(x := L.x([1e4, -1e4, 0., -10.]), approximate="tanh"), [x]),
         [10000.0, 0.0, 0.0, 0.0], ([1.0, 0.0, -0.2080734183, 0.0],)),
    Edge("elu_selu_celu_extremes", lambda L: (L.t.stack([L.F.elu(x := L.x([1e4, -1e4, 0.])), L.F.selu(x),
                                                         L.F.celu(x, alpha=.5)]), [x]), [[10000.0, -1.0, 0.0], [10507.00987, -1.758099341, 0.0], [10000.0, -0.5, 0.0]], ([0.919984193, 0.0, -0.06294056907],)),
    Edge("mish_extremes", lambda L: (L.F.mish(x := L.x([1e4, -1e4, 0., 30., -30.])), [x]), [10000.0, 0.0, 0.0, 30.0, -2.807286891e-12], ([1.0, 0.0, -0.2496881019, -0.9899924966, 1.773799662e-12],)),
    Edge("silu_extremes", lambda L: (L.F.silu(x := L.x([1e4, -1e4, 0., -100.])), [x]), [10000.0, 0.0, 0.0, -3.720075976e-42], ([1.0, 0.0, -0.2080734183, 3.64601883e-42],)),
    Edge("softsign_tanhshrink_extremes", lambda L: (L.t.stack([L.F.softsign(x := L.x([1e4, -1e4, 0.])),
                                                               L.F.tanhshrink(x)]), [x]), [[0.99990001, -0.99990001, 0.0], [9999.0, -9999.0, 0.0]], ([-0.9899924866, -0.6536436155, -0.4161468365],)),
    Edge("hardtanh_at_bounds", lambda L: (L.F.hardtanh(x := L.x([-1., 1., 0., 2.])), [x]), [-1.0, 1.0, 0.0, 1.0], ([0.0, 0.0, -0.4161468365, 0.0],)),
    Edge("hardswish_at_kinks", lambda L: (L.F.hardswish(x := L.x([-3., 3., 0.])), [x]), [0.0, 3.0, 0.0], ([0.0, 0.5403023059, -0.2080734183],)),
    Edge("hardsigmoid_at_kinks", lambda L: (L.F.hardsigmoid(x := L.x([-3., 3., 0.])), [x]), [0.0, 1.0, 0.5], ([0.0, 0.0, -0.06935780816],)),
    Edge("relu6_at_kinks", lambda L: (L.F.relu6(x := L.x([0., 6., 3.])), [x]), [0.0, 6.0, 3.0], ([0.0, 0.0, -0.4161468365],)),
    Edge("leaky_relu_at_0", lambda L: (L.F.leaky_relu(x := L.x([0., -1.]), .1), [x]), [0.0, -0.1], ([0.1, 0.05403023059],)),
    Edge("glu_extremes", lambda L: (L.F.glu(x := L.x([1., 2., 1e4, -1e4]), 0), [x]), [1.0, 0.0], ([1.0, 0.0, 0.0, 0.0],)),

    # reductions: ties, empty and single-element inputs
    Edge("amax_ties_split_evenly", lambda L: ((x := L.x([[1., 3., 3.], [2., 2., 2.]])).amax(1), [x]), [3.0, 2.0], ([[0.0, 0.5, 0.5], [0.1801007686, 0.1801007686, 0.1801007686]],)),
    Edge("max_all_ties", lambda L: ((x := L.x([1., 3., 3.])).max(), [x]), 3.0, ([0.0, 0.5, 0.5],)),
    Edge("min_all_ties", lambda L: ((x := L.x([1., 1., 3.])).min(), [x]), 1.0, ([0.5, 0.5, 0.0],)),
    Edge("max_dim_ties", lambda L: ((x := L.x([[1., 3., 3.]])).max(1).values, [x]), [3.0], ([[0.0, 1.0, 0.0]],)),
    Edge("sort_ties", lambda L: (L.t.sort(x := L.x([2., 1., 2., 1.])).values, [x]), [1.0, 1.0, 2.0, 2.0], ([-0.4161468365, 1.0, -0.9899924966, 0.5403023059],)),
    Edge("topk_ties", lambda L: (L.t.topk(x := L.x([2., 1., 2., 1.]), 2).values, [x]), [2.0, 2.0], ([1.0, 0.0, 0.5403023059, 0.0],)),
    Edge("median_ties", lambda L: ((x := L.x([2., 1., 2., 1.])).median(), [x]), 1.0, ([0.0, 0.5, 0.0, 0.5],)),
    Edge("median_dim_ties", lambda L: ((x := L.x([[2., 1., 2., 1.]])).median(1).values, [x]), [1.0], ([[0.0, 0.0, 0.0, 1.0]],)),
    Edge("mean_of_empty", lambda L: ((x := L.x(np.zeros(0))).mean(), [x]), NAN, ([],)),
    Edge("sum_of_empty", lambda L: ((x := L.x(np.zeros(0))).sum(), [x]), 0.0, ([],)),
    Edge("var_std_of_one_element", lambda L: (L.t.stack([(x := L.x([3.])).var(), x.std()]), [x]), [NAN, NAN], ([NAN],)),
    Edge("var_of_one_element_correction_0", lambda L: ((x := L.x([3.])).var(correction=0), [x]), 0.0, ([0.0],)),
    Edge("std_all_equal", lambda L: ((x := L.x([3., 3., 3.])).std(), [x]), 0.0, ([0.0, 0.0, 0.0],)),
    Edge("prod_with_a_0", lambda L: ((x := L.x([0., 2., 3.])).prod(), [x]), 0.0, ([6.0, 0.0, 0.0],)),
    Edge("cumprod_with_a_0", lambda L: (L.t.cumprod(x := L.x([2., 0., 3.]), 0), [x]), [2.0, 0.0, 0.0], ([1.0, -1.416276408, 0.0],)),
    Edge("logcumsumexp_neg_inf", lambda L: (L.t.logcumsumexp(x := L.x([-INF, 0., -INF]), 0), [x]), [-INF, 0.0, 0.0], ([NAN, 0.1241554693, 0.0],)),
    Edge("cov_of_one_variable_is_0_dim", lambda L: (L.t.cov(x := L.x([[1e4 + .01, 1e4 - .01, 1e4]])), [x]), 9.536743164e-05, ([[0.009765625, -0.009765625, 0.0]],),
         rtol=1e-4),
    Edge("nanmean_all_nan", lambda L: (L.t.nanmean(x := L.x([NAN, NAN])), [x]), NAN, ([NAN, NAN],)),
    Edge("max_amax_with_nan", lambda L: (L.t.stack([(x := L.x([1., NAN, 3.])).max(), x.amax()]), [x]), [NAN, NAN], ([0.0, 1.540302306, 0.0],),
         differs="amax's gradient goes to the NaN, as max()'s does; PyTorch's amax gives NaN everywhere (0/0)"),
    Edge("maximum_minimum_with_nan", lambda L: (L.t.stack([L.t.maximum(x := L.x([1., NAN]), y := L.x([NAN, 0.])),
                                                           L.t.minimum(x, y)]), [x, y]), [[NAN, NAN], [NAN, NAN]], ([0.5838531635, -0.4496901907], [0.5838531635, -0.4496901907],)),
    Edge("activations_of_nan", lambda L: (L.t.stack([
        L.F.elu(x := L.x([NAN, 1., -1.])), L.F.hardtanh(x), L.F.relu6(x), L.F.hardshrink(x), L.F.softshrink(x),
        L.F.threshold(x, 0., -2.), L.t.sign(x), L.t.abs(x)]), [x]), [[NAN, 1.0, -0.6321205588], [NAN, 1.0, -1.0], [NAN, 1.0, 0.0], [NAN, 1.0, -1.0], [NAN, 0.5, -0.5], [NAN, 1.0, -2.0], [0.0, 1.0, -1.0], [NAN, 1.0, 1.0]], ([0.143213574, -0.5950404941, 0.5209040709],)),
    Edge("relu_of_nan", lambda L: (L.F.relu(x := L.x([NAN, 2., -1.])), [x]), [NAN, 2.0, 0.0], ([1.0, 0.5403023059, 0.0],)),
    Edge("max_kthvalue_of_1d_are_0_dim", lambda L: (L.t.stack([(x := L.x([2., 1., 2., 1.])).max(0).values,
                                                               x.kthvalue(2).values, x.median(0).values]), [x]), [2.0, 1.0, 1.0], ([1.0, 0.0, 0.0, 0.1241554693],)),

    Edge("logsumexp_over_an_empty_dim", lambda L: (L.t.logsumexp(x := L.x(np.zeros((2, 0))), 1), [x]), [-INF, -INF], ([[], []],)),
    # attention with every key masked; second derivatives at the edges
    Edge("sdpa_query_with_every_key_masked", lambda L: (L.F.scaled_dot_product_attention(
        q := L.x(np.ones((1, 2, 2))), k := L.x(np.ones((1, 2, 2))), v := L.x([[[1., 2.], [3., 4.]]]),
        attn_mask=L.t.tensor([[[True, True], [False, False]]], device=L.device)), [q, k, v]), [[[2.0, 3.0], [0.0, 0.0]]], ([[[0.0, 0.0], [0.0, 0.0]]], [[[-0.5445791028, -0.5445791028], [0.5445791028, 0.5445791028]]], [[[0.5, 0.2701511529], [0.5, 0.2701511529]]],)),
    Edge("elu_second_derivative_at_0", lambda L: (L.t.autograd.grad(L.F.elu(x := L.x([0., -1., 1.])).sum(), x,
                                                                    create_graph=True)[0], [x]), [1.0, 0.3678794412, 1.0], ([0.0, 0.1987661103, 0.0],)),
    Edge("logsigmoid_softplus_second_derivative_1e4", lambda L: (L.t.autograd.grad(
        (L.F.logsigmoid(x := L.x([1e4, -1e4, 0.])) + 2 * L.F.softplus(x)).sum(), x, create_graph=True)[0], [x]), [2.0, 1.0, 1.5], ([0.0, 0.0, -0.1040367091],)),
    Edge("logsumexp_second_derivative_1e4", lambda L: (L.t.autograd.grad(L.t.logsumexp(x := L.x([1e4, 0., 1e4]), 0),
                                                                         x, create_graph=True)[0], [x]), [0.5, 0.0, 0.5], ([0.3540367091, 0.0, -0.3540367091],)),

    # statistics of a large mean against a small spread: two-pass float64, no cancellation
    Edge("var_large_mean", _var_large_mean, 0.0001589457194, ([0.003255208333, -0.009765625, 0.009765625, -0.003255208333],), rtol=1e-4),
    Edge("var_mean_large_mean", _var_mean, [1.589457194, 0.0048828125], ([32.68715891, -97.52117442, 97.79132558, -32.41700776],), rtol=1e-4, atol=1e-4),
    Edge("var_std_dim_large_mean", lambda L: (L.t.cat([(x := L.x(_stats_input((2, 4)))).var(1) * 1e4,
                                                       x.std(0) * 1e2]), [x]), [0.7716814677, 3.166198731, 1.795388312, 0.9667475524, 0.1381067932, 1.450121329], ([[-53.58178749, 117.2035616, -12.03989618, 21.68554966], [2.232313225, -10.20395744, 42.70199054, -107.9977739]],), rtol=1e-4, atol=1e-4),
    Edge("batch_norm_eval_large_running_mean", lambda L: (L.F.batch_norm(
        x := L.x(_stats_input((2, 2))), L.t.full((2,), 1e4, dtype=L.dtype), L.t.full((2,), 1e-4, dtype=L.dtype)),
        [x]), [[-1.396673715, 0.4655579049], [0.279334743, -0.186223162]], ([[95.34625892, 51.51580355], [-39.67804403, -94.39208091]],), rtol=1e-4, atol=1e-4),
    Edge("batch_norm_large_mean", lambda L: (L.F.batch_norm(x := L.x(_stats_input((4, 2))), None, None,
                                                            training=True), [x]), [[-1.503871739, 0.3387637852], [0.3007743478, -0.1129212618], [1.102839275, 1.242133879], [0.1002581159, -1.467976403]], ([[-7.175230791, 28.5611123], [-48.17858926, -75.98196717], [-26.16797498, 18.46108581], [81.52179503, 28.95976905]],), rtol=1e-4, atol=1e-4),
    Edge("batch_norm_running_stats_large_mean", _running_var, [1.131693522, 2.920627594], (), rtol=1e-4, atol=1e-4),
    Edge("batch_norm_all_equal", lambda L: (L.F.batch_norm(x := L.x(np.full((3, 2), 5.)), None, None,
                                                           training=True), [x]), [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], ([[323.5843262, 188.3594796], [-124.2406243, -295.5622272], [-199.3437019, 107.2027476]],), atol=1e-3),
    Edge("layer_norm_large_mean", lambda L: (L.F.layer_norm(x := L.x(_stats_input((2, 4))), (4,)), [x]), [[-1.511303734, 0.8593687901, 0.6223015377, 0.02963340656], [0.5587090994, 1.05533941, -0.06207878883, -1.551969721]], ([[56.07099683, 96.33057341, -29.36742123, -123.034149], [-51.40912152, 18.39876201, 38.39815934, -5.387799827]],),
         rtol=1e-4, atol=1e-4),
    Edge("group_norm_large_mean", lambda L: (L.F.group_norm(x := L.x(_stats_input((1, 4, 2))), 2), [x]), [[[-1.511303734, 0.8593687901], [0.6223015377, 0.02963340656], [0.5587090994, 1.05533941], [-0.06207878883, -1.551969721]]], ([[[56.07099683, 96.33057341], [-29.36742123, -123.034149], [-51.40912152, 18.39876201], [38.39815934, -5.387799827]]],),
         rtol=1e-4, atol=1e-4),
    Edge("instance_norm_large_mean", lambda L: (L.F.instance_norm(x := L.x(_stats_input((1, 2, 4)))), [x]), [[[-1.511303734, 0.8593687901, 0.6223015377, 0.02963340654], [0.5587090994, 1.05533941, -0.06207878883, -1.551969721]]], ([[[56.07099682, 96.33057341, -29.36742123, -123.034149], [-51.40912152, 18.39876201, 38.39815934, -5.38779983]]],),
         rtol=1e-4, atol=1e-4),
    Edge("layer_norm_all_equal", lambda L: (L.F.layer_norm(x := L.x(np.full((2, 3), 7.)), (3,)), [x]), [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], ([[197.7313751, 52.36220025, -250.0935754], [-169.7092761, -63.34642254, 233.0556987]],),
         atol=1e-3),
]


# The families added since the first table: special functions at their poles, 0, +-inf and large
# arguments; complex autograd at 0; fft of size 1; CTC with empty targets and impossible alignments;
# grid_sample on and beyond the borders; second derivatives at kinks; saturated recurrent cells;
# label smoothing at +-1e4; eigenvalues, stft and the late losses.

def _cplx(L, re, im):
    a, b = L.x(re), L.x(im)
    return L.t.complex(a, b), [a, b]


def _abs_angle_sgn(L):
    z, ls = _cplx(L, [0., 3., 0.], [0., 4., -2.])
    return L.t.stack([z.abs(), z.angle()]), ls


def _sgn(L):
    z, ls = _cplx(L, [0., 3.], [0., 4.])
    return L.t.view_as_real(L.t.sgn(z)), ls


def _fft1(L):
    z, ls = _cplx(L, [[2.], [-1.]], [[.5], [0.]])
    return L.t.cat([L.t.view_as_real(L.t.fft.fft(z)).reshape(-1), L.t.view_as_real(L.t.fft.ifft(z, norm="ortho")).reshape(-1)]), ls


def _rfft1(L):
    x = L.x([3.])
    return L.t.cat([L.t.view_as_real(L.t.fft.rfft(x)).reshape(-1), L.t.fft.irfft(L.t.fft.rfft(x), n=1)]), [x]


def _irfft_n1(L):
    z, ls = _cplx(L, [2., 5.], [1., 7.])
    return L.t.fft.irfft(z, n=1), ls


def _ctc(L, targets, tl, il, zi, red="sum"):
    x = L.x(np.log(np.array([[[.5, .3, .2]], [[.2, .5, .3]], [[.25, .25, .5]]])))
    lp = L.F.log_softmax(x, 2)
    return L.F.ctc_loss(lp, L.i(targets), L.i(il), L.i(tl), zero_infinity=zi, reduction=red), [x]


def _gs(L, mode, pad, ac):
    inp = L.x(np.arange(1., 7.).reshape(1, 1, 2, 3))
    g = L.x([[[[-1., -1.], [1., 1.], [1.5, 0.], [-2., .3], [0., 1.]]]])
    return L.F.grid_sample(inp, g, mode=mode, padding_mode=pad, align_corners=ac), [inp, g]


def _second(L, f, x):
    x = L.x(x)
    return L.t.autograd.grad(f(x).sum(), x, create_graph=True)[0], [x]


def _cell(L, cls, n_gates, bias):
    """A cell of 2 units whose gates saturate: pre-activations 30 + bias (+-30, -1e4 or 1e4), no hidden term."""
    cell = getattr(L.t.nn, cls)(1, 2).to(dtype=L.dtype, device=L.device)
    with L.t.no_grad():
        cell.weight_ih.copy_(L.c(np.full((2 * n_gates, 1), 30.)))
        cell.weight_hh.copy_(L.c(np.zeros((2 * n_gates, 2))))
        cell.bias_ih.copy_(L.c(bias))
        cell.bias_hh.zero_()
    x, h = L.x([[1.]]), L.x([[1., -2.]])
    return cell, x, h


def _lstm(L):
    cell, x, h = _cell(L, "LSTMCell", 4, [0., -60., 0., -1e4, 0., 0., 1e4, -60.])
    c = L.x([[.5, -3.]])
    hy, cy = cell(x, (h, c))
    return L.t.cat([hy, cy], 1), [x, h, c]


def _gru(L):
    cell, x, h = _cell(L, "GRUCell", 3, [0., -60., -1e4, 0., 1e4, -60.])
    return cell(x, h), [x, h]


def _eigvals(L):
    a = L.x([[2., 0.], [0., 2.]])
    return L.t.view_as_real(L.t.linalg.eigvals(a)), [a]


def _eig_rot(L):
    a = L.x([[0., -1.], [1., 0.]])
    return L.t.view_as_real(L.t.linalg.eigvals(a)), [a]


def _stft(L):
    x = L.x([1., 2., 3., 4.])
    s = L.t.stft(x, n_fft=4, hop_length=4, center=False, window=L.t.hann_window(4, dtype=L.dtype, device=L.device), return_complex=True)
    return L.t.view_as_real(s), [x]


def _stft_center(L):
    x = L.x([1., 1., 1., 1., 1.])
    s = L.t.stft(x, n_fft=4, hop_length=2, return_complex=True)
    return L.t.view_as_real(s), [x]


EDGES += [
    Edge("erfinv_at_pm1", lambda L: (L.t.erfinv(x := L.x([1., -1., 0., .5])), [x]),
         [INF, -INF, 0.0, 0.4769362762], ([INF, INF, -0.3688005315, -1.101450623],)),
    Edge("xlog1py_at_0", lambda L: (L.t.special.xlog1py(x := L.x([0., 0., 0., 1.]), y := L.x([-1., 0., -2., 2.])), [x, y]),
         [0.0, 0.0, 0.0, 1.098612289], ([0.0, 0.0, 0.0, -1.087617922], [NAN, 0.0, 0.0, -0.3299974989],)),
    Edge("digamma_lgamma_at_poles", lambda L: (L.t.stack([L.t.digamma(x := L.x([0., -1., -2.5, 1e-4])), L.t.lgamma(x)]), [x]),
         [[-INF, NAN, 1.103156641, -10000.5773], [INF, INF, -0.0562437165, 9.210282684]], ([INF, NAN, -2.910509086, -99006795.75],)),
    Edge("polygamma_near_poles", lambda L: (L.t.stack([L.t.polygamma(1, x := L.x([0., 1e-4, -.5, -1.5])), L.t.polygamma(2, x)]), [x]),
         [[INF, 100000006.7, 8.9348022, 9.379246645], [-INF, -2000000152000.0, -0.8287966442, -0.2362040516]], ([-INF, 1.701865224e+16, 186.0505635, 146.9389038],)),
    Edge("i0_i1_large", lambda L: (L.t.stack([L.t.i0(x := L.x([0., 50., -50., 80.])), L.t.special.i1(x)]) * 1e-30, [x]),
         [[1e-30, 2.932553784e-10, 2.932553784e-10, 2475.178404], [0.0, 2.90307859e-10, -2.90307859e-10, 2459.65958]], ([-3.268218104e-31, 2.383924799e-10, 3.968108983e-10, -592.1812353],)),
    Edge("i0e_i1e_large_and_0", lambda L: (L.t.stack([L.t.special.i0e(x := L.x([0., 1e4, -1e4, 700.])), L.t.special.i1e(x)]), [x]),
         [[1.0, 0.003989472675, 0.003989472675, 0.01508129565], [0.0, 0.003989273196, -0.003989273196, 0.01507051944]], ([-0.3268218104, -1.643548126e-07, -2.745171112e-07, 2.561572522e-06],)),
    Edge("i1_gradient_at_0", lambda L: (L.t.special.i1(x := L.x([0., 1.])), [x]),
         [0.0, 0.565159104], ([0.5, 0.3787015461],)),
    Edge("log_ndtr_ndtr_far_tail", lambda L: (L.t.stack([L.t.special.log_ndtr(x := L.x([-40., -1e4, 10., 0.])), L.t.special.ndtr(x)]), [x]),
         [[-804.608442, -50000010.13, -7.619853024e-24, -0.6931471806], [0.0, 0.0, 1.0, 0.5]], ([40.02496885, 5403.023142, 4.186042092e-23, -0.4891362438],)),
    Edge("entr_at_0_and_negative", lambda L: (L.t.special.entr(x := L.x([0., 1., -1., .5])), [x]),
         [0.0, -0.0, -INF, 0.3465735903], ([INF, -0.5403023059, NAN, 0.3037819888],)),
    Edge("logit_with_eps", lambda L: (L.t.logit(x := L.x([0., 1., .5, 1e-8, .25, .75]), eps=.25), [x]),
         [-1.098612289, 1.098612289, 0.0, -1.098612289, -1.098612289, 1.098612289], ([0.0, 0.0, -1.664587346, 0.0, -3.486099311, 1.512864989],)),
    Edge("logit_at_0_and_1", lambda L: (L.t.logit(x := L.x([0., 1., .25])), [x]),
         [-INF, INF, -1.098612289], ([INF, INF, -2.219449795],)),
    Edge("sinc_at_0", lambda L: (L.t.sinc(x := L.x([0., 1e-20, .5, 1.])), [x]),
         [1.0, 1.0, 0.6366197724, 3.898171833e-17], ([0.0, 0.0, 0.5298546087, 0.9899924966],)),
    Edge("ndtri_at_0_and_1", lambda L: (L.t.special.ndtri(x := L.x([0., 1., .5, 1e-30])), [x]),
         [-INF, INF, 0.0, -11.46402469], ([INF, INF, -1.043125427, -8.571382514e+28],)),
    Edge("erfc_erfcx_large", lambda L: (L.t.stack([L.t.erfc(x := L.x([10., -5., 1e4, 0.])), L.t.special.erfcx(x)]), [x]),
         [[2.088487584e-45, 2.0, 0.0, 1.0], [0.05614099274, 144009798700.0, 5.641895807e-05, 1.0]], ([0.003633808968, -408501342200.0, -5.417180532e-09, 0.2663993109],)),
    Edge("logaddexp_extremes", lambda L: (L.t.stack([L.t.logaddexp(x := L.x([-INF, 1e4, 1e4, 0.]), y := L.x([-INF, 1e4, -1e4, INF])),
                                                L.t.logaddexp2(x, y)]), [x, y]),
         [[-INF, 10000.69315, 10000.0, INF], [-INF, 10001.0, 10000.0, INF]], ([NAN, 0.4119822457, 0.5440234501, 0.0], [NAN, 0.4119822457, 0.0, -0.2360902423],)),
    Edge("nan_to_num_gradient", lambda L: (L.t.nan_to_num(x := L.x([NAN, INF, -INF, 2.]), posinf=5., neginf=-7.), [x]),
         [0.0, 5.0, -7.0, 2.0], ([0.0, 0.0, -0.0, -0.9899924966],)),
    Edge("renorm_zero_row", lambda L: (L.t.renorm(x := L.x([[0., 0.], [3., 4.], [.3, .4]]), 2, 0, 1.), [x]),
         [[0.0, 0.0], [0.599999988, 0.799999984], [0.3000000119, 0.400000006]], ([[1.0, 0.5403023059], [0.04177248126, -0.03132936615], [-0.6536436209, 0.2836621855]],)),
    Edge("trapezoid_single_point", lambda L: (L.t.stack([L.t.trapezoid(x := L.x([[3.], [1.]])).sum(), L.t.trapezoid(L.x([1., 2.]) * 0 + x.sum())]), [x]),
         [0.0, 4.0], ([[0.5403023059], [0.5403023059]],)),
    Edge("asin_acos_atanh_at_pm1", lambda L: (L.t.stack([L.t.asin(x := L.x([1., -1., 0.])), L.t.acos(x), L.t.atanh(x)]), [x]),
         [[1.570796327, -1.570796327, 0.0], [0.0, 3.141592654, 1.570796327], [INF, -INF, 0.0]], ([INF, INF, -0.8453090558],)),
    Edge("acosh_at_1", lambda L: (L.t.acosh(x := L.x([1., 2.])), [x]),
         [0.0, 1.316957897], ([INF, 0.3119436817],)),
    Edge("complex_abs_angle_at_0", _abs_angle_sgn,
         [[0.0, 5.0, 2.0], [0.0, 0.927295218, -1.570796327]], ([0.0, 0.4287643629, 0.1418310927], [0.0, 0.3538046102, 0.4161468365],)),
    Edge("complex_sgn_at_0", _sgn,
         [[0.0, 0.0], [0.6, 0.8]], ([0.0, 0.0417724846], [0.0, -0.03132936345],)),
    Edge("fft_size_1", _fft1,
         [2.0, 0.5, -1.0, 0.0, 2.0, 0.5, -1.0, 0.0], ([[0.3463563791], [0.5440234501]], [[0.8239644913], [-0.2360902423]],)),
    Edge("rfft_irfft_size_1", _rfft1,
         [3.0, 0.0, 3.0], ([0.5838531635],)),
    Edge("irfft_n_1", _irfft_n1,
         [2.0], ([1.0, 0.0], [0.0, 0.0],)),
    Edge("ctc_target_length_0", lambda L: _ctc(L, [[1, 2]], [0], [3], False),
         3.688879466, ([[[-0.4999999956, 0.2999999995, 0.1999999961]], [[-0.8000000039, 0.5000000044, 0.2999999995]], [[-0.7500000002, 0.2499999998, 0.5000000005]]],)),
    Edge("ctc_impossible_alignment", lambda L: _ctc(L, [[1, 1, 2]], [3], [3], False),
         INF, ([[[NAN, NAN, NAN]], [[NAN, NAN, NAN]], [[NAN, NAN, NAN]]],)),
    Edge("ctc_impossible_zero_infinity", lambda L: _ctc(L, [[1, 1, 2]], [3], [3], True),
         0.0, ([[[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]]],)),
    Edge("ctc_repeat_needs_blank_mean", lambda L: _ctc(L, [[1, 1]], [2], [3], False, "mean"),
         2.09985255, ([[[0.2500000022, -0.3500000002, 0.09999999805]], [[-0.4000000019, 0.2500000022, 0.1499999998]], [[0.1249999999, -0.3750000001, 0.2500000002]]],)),
    Edge("grid_sample_bilinear_zeros", lambda L: _gs(L, "bilinear", "zeros", False),
         [[[[0.25, 1.5, 0.0, 0.0, 2.5]]]], ([[[[0.25, 0.0, 0.0], [0.0, -0.3268218104, 0.1350755765]]]], [[[[0.75, 0.5], [-2.431360376, -1.620906918], [0.0, 0.0], [0.0, 0.0], [-0.4902327156, 3.268218104]]]],)),
    Edge("grid_sample_bilinear_zeros_ac", lambda L: _gs(L, "bilinear", "zeros", True),
         [[[[1.0, 6.0, 2.25, 0.0, 5.0]]]], ([[[[1.0, 0.0, -0.1040367091], [0.0, -0.6536436209, 0.4362655967]]]], [[[[1.0, 1.5], [-3.241813835, -1.620906918], [1.872660764, -0.3121101274], [-2.920477883, 0.0], [-0.6536436209, 1.634109052]]]],)),
    Edge("grid_sample_bilinear_border", lambda L: _gs(L, "bilinear", "border", False),
         [[[[1.0, 6.0, 4.5, 3.400000036, 5.0]]]], ([[[[0.8020015125, 0.0, -0.2080734183], [-0.7919940091, -0.6536436209, 0.3322288876]]]], [[[[0.0, 0.0], [-0.0, -0.0], [0.0, -1.24844051], [-0.0, -2.96997749], [-0.9804654313, 0.0]]]],)),
    Edge("grid_sample_bilinear_border_ac", lambda L: _gs(L, "bilinear", "border", True),
         [[[[1.0, 6.0, 4.5, 2.950000018, 5.0]]]], ([[[[0.6535026321, 0.0, -0.2080734183], [-0.6434951287, -0.6536436209, 0.3322288876]]]], [[[[0.0, 0.0], [-0.0, -0.0], [0.0, -0.6242202548], [-0.0, -1.484988745], [-0.6536436209, 0.0]]]],)),
    Edge("grid_sample_bilinear_reflection", lambda L: _gs(L, "bilinear", "reflection", False),
         [[[[1.0, 6.0, 4.25, 4.400000036, 5.0]]]], ([[[[1.0, -0.2500168421, -0.1560550637], [0.0, -1.497655985, 0.3842472422]]]], [[[[0.0, 0.0], [-0.0, -0.0], [0.6242202548, -1.24844051], [1.484988745, -2.96997749], [-0.9804654313, 0.0]]]],)),
    Edge("grid_sample_bilinear_reflection_ac", lambda L: _gs(L, "bilinear", "reflection", True),
         [[[[1.0, 6.0, 4.0, 3.950000018, 5.0]]]], ([[[[1.0, -0.450534077, -0.1040367091], [0.0, -1.401175459, 0.4362655967]]]], [[[[0.0, 0.0], [-0.0, -0.0], [0.4161468365, -0.6242202548], [0.9899924966, -1.484988745], [-0.6536436209, 0.0]]]],)),
    Edge("grid_sample_nearest_border", lambda L: _gs(L, "nearest", "border", False),
         [[[[1.0, 6.0, 3.0, 4.0, 5.0]]]], ([[[[1.0, 0.0, -0.4161468365], [-0.9899924966, -0.6536436209, 0.5403023059]]]], [[[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]],)),
    Edge("grid_sample_nearest_zeros_ac", lambda L: _gs(L, "nearest", "zeros", True),
         [[[[1.0, 6.0, 3.0, 0.0, 5.0]]]], ([[[[1.0, 0.0, -0.4161468365], [0.0, -0.6536436209, 0.5403023059]]]], [[[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]],)),
    Edge("grid_sample_bicubic_reflection", lambda L: _gs(L, "bicubic", "reflection", False),
         [[[[0.25, 6.75, 4.30859375, 4.472000035, 5.5625]]]], ([[[[1.417471331, -0.3097984508, -0.2812334697], [-0.2153411689, -1.731557779, 0.6009788891]]]], [[[[0.0, 0.0], [8.560860354e-16, 1.856154119e-16], [0.4974255156, -1.404495573], [2.227483117, -2.940277683], [-1.470698147, 5.551115123e-17]]]],)),
    Edge("relu_leaky_hardtanh_second_derivative", lambda L: _second(L, lambda x: L.F.relu(x) + L.F.leaky_relu(x, .1) ** 2 + L.F.hardtanh(x) ** 2, [0., -1., 1., .5]),
         [0.0, -0.02, 3.0, 3.0], ([2.02, 0.01080604612, -0.8322936731, -3.959969986],)),
    Edge("gelu_silu_softplus_second_derivative", lambda L: _second(L, lambda x: L.F.gelu(x) + L.F.silu(x) + L.F.softplus(x) + L.F.gelu(x, approximate="tanh"), [0., 1e4, -1e4, 1.]),
         [2.0, 4.0, 0.0, 3.825008645], ([2.345769122, 0.0, 0.0, -0.9732586282],)),
    Edge("selu_celu_mish_second_derivative_at_0", lambda L: _second(L, lambda x: L.F.selu(x) + L.F.celu(x, .5) + L.F.mish(x), [0., -1., 1.]),
         [3.358099341, 0.8413206421, 3.099737207], ([0.64, 0.6846412806, -0.07685639664],)),
    Edge("hardswish_second_derivative_at_kinks", lambda L: _second(L, lambda x: L.F.hardswish(x), [-3., 3., 0., 1.]),
         [0.0, 1.0, 0.5, 0.8333333333], ([0.0, 0.0, -0.1387156122, -0.3299974989],)),
    Edge("smooth_l1_huber_second_derivative_at_kinks", lambda L: _second(L, lambda x: L.F.smooth_l1_loss(x, L.c([0., 0., 0., 0.]), reduction="none") + L.F.huber_loss(x, L.c([0., 0., 0., 0.]), reduction="none", delta=.5), [0., 1., -.5, .25]),
         [0.0, 1.5, -1.0, 0.5], ([2.0, 0.0, -0.4161468365, -1.979984993],)),
    Edge("bce_logits_second_derivative_1e4", lambda L: _second(L, lambda x: L.F.binary_cross_entropy_with_logits(x, L.c([1., 0., 1., .5]), reduction="none"), [1e4, -1e4, 0., -1e4]),
         [0.0, 0.0, -0.5, -0.5], ([0.0, 0.0, -0.1040367091, -0.0],)),
    Edge("cross_entropy_second_derivative_1e4", lambda L: _second(L, lambda x: L.F.cross_entropy(x, L.i([1, 0])), [[1e4, -1e4, 0.], [0., 0., 0.]]),
         [[0.5, -0.5, 0.0], [-0.3333333333, 0.1666666667, 0.1666666667]], ([[0.0, 0.0, 0.0], [-0.0894446421, -0.03338649614, 0.1228311382]],)),
    Edge("lstm_cell_saturated_gates", _lstm,
         [[0.9051482536, 8.756510763e-27, 1.5, 9.357622969e-14]], ([[-3.769603943e-12]], [[0.0, 0.0]], [[-0.2354401976, -0.0]],)),
    Edge("gru_cell_saturated_gates", _gru,
         [[1.0, -2.0]], ([[-1.515236408e-12]], [[0.0, 0.5403023059]],)),
    Edge("log_softmax_pos_inf_entry", lambda L: (L.F.log_softmax(x := L.x([[INF, 0., 1.], [0., 1., 2.]]), 1), [x]),
         [[NAN, NAN, NAN], [-2.407605964, -1.407605964, -0.4076059644]], ([[NAN, NAN, NAN], [-0.867553264, -0.3208192798, 1.188372544]],)),
    Edge("cross_entropy_label_smoothing_1e4", lambda L: (L.F.cross_entropy(x := L.x([[1e4, -1e4, 0.], [-1e4, 1e4, 1e4]]), L.i([1, 2]), label_smoothing=.1), [x]),
         9833.679907, ([[0.4833333333, -0.4666666667, -0.01666666667], [-0.01666666667, 0.2333333333, -0.2166666667]],)),
    Edge("cross_entropy_label_smoothing_probabilities_1e4", lambda L: (L.F.cross_entropy(x := L.x([[1e4, -1e4, 0.]]), L.c([[0., 1., 0.]]), label_smoothing=.2), [x]),
         18000.0, ([[0.9333333333, -0.8666666667, -0.06666666667]],)),
    Edge("dropout_p_1", lambda L: (L.F.dropout(x := L.x([1., -2.]), p=1.), [x]),
         [0.0, -0.0], ([0.0, 0.0],)),
    Edge("det_of_singular", lambda L: (L.t.linalg.det(x := L.x([[1., 2.], [2., 4.]])), [x]),
         0.0, ([[4.0, -2.0], [-2.0, 1.0]],), differs='at a singular matrix the gradient is the cofactor matrix (the limit of det(A) A^-T); PyTorch gives 0'),
    Edge("eigvals_repeated", _eigvals,
         [[2.0, 0.0], [2.0, 0.0]], ([[1.0, 0.0], [0.0, -0.4161468365]],)),
    Edge("eigvals_complex_pair", _eig_rot,
         [[0.0, 1.0], [0.0, -1.0]], ([[0.2919265817, -0.7651474012], [0.7651474012, 0.2919265817]],)),
    Edge("eigvalsh_repeated", lambda L: (L.t.linalg.eigvalsh(x := L.x([[2., 0.], [0., 2.]])), [x]),
         [2.0, 2.0], ([[1.0, 0.0], [0.0, 0.5403023059]],)),
    Edge("svdvals_zero_matrix", lambda L: (L.t.linalg.svdvals(x := L.x([[0., 0.], [0., 0.]])), [x]),
         [0.0, 0.0], ([[1.0, 0.0], [0.0, 0.5403023059]],)),
    Edge("stft_n_fft_equals_length", _stft,
         [[[6.0, 0.0]], [[-3.0, 1.0]], [[-4.440892099e-16, 0.0]]], ([-0.0, 1.321818059, 0.7625032157, 0.3318255621],)),
    Edge("stft_constant_center_reflect", _stft_center,
         [[[4.0, 0.0], [4.0, 0.0], [4.0, 0.0]], [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]], ([0.4587740199, 0.6705382897, 0.2197400306, -0.8559825977, -0.7722315721],)),
    Edge("multilabel_margin_at_kink", lambda L: (L.F.multilabel_margin_loss(x := L.x([[1., 0., 1., 2.]]), L.i([[0, 3, -1, 1]])), [x]),
         0.25, ([[-0.25, 0.0, 0.25, 0.0]],)),
    Edge("nll_zero_weights_mean", lambda L: (L.F.nll_loss(x := L.x([[-1., -2.], [-3., -4.]]), L.i([0, 0]), weight=L.c([0., 1.])), [x]),
         NAN, ([[NAN, 0.0], [NAN, 0.0]],)),
    Edge("gaussian_nll_full_eps", lambda L: (L.F.gaussian_nll_loss(x := L.x([1., 2.]), L.c([1., 1.]), v := L.x([0., 1e-8]), full=True, reduction="sum"), [x, v]),
         499988.0224, ([0.0, 1000000.0], [500000.0, -499999500000.0],), rtol=0.0001),
    Edge("kl_div_batchmean_log_target", lambda L: (L.F.kl_div(x := L.x([[-1e4, 0.]]), L.c([[-1e4, -INF]]), reduction="batchmean", log_target=True), [x]),
         NAN, ([[-0.0, -0.0]],)),
    Edge("triplet_with_distance_equal_points", lambda L: (L.F.triplet_margin_with_distance_loss(a := L.x([[1., 2.]]), p := L.x([[1., 2.]]), n := L.x([[1., 2.]])), [a, p, n]),
         1.0, ([[0.0, 0.0]], [[-0.7071067812, -0.7071067812]], [[0.7071067812, 0.7071067812]],)),
    Edge("cummax_cummin_ties", lambda L: (L.t.stack([L.t.cummax(x := L.x([1., 3., 3., 2.]), 0).values, L.t.cummin(x, 0).values]), [x]),
         [[1.0, 3.0, 3.0, 3.0], [1.0, 1.0, 1.0, 1.0]], ([2.344091106, 0.5403023059, -1.406139333, 0.0],)),
    Edge("prod_with_two_zeros", lambda L: ((x := L.x([0., 2., 0.])).prod(), [x]),
         0.0, ([0.0, 0.0, 0.0],)),
    Edge("fmod_remainder_gradients", lambda L: (L.t.stack([L.t.fmod(x := L.x([5., -5., 4.]), y := L.x([2., 2., 2.])), L.t.remainder(x, y)]), [x, y]),
         [[1.0, -1.0, 0.0], [1.0, 1.0, 0.0]], ([0.0100075034, -0.113341315, -0.1324846511], [-0.0200150068, -0.8803262509, 0.2649693022],)),
    Edge("pinv_rank_deficient", lambda L: (L.t.linalg.pinv(x := L.x([[1., 2.], [2., 4.]])), [x]),
         [[0.04, 0.08], [0.08, 0.16]], ([[0.03100245094, 0.009546173451], [0.04780413915, -0.009309178556]],), rtol=0.0001),
    Edge("polygamma_at_negative_poles", lambda L: (L.t.stack([L.t.polygamma(1, x := L.x([-1., -2.])), L.t.polygamma(2, x)]), [x]),
         [[INF, INF], [-INF, -INF]], ([-INF, -INF],), differs="polygamma at a negative integer is a pole: ember gives inf; PyTorch's series gives a large finite 1.3e15 (6.6e32 in float64)"),
]

# Ops the first table did not reach (listed by a dispatch hook over the derivative table): pooling with
# ties, -inf and ceil-mode windows, embeddings, scatter/index with duplicates, fmax/fmin with NaN, singular
# and near-singular matrices, special functions at 0, large arguments, and second derivatives.

def _pool_input(L):
    return L.x([[[[1., 3., 3.], [-INF, 2., 0.], [3., -1., 3.]]]])


EDGES += [
    Edge("max_pool2d_ties_and_neg_inf", lambda L: (L.F.max_pool2d(x := _pool_input(L), 2, 1), [x]),
         [[[[3.0, 3.0], [3.0, 3.0]]]], ([[[[0.0, 1.540302306, 0.0], [0.0, 0.0, 0.0], [-0.4161468365, 0.0, -0.9899924966]]]],)),
    Edge("max_pool2d_padding_ceil_mode", lambda L: (L.F.max_pool2d(x := _pool_input(L), 2, 2, padding=1, ceil_mode=True), [x]),
         [[[[1.0, 3.0], [3.0, 3.0]]]], ([[[[1.0, 0.5403023059, 0.0], [0.0, 0.0, 0.0], [-0.4161468365, 0.0, -0.9899924966]]]],)),
    Edge("avg_pool2d_ceil_mode_padding_divisors", lambda L: (L.t.cat([L.F.avg_pool2d(x := L.x(np.arange(9.).reshape(1, 1, 3, 3)), 2, 2, padding=1, ceil_mode=True).reshape(-1),
        L.F.avg_pool2d(x, 2, 2, padding=1, ceil_mode=True, count_include_pad=False).reshape(-1), L.F.avg_pool2d(x, 2, 2, padding=1, divisor_override=3).reshape(-1)]), [x]),
         [0.0, 0.75, 2.25, 6.0, 0.0, 1.5, 4.5, 6.0, 0.0, 1.0, 3.0, 8.0], ([[[[-0.4521436321, -0.0268034181, -0.0268034181], [0.0963579245, -0.0575473279, -0.0575473279], [0.0963579245, -0.0575473279, -0.0575473279]]]],)),
    Edge("adaptive_max_pool2d_ties", lambda L: (L.F.adaptive_max_pool2d(x := L.x([[[[2., 2.], [2., 1.]]]]), 1), [x]),
         [[[[2.0]]]], ([[[[1.0, 0.0], [0.0, 0.0]]]],)),
    Edge("adaptive_avg_pool2d_uneven", lambda L: (L.F.adaptive_avg_pool2d(x := L.x(np.arange(10.).reshape(1, 1, 2, 5)), (1, 3)), [x]),
         [[[[3.0, 4.5, 6.0]]]], ([[[[0.25, 0.3400503843, 0.09005038431, -0.01398632483, -0.1040367091], [0.25, 0.3400503843, 0.09005038431, -0.01398632483, -0.1040367091]]]],)),
    Edge("embedding_padding_idx_and_max_norm", lambda L: (L.F.embedding(L.i([0, 2, 0, 1]), w := L.x([[0., 0.], [3., 4.], [1e4, -1e4]]), padding_idx=0), [w]),
         [[0.0, 0.0], [10000.0, -10000.0], [0.0, 0.0], [3.0, 4.0]], ([[0.0, 0.0], [0.9601702867, 0.7539022543], [-0.4161468365, -0.9899924966]],)),
    Edge("embedding_bag_empty_bags", lambda L: (L.t.cat([L.F.embedding_bag(L.i([1, 2, 2]), w := L.x([[1., 2.], [3., 4.], [5., -6.]]), L.i([0, 0, 3]), mode=m) for m in ("sum", "mean", "max")]), [w]),
         [[0.0, 0.0], [13.0, -8.0], [0.0, 0.0], [0.0, 0.0], [4.333333333, -2.666666667], [0.0, 0.0], [0.0, 0.0], [5.0, 4.0], [0.0, 0.0]], ([[0.0, 0.0], [0.0, -0.7596879129], [0.1367372182, 0.0]],)),
    Edge("scatter_reduce_amax_mean_no_self", lambda L: (L.t.stack([L.t.scatter_reduce(s := L.x([1., 2., 3.]), 0, L.i([0, 0, 2, 2]), x := L.x([5., 5., -1., 4.]), "amax", include_self=False),
        L.t.scatter_reduce(s, 0, L.i([0, 0, 2, 2]), x, "mean", include_self=False)]), [s, x]),
         [[5.0, 2.0, 4.0], [5.0, 2.0, 1.5]], ([0.0, -0.113341315, 0.0], [0.0050037517, 0.0050037517, 0.1418310927, -0.2743157438],)),
    Edge("index_put_accumulate_duplicates", lambda L: (L.t.index_put(s := L.x([1., 2., 3.]), (L.i([0, 0, 2]),), x := L.x([5., 6., 7.]), accumulate=True), [s, x]),
         [12.0, 2.0, 10.0], ([1.0, 0.5403023059, -0.4161468365], [1.0, 1.0, -0.4161468365],)),
    Edge("fmax_fmin_with_nan", lambda L: (L.t.stack([L.t.fmax(x := L.x([1., NAN, NAN, 2.]), y := L.x([NAN, 0., NAN, 2.])), L.t.fmin(x, y)]), [x, y]),
         [[1.0, 0.0, NAN, 2.0], [1.0, 0.0, NAN, 2.0]], ([0.3463563791, 0.0, 0.5440234501, -0.2360902423], [0.0, 0.8239644913, 0.0, 0.0],)),
    Edge("lerp_weight_0_1_with_inf_end", lambda L: (L.t.lerp(a := L.x([1., 2., 3.]), b := L.x([5., 6., 7.]), w := L.x([0., 1., .5])), [a, b, w]),
         [1.0, 6.0, 5.0], ([1.0, 0.0, -0.2080734183], [0.0, 0.5403023059, -0.2080734183], [4.0, 2.161209223, -1.664587346],)),
    Edge("masked_fill_and_where_nan_branch", lambda L: (L.t.stack([(x := L.x([-1., 4., 0.])).masked_fill(x <= 0, 0.), L.t.where(x > 0, x, L.t.zeros_like(x))]), [x]),
         [[0.0, 4.0, 0.0], [0.0, 4.0, 0.0]], ([0.0, -0.113341315, 0.0],)),
    Edge("slogdet_of_singular", lambda L: (L.t.stack(list(L.t.linalg.slogdet(x := L.x([[1., 2.], [2., 4.]])))), [x]),
         [-0.0, -INF], ([[-INF, INF], [INF, -INF]],)),  # infinite, signed by LU's rounded zero determinant (-0.0)
    Edge("cholesky_of_near_singular", lambda L: (L.t.linalg.cholesky(x := L.x([[1., 1.], [1., 1.0001]])), [x]),
         [[1.0, 0.0], [1.0, 0.01000082966]], ([[-48.78744496, 49.28744496], [49.28744496, -49.49551837]],), rtol=0.001, atol=0.001),
    Edge("igamma_igammac_at_0", lambda L: (L.t.stack([L.t.special.gammainc(L.c([1., 2., .5]), x := L.x([0., 0., 1e4])), L.t.special.gammaincc(L.c([1., 2., .5]), x)]), [x]),
         [[0.0, 0.0, 1.0], [1.0, 1.0, 0.0]], ([NAN, 0.0, -0.0],)),
    Edge("zeta_at_1_and_large", lambda L: (L.t.special.zeta(L.c([1., 2., 3.]), q := L.x([1., 1e4, 1.])), [q]),
         [INF, 0.0001000050002, 1.202056903], ([-1.644934067, -5.403563388e-09, 1.351216169],)),
    Edge("erf_frac_large", lambda L: (L.t.stack([L.t.erf(x := L.x([1e4, -1e4, 0., 5.])), L.t.frac(x)]), [x]),
         [[1.0, -1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]], ([-0.6536436209, 0.2836621855, 0.4905988658, 0.7539022543],)),
    Edge("asinh_atan_large", lambda L: (L.t.stack([L.t.asinh(x := L.x([1e20, -1e20, 0., 1e-20])), L.t.atan(x)]), [x]),
         [[46.74484906, -46.74484906, 0.0, 9.999999683e-21], [1.570796327, -1.570796327, 0.0, 9.999999683e-21]], ([9.9999998e-21, 5.40302295e-21, 0.5440234501, -0.2360902423],)),
    Edge("cosh_sinh_tan_large", lambda L: (L.t.stack([L.t.cosh(x := L.x([89., -89., 0.])), L.t.sinh(x), L.t.tan(x)]), [x]),
         [[2.244806389e+38, 2.244806389e+38, 1.0], [2.244806389e+38, -2.244806389e+38, 0.0], [1.685825348, -1.685825348, 0.0]], ([2.24649997e+36, -2.680177235e+38, 0.1381621659],), ref='float32'),
    Edge("log2_log10_at_0", lambda L: (L.t.stack([L.t.log2(x := L.x([0., 8., 1e-40])), L.t.log10(x)]), [x]),
         [[-INF, 3.0, -132.8771362], [-INF, 0.9030900002, -40.00000381]], ([NAN, 0.06195220351, NAN],), ref='float32'),
    Edge("square_overflows", lambda L: (L.t.square(x := L.x([2e19, 3.])), [x]),
         [INF, 9.0], ([3.999999992e+19, 3.24181366],), ref='float32'),
    Edge("cumsum_with_inf", lambda L: (L.t.cumsum(x := L.x([1., INF, 2.]), 0), [x]),
         [1.0, INF, INF], ([1.124155469, 0.1241554693, -0.4161468365],)),
    Edge("nanmedian_all_nan", lambda L: (L.t.stack([L.t.nanmedian(x := L.x([NAN, NAN, 1., 3.])), L.t.nanmedian(L.x([NAN, NAN]))]), [x]),
         [1.0, NAN], ([0.0, 0.0, 1.0, 0.0],)),
    Edge("std_mean_one_element_and_all_equal", lambda L: (L.t.cat([L.t.stack(list(L.t.std_mean(x := L.x([3., 3., 3.])))), L.t.stack(list(L.t.std_mean(x[:1], correction=0)))]), [x]),
         [0.0, 3.0, 0.0, 3.0], ([-0.809891728, 0.1801007686, 0.1801007686],)),
    Edge("sigmoid_tanh_second_derivative_1e4", lambda L: (L.t.autograd.grad((L.t.sigmoid(x := L.x([1e4, -1e4, 0.])) + L.t.tanh(x)).sum(), x, create_graph=True)[0], [x]),
         [0.0, 0.0, 1.25], ([-0.0, 0.0, 0.0],)),
    Edge("silu_second_derivative_extremes", lambda L: (L.t.autograd.grad(L.F.silu(x := L.x([1e4, -1e4, 0., -100.])).sum(), x, create_graph=True)[0], [x]),
         [1.0, -0.0, 0.5, -3.682875216e-42], ([0.0, 0.0, -0.2080734183, 3.609190357e-42],)),
    Edge("trace_diagonal_tril", lambda L: (L.t.stack([L.t.trace(x := L.x([[INF, 1.], [2., 3.]])), L.t.diagonal(x)[1], L.t.tril(x)[0, 1]]), [x]),
         [INF, 3.0, 0.0], ([[1.0, 0.0], [0.0, 1.540302306]],)),
    Edge("conv2d_zero_padding_inf_input", lambda L: (L.F.conv2d(x := L.x([[[[1., 2.], [3., 4.]]]]), w := L.x([[[[1e4, -1e4], [0., 1.]]]]), padding=1), [x, w]),
         [[[[1.0, 2.0, 0.0], [-9997.0, -9996.0, 20000.0], [-30000.0, -10000.0, 40000.0]]]], ([[[[3364.488757, 9373.598366], [-2063.670316, -8994.676525]]]], [[[[1.593387378, 3.598840139], [-1.118273488, -3.503947362]]]],)),
]

def run(edge: Edge, t, F, dtype: str, device: str = "cpu") -> tuple[np.ndarray, list]:
    """The case's output and its leaves' gradients (of `(out * w).sum()`), as float64 arrays."""
    L = Lib(t, F, dtype, device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # PyTorch's own (var of one element, kl_div's 'mean')
        if device == "cpu":  # numpy's overflow/invalid noise (PyTorch is silent); the simulator has its own
            warnings.simplefilter("error", RuntimeWarning)
        out, leaves = edge.build(L)
        if leaves:
            w = np.cos(np.arange(out.numel())).reshape(tuple(out.shape))
            out.backward(t.tensor(w, dtype=out.dtype, device=out.device))
    grads = [None if x.grad is None else np.asarray(x.grad.cpu().numpy(), dtype=np.float64) for x in leaves]
    return np.asarray(out.detach().cpu().numpy(), dtype=np.float64), grads


def _ember():
    import ember.nn.functional as F

    return ember_torch(), F


def _check(edge: Edge, out: np.ndarray, grads: list, expected_out, expected_grads, who: str) -> None:
    expected_out = np.asarray(expected_out, dtype=np.float64)
    assert out.shape == expected_out.shape, f"{edge.name}: {who} output shape {out.shape} != {expected_out.shape}"
    finite = np.isfinite(expected_out)
    assert np.isfinite(out[finite]).all(), f"{edge.name}: {who} output not finite where expected: {out}"
    np.testing.assert_allclose(out, expected_out, rtol=edge.rtol, atol=edge.atol, equal_nan=True,
                               err_msg=f"{edge.name}: {who} output")
    assert len(grads) == len(expected_grads), f"{edge.name}: {len(grads)} gradients, expected {len(expected_grads)}"
    for k, (g, e) in enumerate(zip(grads, expected_grads)):
        if e is None:
            assert g is None, f"{edge.name}: {who} leaf {k} has a gradient, expected none"
            continue
        e = np.asarray(e, dtype=np.float64)
        assert g is not None, f"{edge.name}: {who} leaf {k} got no gradient"
        assert np.isfinite(g[np.isfinite(e)]).all(), f"{edge.name}: {who} gradient {k} not finite: {g}"
        np.testing.assert_allclose(g.reshape(e.shape), e, rtol=edge.rtol, atol=edge.atol, equal_nan=True,
                                   err_msg=f"{edge.name}: {who} gradient of leaf {k}")


@pytest.mark.parametrize("edge", EDGES, ids=[e.name for e in EDGES])
def test_edge_against_float64(edge):
    t, F = _ember()
    out, grads = run(edge, t, F, "float32")
    _check(edge, out, grads, edge.forward, edge.grads, "ember")


# the cases whose kernels have CUDA twins (losses, softmax, norms, activations), rerun on the device
CUDA_EDGES = ["bce_at_0_and_1", "bce_wrong_side_of_0_and_1", "bce_logits_at_0", "bce_logits_1e4",
              "softmax_all_neg_inf_row", "log_softmax_1e4_and_all_equal", "logsumexp_1e4_and_all_equal",
              "cross_entropy_all_ignored_mean", "cross_entropy_ignored_with_label_smoothing", "nll_all_ignored_mean",
              "hardswish_at_kinks", "std_all_equal", "normalize_zero_row", "cosine_similarity_zero_vectors",
              "sdpa_query_with_every_key_masked", "batch_norm_large_mean", "layer_norm_large_mean",
              "group_norm_large_mean", "instance_norm_large_mean",
              "erfinv_at_pm1", "polygamma_near_poles", "log_ndtr_ndtr_far_tail", "logit_with_eps",
              "complex_abs_angle_at_0", "ctc_target_length_0", "ctc_impossible_alignment",
              "ctc_impossible_zero_infinity", "grid_sample_bilinear_zeros", "grid_sample_bilinear_reflection_ac",
              "grid_sample_nearest_border", "grid_sample_bicubic_reflection", "log_softmax_pos_inf_entry",
              "cross_entropy_label_smoothing_1e4", "lstm_cell_saturated_gates", "gru_cell_saturated_gates"]


@pytest.mark.cuda
@pytest.mark.parametrize("name", CUDA_EDGES)
def test_edge_on_cuda(name):
    t, F = _ember()
    if not t.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    edge = next(e for e in EDGES if e.name == name)
    out, grads = run(edge, t, F, "float32", "cuda")
    _check(edge, out, grads, edge.forward, edge.grads, "ember on CUDA")


def test_case_names_are_unique():
    assert len({e.name for e in EDGES}) == len(EDGES)


@pytest.mark.torch
@pytest.mark.parametrize("edge", EDGES, ids=[e.name for e in EDGES])
def test_edge_against_torch(edge):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF

    if edge.differs:
        pytest.skip(f"ember differs from PyTorch on purpose: {edge.differs}")
    t_out, t_grads = run(edge, torch, TF, edge.ref)
    # the table's expectations are PyTorch's (float64 unless the case says float32) ...
    _check(edge, t_out, t_grads, edge.forward, edge.grads, "torch vs the table")
    # ... and ember, in float32, agrees with them
    out, grads = run(edge, *_ember(), "float32")
    _check(edge, out, grads, t_out, t_grads, "ember vs torch")


@pytest.mark.parametrize("name", ["threshold", "hardtanh", "hardsigmoid", "hardshrink", "softshrink", "relu"])
def test_a_nan_gradient_where_an_activation_is_flat_becomes_zero(name):
    """PyTorch selects 0 where these backward rules zero the gradient, so a NaN or inf arriving
    there does not leak through (a product with a 0/1 mask would keep it)."""
    import ember.autograd as E
    import ember.nn.functional as F

    fn = {"threshold": lambda x: F.threshold(x, 0.0, 0.0)}.get(name, getattr(F, name))
    x = E.tensor([-5.0, 0.25], requires_grad=True)  # -5 lies in every flat region, 0.25 in none but the shrinks'
    fn(x).backward(E.tensor([float("nan"), float("inf")]))
    assert x.grad.tolist()[0] == 0.0 or name in ("hardshrink", "softshrink")
    if name in ("hardshrink", "softshrink"):
        assert x.grad.tolist()[1] == 0.0


def test_degrees_of_freedom_warning_names_the_callers_line():
    """var/std/var_mean/cov of too few elements warn at the user's line, through autograd's recording
    and the Tensor method alike (not inside ember), as PyTorch's warnings do."""
    t = ember_torch()
    calls = [lambda: t.tensor([3.]).var(), lambda: t.tensor([3.], requires_grad=True).var(),
             lambda: t.std(t.tensor([3.], requires_grad=True)), lambda: t.var_mean(t.tensor([3.])),
             lambda: t.cov(t.tensor([[3.]]))]
    for call in calls:
        with pytest.warns(UserWarning, match="degrees of freedom is <= 0") as record:
            call()
        assert record[0].filename == __file__, record[0].filename


def test_deprecation_warnings_name_the_callers_line_and_warn_once_where_pytorch_does(monkeypatch):
    """The warnings of deprecated calls carry PyTorch's words, at the user's line (through composites and the
    index path), every call or once a process as PyTorch's TORCH_WARN / TORCH_WARN_ONCE."""
    from ember.core.ops import _util

    t = ember_torch()
    F = t.nn.functional
    monkeypatch.setattr(_util, "_warned_once", set())
    ro = np.zeros(2)
    ro.flags.writeable = False
    every_call = [
        (lambda: F.kl_div(t.zeros(2), t.ones(2)), "reduction: 'mean' divides the total loss"),
        (lambda: F.nll_loss(t.zeros(2, 3), t.tensor([0, 1]), size_average=True),
         "size_average and reduce args will be deprecated, please use reduction='mean' instead."),
        (lambda: t.ones(3)[t.tensor([1, 0, 1], dtype=t.uint8)], "indexing with dtype torch.uint8 is now deprecated"),
    ]
    once = [
        (lambda: F.conv1d(t.ones(1, 1, 5), t.ones(1, 1, 2), padding="same"), "Using padding='same' with even kernel"),
        (lambda: t.ones(2, 3, 4).T, "The use of `x.T` on tensors of dimension other than 2"),
        (lambda: t.tensor(1.0).T, "Tensor.T is deprecated on 0-D tensors."),
        (lambda: t.ones(2, 2).to_sparse_csr(), "Sparse CSR tensor support is in beta state."),
        (lambda: t.chain_matmul(t.ones(2, 2), t.ones(2, 2)), "torch.chain_matmul is deprecated"),
        (lambda: t.lu(t.eye(2)), "torch.lu is deprecated in favor of torch.linalg.lu_factor"),
        (lambda: t.as_tensor(ro), "The given NumPy array is not writable, and PyTorch does not support"),
    ]
    for call, message in every_call + once:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            call()
            call()
        got = [w for w in record if str(w.message).startswith(message)]
        assert len(got) == (2 if (call, message) in every_call else 1), (message, [str(w.message) for w in record])
        assert got[0].filename == __file__, (message, got[0].filename)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert t.ones(2, 3).T.shape == (3, 2)  # 2-D: no warning
