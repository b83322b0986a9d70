"""Window functions against their float64 formulas (scipy.signal's definitions), and the
trapezoidal rule against numpy.trapezoid."""

import math
import re

import numpy as np
import pytest

import ember.core as E
from ember.core.testing import assert_close


def _sym(kind, n, **kw):
    k = np.arange(n, dtype=np.float64)
    c = 2 * np.pi * k / (n - 1)
    if kind == "hann":
        return 0.5 - 0.5 * np.cos(c)
    if kind == "hamming":
        return kw.get("alpha", 0.54) - kw.get("beta", 0.46) * np.cos(c)
    if kind == "blackman":
        return 0.42 - 0.5 * np.cos(c) + 0.08 * np.cos(2 * c)
    if kind == "bartlett":
        return 1 - np.abs(2 * k / (n - 1) - 1)
    return np.kaiser(n, kw.get("beta", 12.0))


@pytest.mark.parametrize("kind", ["hann", "hamming", "blackman", "bartlett", "kaiser"])
@pytest.mark.parametrize("n", [2, 5, 8])
def test_windows_symmetric_and_periodic(kind, n):
    fn = getattr(E, f"{kind}_window")
    assert_close(fn(n, periodic=False, dtype=E.float64), E.tensor(_sym(kind, n)), atol=1e-12, rtol=0)
    assert_close(fn(n, dtype=E.float64), E.tensor(_sym(kind, n + 1)[:n]), atol=1e-12, rtol=0)
    w = fn(n)
    assert w.dtype is E.float32 and w.shape == (n,)


def test_window_parameters_and_edge_lengths():
    assert_close(E.hamming_window(6, False, 0.5, 0.5, dtype=E.float64), E.tensor(_sym("hann", 6)))
    assert_close(E.kaiser_window(6, False, 5.0, dtype=E.float64), E.tensor(np.kaiser(6, 5.0)))
    assert E.hann_window(1).tolist() == [1.0] and E.hann_window(0).shape == (0,)
    with pytest.raises(RuntimeError) as e:
        E.hamming_window(3, dtype=E.int32)
    assert str(e.value) == ("hamming_window expects floating point dtypes, got: TensorOptions(dtype=int, device=cpu, "
                            "layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
                            "memory_format=(nullopt))")  # PyTorch prints the options it was given
    with pytest.raises(NotImplementedError, match="^\"arange_cpu\" not implemented for 'ComplexFloat'$"):
        E.hann_window(3, dtype=E.complex64)
    with pytest.raises(RuntimeError, match="non-negative window_length"):
        E.blackman_window(-1)


def test_trapezoid_matches_numpy():
    y = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])
    t = E.tensor(y)
    assert_close(E.trapezoid(t), E.tensor(np.trapezoid(y)))
    assert_close(E.trapezoid(t, dim=0), E.tensor(np.trapezoid(y, axis=0)))
    assert_close(E.trapezoid(t, dx=0.5), E.tensor(np.trapezoid(y, dx=0.5)))
    x = np.array([0.0, 1.0, 3.0])
    assert_close(E.trapezoid(t, E.tensor(x)), E.tensor(np.trapezoid(y, x)))
    x2 = np.array([[0.0, 1.0, 3.0], [0.0, 2.0, 3.0]])
    assert_close(E.trapezoid(t, E.tensor(x2)), E.tensor(np.trapezoid(y, x2)))
    assert_close(E.trapz(t, dx=2.0), E.tensor(np.trapezoid(y, dx=2.0)))
    assert E.trapezoid(E.tensor([1, 2, 4])).item() == 4.5
    assert E.trapezoid(E.zeros(2, 0)).tolist() == [0.0, 0.0]


def test_trapezoid_refuses_x_with_dx_in_pytorchs_words():
    """PyTorch's binding takes a Tensor x or dx, never both (nor a None for either), and names the call as its
    parser does: positional types, then keywords in its hash table's order, under the name that was called."""
    y, x = E.ones(3), E.arange(3.0)
    want = {
        (lambda: E.trapezoid(y, x, dx=0.5)): "trapezoid() received an invalid combination of arguments - got "
                                             "(Tensor, Tensor, dx=float), but expected one of:\n"
                                             " * (Tensor y, Tensor x, *, int dim = -1)\n"
                                             " * (Tensor y, *, Number dx = 1, int dim = -1)\n",
        (lambda: E.trapz(y, x, dx=0.5)): "trapz() received an invalid combination of arguments - got "
                                         "(Tensor, Tensor, dx=float), but expected one of:\n"
                                         " * (Tensor y, *, float dx = 1, int dim = -1)\n"
                                         " * (Tensor y, Tensor x, *, int dim = -1)\n",
    }
    for call, message in want.items():
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == message
    got = {
        (lambda: E.trapezoid(y, x=x, dx=0.5)): "(Tensor, dx=float, x=Tensor)",
        (lambda: E.trapezoid(y, dx=0.5, x=x)): "(Tensor, x=Tensor, dx=float)",
        (lambda: E.trapezoid(y, x=x, dim=0, dx=0.5)): "(Tensor, dx=float, dim=int, x=Tensor)",
        (lambda: E.trapezoid(y=y, x=x, dx=0.5, dim=0)): "(dx=float, dim=int, x=Tensor, y=Tensor, )",
        (lambda: E.cumulative_trapezoid(y, x, dx=0.5, dim=0)): "(Tensor, Tensor, dim=int, dx=float)",
        (lambda: E.cumulative_trapezoid(y, x, dim=0, dx=0.5)): "(Tensor, Tensor, dx=float, dim=int)",
        (lambda: E.trapezoid(y, None)): "(Tensor, NoneType)",
        (lambda: E.trapezoid(y, dx=None)): "(Tensor, dx=NoneType)",
        (lambda: E.trapz(y, 0.5)): "(Tensor, float)",
    }
    for call, args in got.items():
        with pytest.raises(TypeError, match=f"combination of arguments - got {re.escape(args)}, but expected"):
            call()
    assert E.trapz(E.tensor([1.0, 4.0, 9.0]), x=E.tensor([0.0, 1.0, 3.0])).item() == 15.5


def test_trapezoid_takes_xs_differences_along_ys_dim_whatever_xs_rank():
    # PyTorch pads a lower-rank x with leading ones and slices a higher-rank one at y's dim (numpy aligns from the
    # right instead): y [1, 2] and x [[0, 1], [0, 2]] give widths x[1] - x[0] = [0, 1], so [0, 1.5], not [1.5, 3]
    assert E.trapezoid(E.tensor([1.0, 2.0]), E.tensor([[0.0, 1.0], [0.0, 2.0]])).tolist() == [0.0, 1.5]
    assert E.cumulative_trapezoid(E.tensor([1.0, 2.0]), E.tensor([[0.0, 1.0], [0.0, 2.0]])).tolist() == [[0.0, 1.5]]
    y, x = np.arange(24.0).reshape(2, 3, 4), np.arange(12.0).reshape(3, 4) ** 2
    widths = (x[1:] - x[:-1])[None]  # x as (1, 3, 4), differenced along dim 1
    expected = ((y[:, 1:] + y[:, :-1]) * widths).sum(1) / 2
    assert_close(E.trapezoid(E.tensor(y), E.tensor(x), dim=1), E.tensor(expected))
    # along a dim x was padded in: no widths, a zero integral
    assert E.trapezoid(E.tensor(y), E.tensor(x), dim=0).tolist() == np.zeros((3, 4)).tolist()
    with pytest.raises(RuntimeError, match="^The size of tensor a \\(2\\) must match the size of tensor b \\(0\\) "
                                           "at non-singleton dimension 1$"):  # a 0-dim x: no widths along dim -1
        E.trapezoid(E.arange(6.0).view(2, 3), E.tensor(2.0))


def test_cumulative_trapezoid_is_the_running_integral():
    y = np.array([[1.0, 2.0, 4.0, 7.0], [3.0, 5.0, 9.0, 1.0]])
    x = np.array([0.0, 1.0, 3.0, 3.5])
    steps = (y[:, 1:] + y[:, :-1]) / 2 * np.diff(x)
    assert_close(E.cumulative_trapezoid(E.tensor(y), E.tensor(x)), E.tensor(np.cumsum(steps, axis=1)))
    assert_close(E.cumulative_trapezoid(E.tensor(y), dim=0), E.tensor((y[1:] + y[:-1]) / 2))


def test_trapezoid_errors():
    with pytest.raises(RuntimeError, match="one `x` value for each sample point"):
        E.trapezoid(E.ones(3), E.tensor([0.0, 1.0]))
    with pytest.raises(IndexError, match="Dimension out of range"):
        E.trapezoid(E.ones(3), dim=1)
    # a 0-d y: PyTorch's first size lookup (or slice) names the problem
    with pytest.raises(IndexError, match="^Dimension specified as -1 but tensor has no dimensions$"):
        E.trapezoid(E.tensor(1.0))
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dimensions$"):
        E.trapezoid(E.tensor(1.0), E.tensor(2.0))
    with pytest.raises(IndexError, match="^slice\\(\\) cannot be applied to a 0-dim tensor.$"):
        E.cumulative_trapezoid(E.tensor(1.0))
    with pytest.raises(RuntimeError, match="^trapezoid: received a bool input for `y`, but bool is not supported$"):
        E.trapezoid(E.tensor([True, False]))
    with pytest.raises(RuntimeError, match="^cumulative_trapezoid: received a bool input for `x` or `y`"):
        E.cumulative_trapezoid(E.ones(2), E.tensor([True, False]))
    # PyTorch's constant-spacing form dx (sum(y) - (y_0 + y_n) / 2): integers give float32, as there
    r = E.trapezoid(E.tensor([1, 2, 4]), dx=2)
    assert r.dtype is E.float32 and r.item() == 9.0
    assert math.isclose(E.trapezoid(E.ones(5), dx=0.25).item(), 1.0)


@pytest.mark.parametrize("call, got", [
    (lambda: E.kaiser_window(4, 1, beta=1.0, dtype=E.float64, requires_grad=True, layout=E.strided, device="cpu"),
     "(int, int, layout=torch.layout, device=str, requires_grad=bool, dtype=torch.dtype, beta=float)"),
    (lambda: E.hamming_window(4, True, beta=0.5, layout=E.strided, requires_grad=True, dtype=E.float32, device="cpu"),
     "(int, bool, dtype=torch.dtype, device=str, requires_grad=bool, layout=torch.layout, beta=float)"),
    (lambda: E.trapezoid(E.ones(4), dim=0, x=E.ones(4), dx=2), "(Tensor, dx=int, x=Tensor, dim=int)"),
])
def test_a_refused_call_lists_its_keywords_in_pytorchs_hash_table_order(call, got):
    """PyTorch's parser lists a failed call's keywords in its `unordered_map`'s order (`parser_errors.kwargs_order`),
    a layout as `torch.layout`."""
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value).split(", but expected")[0].endswith(f" - got {got}")


def test_kaiser_window_takes_beta_only_after_periodic_as_pytorchs_binding():
    with pytest.raises(TypeError, match=r"^kaiser_window\(\) received an invalid combination of arguments - got "
                                        r"\(int, beta=float\), but expected one of:\n \* \(int window_length, \*, "):
        E.kaiser_window(8, beta=5.0)
    assert_close(E.kaiser_window(6, periodic=False, beta=5.0, dtype=E.float64), E.tensor(np.kaiser(6, 5.0)))
    assert E.kaiser_window(8).shape == (8,)


def test_windows_take_their_optional_arguments_in_order_as_pytorchs_binding():
    """hamming_window's alpha and beta need periodic (and beta alpha), periodic must be a bool, and no window takes
    more positional arguments than its overloads; the keywords are listed as PyTorch's parser lists them."""
    forms = (" * (int window_length, *, {o}\n * (int window_length, bool periodic, *, {o}\n * (int window_length, "
             "bool periodic, float alpha, *, {o}\n * (int window_length, bool periodic, float alpha, float beta, *, "
             "{o}\n").format(o="torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
                              "bool pin_memory = False, bool requires_grad = False)")
    with pytest.raises(TypeError) as e:
        E.hamming_window(4, alpha=0.5, beta=0.5)
    assert str(e.value) == ("hamming_window() received an invalid combination of arguments - got (int, beta=float, "
                            "alpha=float), but expected one of:\n" + forms)
    for call, got in [(lambda: E.hamming_window(4, True, beta=0.5), "int, bool, beta=float"),
                      (lambda: E.hamming_window(4, 1, 0.5), "int, int, float"),
                      (lambda: E.hann_window(4, True, 0.5), "int, bool, float"),
                      (lambda: E.blackman_window(4, periodic=1), "int, periodic=int"),
                      (lambda: E.kaiser_window(4, beta=1.0, dtype=E.float64), "int, dtype=torch.dtype, beta=float")]:
        with pytest.raises(TypeError, match=rf"received an invalid combination of arguments - got \({got}\), but"):
            call()
    assert_close(E.hamming_window(4, periodic=False, alpha=0.5, beta=0.1, dtype=E.float64),
                 E.tensor([0.4, 0.55, 0.55, 0.4], dtype=E.float64))


def test_float32_kaiser_window_is_pytorchs_bit_for_bit():
    # PyTorch's kernel computes a float32 window in float32 with its float32 I0 (values stored from PyTorch 2.13)
    assert E.kaiser_window(7, False, 5.0).tolist() == [0.036710888147354126, 0.32820194959640503, 0.7753219604492188,
                                                       1.0, 0.7753219604492188, 0.32820194959640503,
                                                       0.036710888147354126]
    assert E.kaiser_window(6).tolist() == [5.2773437346331775e-05, 0.05475931614637375, 0.5188445448875427, 1.0,
                                           0.5188445448875427, 0.05475931614637375]


def test_trapezoid_refuses_x_with_dx_as_pytorchs_binding():
    y = E.tensor([1.0, 2.0, 4.0])
    for fn in (E.trapezoid, E.cumulative_trapezoid):
        with pytest.raises(TypeError, match=rf"^{fn.__name__}\(\) received an invalid combination of arguments - got "
                                            r"\(Tensor, Tensor, dx=float\), but expected one of:"):
            fn(y, y, dx=0.5)


def test_windows_follow_pytorchs_steps():
    """PyTorch builds a window by steps rounded to its dtype (blackman: `cos(4x) 0.08 - cos(2x) 0.5 + 0.42`), so
    blackman's ends are exactly 0 and no tiny negative turns its repr scientific; values are PyTorch 2.13's."""
    b = E.blackman_window(4, dtype=E.float64)
    assert b.tolist() == [0.0, 0.33999999999999997, 1.0, 0.3400000000000001]
    assert repr(b).startswith("tensor([0.0000, 0.3400, 1.0000, 0.3400], dtype=")
    assert E.blackman_window(5, False, dtype=E.float64).tolist() == [0.0, 0.33999999999999997, 1.0,
                                                                     0.3400000000000001, 0.0]
    assert E.bartlett_window(5, dtype=E.float64).tolist() == [0.0, 0.4, 0.8, 0.7999999999999998, 0.3999999999999999]
    assert E.hann_window(16, False, dtype=E.float64).tolist()[:3] == [0.0, 0.04322727117869957, 0.16543469682057088]
    assert E.hamming_window(2).tolist() == [0.08000001311302185, 1.0]
    assert E.blackman_window(2).tolist() == [-2.9802322387695312e-08, 1.0]


@pytest.mark.parametrize("make,want", [  # PyTorch 2.13's values, printed by .tolist()
    (lambda: E.hann_window(7, dtype=E.float16),
     [0.0, 0.188232421875, 0.611328125, 0.9501953125, 0.95068359375, 0.611328125, 0.189453125]),
    (lambda: E.blackman_window(3, dtype=E.float16), [0.0, 0.6298828125, 0.630859375]),
    (lambda: E.hamming_window(9, False, dtype=E.bfloat16),
     [0.078125, 0.212890625, 0.5390625, 0.8671875, 1.0, 0.8671875, 0.53515625, 0.212890625, 0.078125]),
    (lambda: E.bartlett_window(7, dtype=E.bfloat16),
     [0.0, 0.28515625, 0.5703125, 0.85546875, 0.859375, 0.578125, 0.2890625]),
    (lambda: E.blackman_window(12, False, dtype=E.bfloat16),
     [0.0, 0.033203125, 0.158203125, 0.412109375, 0.734375, 0.96875, 0.96875, 0.734375, 0.41796875, 0.166015625,
      0.03515625, 0.0]),
])
def test_16_bit_windows_round_every_step_and_scalar_as_pytorch(make, want):
    """PyTorch computes a 16-bit window in 16 bits: each op in float32 rounded back, its scalars rounded too,
    so a periodic window is not symmetric (hann_window(7)[3] != [4])."""
    assert make().tolist() == want
