"""SobolEngine: the first points against the hand-computed Sobol' sequence, the direction numbers'
polynomials against the known primitive ones, the balance of 2^m points (scrambled too), the draw /
fast_forward / reset bookkeeping, errors, and (torch-marked) every point equal to PyTorch's."""

import numpy as np
import pytest

import ember.core as E
from ember.core.quasirandom import SobolEngine, _primitive_polys


def test_first_points_are_the_sobol_sequence():
    pts = SobolEngine(3).draw(8, dtype=E.float64).numpy()
    expected = [[0, 0, 0], [0.5, 0.5, 0.5], [0.75, 0.25, 0.25], [0.25, 0.75, 0.75], [0.375, 0.375, 0.625],
                [0.875, 0.875, 0.125], [0.625, 0.125, 0.875], [0.125, 0.625, 0.375]]
    np.testing.assert_array_equal(pts, expected)


def test_primitive_polynomials_in_joe_kuo_order():
    # x+1; x^2+x+1; x^3+x+1, x^3+x^2+1; x^4+x+1, x^4+x^3+1; the six of degree 5
    assert _primitive_polys(12) == (3, 7, 11, 13, 19, 25, 37, 41, 47, 55, 59, 61)
    assert sum(p.bit_length() == 14 for p in _primitive_polys(1110)) == 630  # phi(8191) / 13: all of degree 13


@pytest.mark.parametrize("scramble", [False, True])
def test_every_dyadic_box_of_two_dims_holds_one_point(scramble):
    m = 7
    pts = SobolEngine(6, scramble=scramble, seed=3).draw_base2(m, dtype=E.float64).numpy()
    assert pts.shape == (2 ** m, 6) and pts.min() >= 0 and pts.max() < 1
    for a in range(m + 1):  # dims 0 and 1 form a (0, m, 2)-net: boxes 2^-a by 2^-(m-a) hold one point each
        cells = np.floor(pts[:, 0] * 2 ** a).astype(int) * 2 ** (m - a) + np.floor(pts[:, 1] * 2 ** (m - a))
        assert len(set(cells.astype(int))) == 2 ** m
    for j in range(6):
        assert len(set(np.floor(pts[:, j] * 2 ** m).astype(int))) == 2 ** m


def test_draw_fast_forward_and_reset_continue_the_same_sequence():
    all_pts = SobolEngine(4).draw(40, dtype=E.float64).numpy()
    e = SobolEngine(4)
    np.testing.assert_array_equal(e.draw(1, dtype=E.float64).numpy(), all_pts[:1])
    np.testing.assert_array_equal(e.draw(6, dtype=E.float64).numpy(), all_pts[1:7])
    e.fast_forward(10)
    assert e.num_generated == 17
    np.testing.assert_array_equal(e.draw(3, dtype=E.float64).numpy(), all_pts[17:20])
    np.testing.assert_array_equal(e.quasi.numpy() / 2.0 ** 30, all_pts[19])
    e.reset().fast_forward(25)
    out = E.empty(0, dtype=E.float64)
    assert e.draw(15, out=out, dtype=E.float64) is out
    np.testing.assert_array_equal(out.numpy(), all_pts[25:])
    assert SobolEngine(4).draw(3).dtype is E.get_default_dtype()


def test_scrambling_is_reproducible_from_the_seed():
    a = SobolEngine(3, scramble=True, seed=5).draw(16)
    assert a.tolist() == SobolEngine(3, scramble=True, seed=5).draw(16).tolist()
    assert a.tolist() != SobolEngine(3, scramble=True, seed=6).draw(16).tolist()
    assert repr(SobolEngine(3, scramble=True, seed=5)) == "SobolEngine(dimension=3, scramble=True, seed=5)"


def test_errors():
    with pytest.raises(ValueError, match=r"Supported range of dimensionality for SobolEngine is \[1, 1111\]; got 1112"):
        SobolEngine(SobolEngine.MAXDIM + 1)
    for bad in (0, -3, 21202):  # outside PyTorch's own table: its words, whole
        with pytest.raises(ValueError, match=r"^Supported range of dimensionality for SobolEngine is \[1, 21201\]$"):
            SobolEngine(bad)
    e = SobolEngine(2)
    e.draw(3)
    with pytest.raises(ValueError, match=r"require n to be a power of 2. 3 points .* n=3\+2\*\*2=7"):
        e.draw_base2(2)


def test_the_highest_dimension_draws():
    pts = SobolEngine(SobolEngine.MAXDIM).draw_base2(4, dtype=E.float64).numpy()
    for j in range(pts.shape[1]):  # every dimension's first 16 points are a permutation of k / 16
        assert sorted(pts[:, j] * 16) == list(range(16))


@pytest.mark.torch
@pytest.mark.parametrize("dimension", [1, 2, 7, 40, 1111])
def test_points_equal_pytorchs(dimension):
    torch = pytest.importorskip("torch")
    t, e = torch.quasirandom.SobolEngine(dimension), SobolEngine(dimension)
    for step, arg in (("draw", 1), ("draw", 5), ("ff", 11), ("draw", 300), ("reset", 0), ("ff", 3), ("draw", 70)):
        if step == "draw":
            np.testing.assert_array_equal(e.draw(arg, dtype=E.float64).numpy(),
                                          t.draw(arg, dtype=torch.float64).numpy())
            np.testing.assert_array_equal(e.quasi.numpy(), t.quasi.numpy())
        elif step == "ff":
            e.fast_forward(arg), t.fast_forward(arg)
        else:
            e.reset(), t.reset()
    np.testing.assert_array_equal(e.draw(64).numpy(), t.draw(64).numpy())  # float32, the default dtype
    np.testing.assert_array_equal(e.sobolstate.numpy(), t.sobolstate.numpy())


def test_seeded_scrambled_points_are_pytorchs():
    """The scramble's random bits come from a generator seeded with `seed` (PyTorch's randint draws), the shift's
    bits weighted least significant first, as PyTorch's: these are PyTorch 2.13's points for seed 7."""
    pts = SobolEngine(3, scramble=True, seed=7).draw(3)
    np.testing.assert_allclose(pts.numpy(), [[0.19947313, 0.1709322, 0.74935693], [0.69220829, 0.71149492, 0.48982981],
                                             [0.8505491, 0.29627064, 0.78798062]], rtol=1e-6)


def test_unseeded_scramble_draws_from_the_global_generator():
    E.manual_seed(3)
    a = SobolEngine(2, scramble=True).draw(4).tolist()
    after = E.rand(1).item()
    E.manual_seed(3)
    assert SobolEngine(2, scramble=True).draw(4).tolist() == a and E.rand(1).item() == after
    E.manual_seed(3)
    E.randint(2, (2, 30))
    E.randint(2, (2, 30, 30))
    assert E.rand(1).item() == after
