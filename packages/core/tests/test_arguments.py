"""PyTorch's argument parser's TypeError for a wrongly typed argument of the linalg functions: "(position N)" only
for an argument passed positionally (PyTorch 2.13's words, hard-coded)."""

import re

import numpy as np
import pytest

import ember.core as E
from ember.core.ops.arguments import parsed

x, A = E.ones(3), E.eye(2)


@pytest.mark.parametrize("call, message", [
    (lambda: E.linalg.vector_norm(x, ord="fro"), "linalg_vector_norm(): argument 'ord' must be Number, not str"),
    (lambda: E.linalg.vector_norm(x, "fro"),
     "linalg_vector_norm(): argument 'ord' (position 2) must be Number, not str"),
    (lambda: E.linalg.vector_norm(x, dim="a"), "linalg_vector_norm(): argument 'dim' must be tuple of ints, not str"),
    (lambda: E.linalg.vector_norm(x, 2, [0.5]), "linalg_vector_norm(): argument 'dim' (position 3) must be tuple of "
                                                "ints, but found element of type float at pos 0"),
    (lambda: E.linalg.vector_norm(x, 2, dim=[0.5]), "linalg_vector_norm(): argument 'dim' must be tuple of ints, not "
                                                    "list"),
    (lambda: E.linalg.vector_norm(x, keepdim="a"), "linalg_vector_norm(): argument 'keepdim' must be bool, not str"),
    (lambda: E.linalg.vector_norm(x, 2, 0, np.bool_(True)),
     "linalg_vector_norm(): argument 'keepdim' (position 4) must be bool, not numpy.bool"),
    (lambda: E.linalg.vector_norm(x, dtype="a"), "linalg_vector_norm(): argument 'dtype' must be torch.dtype, not str"),
    (lambda: E.linalg.vector_norm("a"), "linalg_vector_norm(): argument 'input' (position 1) must be Tensor, not str"),
    (lambda: E.linalg.solve(A, B=3), "linalg_solve(): argument 'B' must be Tensor, not int"),
    (lambda: E.linalg.solve(A, [1.0, 2.0]), "linalg_solve(): argument 'B' (position 2) must be Tensor, not list"),
    (lambda: E.linalg.solve(A, x[:2], left="a"), "linalg_solve(): argument 'left' must be bool, not str"),
    (lambda: E.linalg.inv(A=3), "linalg_inv(): argument 'A' must be Tensor, not int"),
    (lambda: E.linalg.inv([[1.0]]), "linalg_inv(): argument 'A' (position 1) must be Tensor, not list"),
    (lambda: E.linalg.slogdet(3), "linalg_slogdet(): argument 'A' (position 1) must be Tensor, not int"),
    (lambda: E.slogdet(3), "slogdet(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: E.linalg.cholesky(A, upper="a"), "linalg_cholesky(): argument 'upper' must be bool, not str"),
    (lambda: E.linalg.svd(A, full_matrices="a"), "linalg_svd(): argument 'full_matrices' must be bool, not str"),
    (lambda: E.linalg.svd(A, None), "linalg_svd(): argument 'full_matrices' (position 2) must be bool, not NoneType"),
    (lambda: E.linalg.qr(A, mode=1), "linalg_qr(): argument 'mode' must be str, not int"),
    (lambda: E.linalg.qr(3), "linalg_qr(): argument 'A' (position 1) must be Tensor, not int"),
    (lambda: E.linalg.eigh(A, UPLO=1), "linalg_eigh(): argument 'UPLO' must be str, not int"),
    (lambda: E.linalg.eigvalsh(A, 1), "linalg_eigvalsh(): argument 'UPLO' (position 2) must be str, not int"),
    (lambda: E.linalg.svdvals(3), "linalg_svdvals(): argument 'A' (position 1) must be Tensor, not int"),
    (lambda: E.linalg.cross(x, x, dim="a"), "linalg_cross(): argument 'dim' must be int, not str"),
    (lambda: E.linalg.cross(x, x, dim=True), "linalg_cross(): argument 'dim' must be int, not bool"),
    (lambda: E.linalg.vecdot(x, x, dim=None), "linalg_vecdot(): argument 'dim' must be int, not NoneType"),
    (lambda: E.linalg.diagonal(A, dim1="a"), "linalg_diagonal(): argument 'dim1' must be int, not str"),
    (lambda: E.linalg.lstsq(A, A, "a"), "linalg_lstsq(): argument 'rcond' (position 3) must be float, not str"),
    (lambda: E.linalg.lstsq(A, A, driver=1), "linalg_lstsq(): argument 'driver' must be str, not int"),
    (lambda: E.linalg.solve_triangular(A, A, upper="a"), "linalg_solve_triangular(): argument 'upper' must be bool, "
                                                         "not str"),
    (lambda: E.linalg.solve_triangular(A, A, upper=None), "linalg_solve_triangular(): argument 'upper' must be bool, "
                                                          "not NoneType"),
    (lambda: E.linalg.lu_factor(A, pivot="a"), "linalg_lu_factor(): argument 'pivot' must be bool, not str"),
    (lambda: E.linalg.tensorsolve(A, x[:2], "a"), "linalg_tensorsolve(): argument 'dims' (position 3) must be tuple of "
                                                  "ints, not str"),
    (lambda: E.linalg.householder_product(A, 1), "linalg_householder_product(): argument 'tau' (position 2) must be "
                                                 "Tensor, not int"),
    (lambda: E.linalg.matrix_power(A, n=2.0), "linalg_matrix_power(): argument 'n' must be int, not float"),
    (lambda: E.linalg.matrix_power(A, E.tensor(2.0)), "linalg_matrix_power(): argument 'n' (position 2) must be int, "
                                                      "not Tensor"),
    (lambda: E.linalg.cholesky(A, True), "linalg_cholesky() takes 1 positional argument but 2 were given"),
    (lambda: E.linalg.cholesky_ex(A, True), "linalg_cholesky_ex() takes 1 positional argument but 2 were given"),
    (lambda: E.linalg.solve(A, A, True), "linalg_solve() takes 2 positional arguments but 3 were given"),
    (lambda: E.linalg.slogdet(A, A), "linalg_slogdet() takes 1 positional argument but 2 were given"),
    (lambda: E.linalg.matrix_exp(A, out=A), "linalg_matrix_exp() got an unexpected keyword argument 'out'"),
    (lambda: E.matrix_exp(A, out=A), "matrix_exp() got an unexpected keyword argument 'out'"),
    (lambda: E.linalg.det(A=3), "linalg_det(): argument 'A' must be Tensor, not int"),
    (lambda: E.det(input=3), "det(): argument 'input' must be Tensor, not int"),
    (lambda: E.det(3), "det(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: E.linalg.matrix_exp(3), "linalg_matrix_exp(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: E.matrix_exp(3), "matrix_exp(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: E.linalg.eigvals(3), "linalg_eigvals(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: E.linalg.eig(3), "linalg_eig(): argument 'input' (position 1) must be Tensor, not int"),
])
def test_a_wrongly_typed_argument_names_its_position_only_when_passed_positionally(call, message):
    with pytest.raises(TypeError, match="^" + re.escape(message) + "$"):
        call()


def test_what_the_parser_takes_passes_through():
    assert E.linalg.vector_norm(x, True).item() == 3.0  # a bool is a Number
    assert E.linalg.vector_norm(x, np.float64(2.0), E.tensor(0), dtype=E.float64).dtype is E.float64
    assert E.linalg.vector_norm(x, 2, None, keepdim=False).shape == ()
    assert E.linalg.lstsq(A, A, 1).solution.shape == (2, 2) and E.linalg.tensorsolve(A, x[:2], None).shape == (2,)


def test_parsed_refuses_a_kind_or_name_it_does_not_know():
    with pytest.raises(ValueError, match="'b' is not a parameter"):
        parsed("f", b="int")(lambda a: a)
    with pytest.raises(ValueError, match="unknown argument kind 'complex'"):
        parsed("f", a="complex")(lambda a: a)


t = E.ones(3, 2)
_INVALID = "received an invalid combination of arguments - got "


@pytest.mark.parametrize("call, message", [  # PyTorch 2.13's words (its parser takes no bool for an int)
    (lambda: t.unsqueeze(True), "unsqueeze(): argument 'dim' (position 1) must be int, not bool"),
    (lambda: t.unsqueeze(dim=True), "unsqueeze(): argument 'dim' must be int, not bool"),
    (lambda: t.kthvalue(True), "kthvalue(): argument 'k' (position 1) must be int, not bool"),
    (lambda: t.kthvalue(1, True), "kthvalue(): argument 'dim' (position 2) must be int, not bool"),
    (lambda: t.flatten(True), "flatten(): argument 'start_dim' (position 1) must be int, not bool"),
    (lambda: t.roll(True), "roll(): argument 'shifts' (position 1) must be tuple of ints, not bool"),
    (lambda: t.roll(1, [True]), "roll(): argument 'dims' (position 2) must be tuple of ints, but found element of "
                                "type bool at pos 0"),
    (lambda: t.chunk(True), "chunk(): argument 'chunks' (position 1) must be int, not bool"),
    (lambda: t.chunk(2, dim=True), "chunk(): argument 'dim' must be int, not bool"),
    (lambda: t.topk(True), "topk(): argument 'k' (position 1) must be int, not bool"),
    (lambda: E.topk(t, k=True), "topk(): argument 'k' must be int, not bool"),
    (lambda: t.select(0, True), "select(): argument 'index' (position 2) must be int, not bool"),
    (lambda: t.softmax(True), "softmax(): argument 'dim' (position 1) must be int, not bool"),
    (lambda: t.max((0, 1), True), "max(): argument 'dim' (position 1) must be int, not tuple"),
    (lambda: t.min(1.5, keepdim=False), "min(): argument 'dim' (position 1) must be int, not float"),
    (lambda: t.max(None, True), "max(): argument 'dim' (position 1) must be int, not NoneType"),
    (lambda: t.max(dim=(0, 1), keepdim=True), "max(): argument 'dim' must be int, not tuple"),
    (lambda: t.logsumexp([True]), "logsumexp(): argument 'dim' (position 1) must be tuple of ints, but found element "
                                  "of type bool at pos 0"),
    (lambda: t.sum(True), f"sum() {_INVALID}(bool), but expected one of:"),
    (lambda: t.sum(dim=True), f"sum() {_INVALID}(dim=bool, ), but expected one of:"),
    (lambda: t.sum([True]), f"sum() {_INVALID}(list), but expected one of:"),
    (lambda: t.narrow(0, True, 1), f"narrow() {_INVALID}(int, bool, int), but expected one of:"),
    (lambda: t.repeat_interleave(True), f"repeat_interleave() {_INVALID}(bool), but expected one of:"),
    (lambda: t.repeat_interleave(2, True), f"repeat_interleave() {_INVALID}(int, bool), but expected one of:"),
    (lambda: t.split(True), f"split() {_INVALID}(Tensor, bool, int), but expected one of:"),
    (lambda: t.split(1, True), f"split() {_INVALID}(Tensor, int, bool), but expected one of:"),
    (lambda: t.size(True), "size(): argument 'dim' (position 1) must be int, not bool"),
    (lambda: t.stride(True), "stride(): argument 'dim' (position 1) must be int, not bool"),
    (lambda: E.cat([t, t], True), "cat(): argument 'dim' (position 2) must be int, not bool"),
    (lambda: E.stack([t, t], True), "stack(): argument 'dim' (position 2) must be int, not bool"),
    (lambda: t.norm(dim=True), "linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, but found "
                               "element of type bool at pos 0"),
    (lambda: t.view(True, 6), f"view() {_INVALID}(bool, int), but expected one of:\n * (torch.dtype dtype)\n * "
                              "(tuple of ints size)\n"),
])
def test_a_bool_for_an_int_argument_is_pytorchs_type_error(call, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        call()


@pytest.mark.parametrize("call, message", [  # PyTorch 2.13's words: a float is no int either (not truncated)
    (lambda: t.unfold(0, 2.0, 1), "unfold(): argument 'size' (position 2) must be int, not float"),
    (lambda: t.unfold(0, 2, np.float64(1.0)), "unfold(): argument 'step' (position 3) must be int, not numpy.float64"),
    (lambda: t.unfold(1.0, 2, 1), "unfold(): argument 'dimension' (position 1) must be int, not float"),
    (lambda: t.unfold(0, True, 1), "unfold(): argument 'size' (position 2) must be int, not bool"),
    (lambda: t.select(0, 1.0), "select(): argument 'index' (position 2) must be int, not float"),
    (lambda: E.select(t, 0, 1.0), "select(): argument 'index' (position 3) must be int, not float"),
    (lambda: t.kthvalue(2.0), "kthvalue(): argument 'k' (position 1) must be int, not float"),
    (lambda: E.kthvalue(t, k=2.0), "kthvalue(): argument 'k' must be int, not float"),
    (lambda: E.multinomial(E.ones(3), 2.0),
     "multinomial(): argument 'num_samples' (position 2) must be int, not float"),
    (lambda: E.ones(3).multinomial(1.0), "multinomial(): argument 'num_samples' (position 1) must be int, not float"),
    (lambda: t.transpose(0.0, 1), "transpose(): argument 'dim0' (position 1) must be int, not float"),
    (lambda: t.unsqueeze(1.0), "unsqueeze(): argument 'dim' (position 1) must be int, not float"),
    (lambda: t.cumsum(1.0), "cumsum(): argument 'dim' (position 1) must be int, not float"),
    (lambda: E.roll(t, 1.0, 0), "roll(): argument 'shifts' (position 2) must be tuple of ints, not float"),
    (lambda: t.sum(1.0), f"sum() {_INVALID}(float), but expected one of:"),
    (lambda: E.histc(E.ones(3), 4.0), "histc(): argument 'bins' (position 2) must be int, not float"),
    (lambda: E.ones(3).histc(bins=4.0), "histc(): argument 'bins' must be int, not float"),
    (lambda: t.rot90(1.0), "rot90(): argument 'k' (position 1) must be int, not float"),
    (lambda: E.tril_indices(3.0, 3), "tril_indices(): argument 'row' (position 1) must be int, not float"),
    (lambda: E.triu_indices(3, 3, 1.0), "triu_indices(): argument 'offset' (position 3) must be int, not float"),
    (lambda: E.randperm(4.0), "randperm(): argument 'n' (position 1) must be int, not float"),
    (lambda: E.group_norm(E.ones(1, 2, 3), 2.0), "group_norm(): argument 'num_groups' (position 2) must be int, "
                                                  "not float"),
])
def test_a_float_for_an_int_argument_is_pytorchs_type_error(call, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        call()


def test_randperm_takes_a_0d_integer_tensor_as_its_n():
    assert sorted(E.randperm(E.tensor(4)).tolist()) == [0, 1, 2, 3] and E.randperm(np.int64(2)).shape == (2,)


def test_unfold_takes_an_integer_tensor_or_numpy_int_as_its_int():
    """The window's shape holds ints, not the 0-dim tensors or numpy ints given for them."""
    w = E.arange(10.0).unfold(E.tensor(0), E.tensor(4), np.int64(3))
    assert w.shape == (3, 4) and all(type(n) is int for n in w.shape) and w[1].tolist() == [3.0, 4.0, 5.0, 6.0]


def test_bools_where_pytorch_takes_them_and_ints_unchanged():
    assert t.sum(0, True).shape == (1, 2) and t.max(0, True).values.shape == (1, 2)  # keepdim is a bool
    assert t.topk(1, 0, True, True).values.shape == (1, 2) and t.sort(0, True).values.shape == (3, 2)
    assert t.unsqueeze(E.tensor(1)).shape == (3, 1, 2) and t.unsqueeze(np.int64(-1)).shape == (3, 2, 1)
    assert [p.shape for p in t.split([1, 2], 0)] == [(1, 2), (2, 2)] and t.roll([1], [0]).shape == (3, 2)


def test_a_0d_integer_tensor_is_an_int_to_topk_and_chunk():
    """PyTorch's parser reads an integer 0-dim tensor as an int (k, chunks, dim); a float one stays a TypeError."""
    x = E.arange(5.0)
    assert x.topk(E.tensor(2)).values.tolist() == [4.0, 3.0]
    assert [c.shape for c in x.chunk(E.tensor(2), E.tensor(0))] == [(3,), (2,)]
    with pytest.raises(TypeError, match=re.escape("chunk(): argument 'chunks' (position 1) must be int, not Tensor")):
        x.chunk(E.tensor(2.0))


def test_a_0d_integer_tensor_is_an_int_to_matrix_power():
    a = E.tensor([[2.0, 0.0], [0.0, 4.0]])
    assert E.linalg.matrix_power(a, E.tensor(2)).tolist() == [[4.0, 0.0], [0.0, 16.0]]
    assert a.matrix_power(n=E.tensor(-1, dtype=E.int8)).tolist() == [[0.5, 0.0], [0.0, 0.25]]


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "max", "min"])
def test_keepdim_without_dim_matches_no_overload_as_pytorch(op):
    x = E.ones(2, 2)
    head = f"{op}() received an invalid combination of arguments - got "
    for keepdim in (True, False):  # an explicit False too: PyTorch's parser sees the keyword, not its value
        with pytest.raises(TypeError, match=re.escape(f"{head}(keepdim=bool, ), but expected one of:")):
            getattr(x, op)(keepdim=keepdim)
        with pytest.raises(TypeError, match=re.escape(f"{head}(Tensor, keepdim=bool), but expected one of:")):
            getattr(E, op)(x, keepdim=keepdim)
    kept = getattr(x, op)(0, keepdim=True)
    assert (kept[0] if op in ("max", "min") else kept).shape == (1, 2) and getattr(E, op)(x).shape == ()
    if op in ("sum", "mean"):  # an explicit None dim matches sum's and mean's dim overload
        assert getattr(x, op)(None, keepdim=True).shape == (1, 1) == getattr(E, op)(x, dim=None, keepdim=True).shape


@pytest.mark.parametrize("op", ["median", "nanmedian"])
def test_median_keepdim_without_dim_misses_its_dim_as_pytorch(op):
    x = E.ones(2, 3)
    for call in (lambda: getattr(x, op)(keepdim=True), lambda: getattr(E, op)(x, keepdim=False)):
        with pytest.raises(TypeError, match=f'^{op}\\(\\) missing 1 required positional arguments: "dim"$'):
            call()
    assert getattr(x, op)().item() == 1.0 and getattr(x, op)(1, keepdim=True).values.shape == (2, 1)


def test_sparse_sum_keepdim_without_dim_is_the_same_type_error():
    s = E.eye(2).to_sparse()
    with pytest.raises(TypeError, match=re.escape("sum() received an invalid combination of arguments - got "
                                                  "(keepdim=bool, ), but expected one of:")):
        s.sum(keepdim=True)


@pytest.mark.parametrize("call, message", [
    (lambda: E.unsqueeze(t, True), "unsqueeze(): argument 'dim' (position 2) must be int, not bool"),
    (lambda: E.transpose(t, True, 0), "transpose(): argument 'dim0' (position 2) must be int, not bool"),
    (lambda: E.unsqueeze(t, dim=True), "unsqueeze(): argument 'dim' must be int, not bool"),
    (lambda: E.squeeze(t, True), f"squeeze() {_INVALID}(Tensor, bool), but expected one of:"),
    (lambda: E.narrow(t, 0, True, 1), f"narrow() {_INVALID}(Tensor, int, bool, int), but expected one of:"),
])
def test_a_function_form_counts_positions_from_input(call, message):
    """PyTorch's parser counts a function's arguments from `input`, a method's after `self`."""
    with pytest.raises(TypeError, match=re.escape(message)):
        call()


def test_a_bool_for_an_overloaded_int_lists_pytorchs_overloads():
    # PyTorch 2.13's messages, whole: overload lines, "didn't match" lines where the count fits, the function's forms
    x = E.ones(2, 4)
    with pytest.raises(TypeError) as e:
        x.argsort(descending=True, dim=True)
    assert str(e.value) == (
        "argsort() received an invalid combination of arguments - got (dim=bool, descending=bool, ), but expected one "
        "of:\n * (*, bool stable, int dim = -1, bool descending = False)\n * (int dim = -1, bool descending = False)\n"
        "      didn't match because some of the keywords were incorrect: dim, descending\n")
    with pytest.raises(TypeError) as e:
        E.sort(x, True)
    assert str(e.value) == (
        "sort() received an invalid combination of arguments - got (Tensor, bool), but expected one of:\n"
        " * (Tensor input, *, bool stable, int dim = -1, bool descending = False, tuple of Tensors out = None)\n"
        " * (Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = None)\n")
    with pytest.raises(TypeError) as e:
        x.squeeze(True)
    assert str(e.value) == (
        "squeeze() received an invalid combination of arguments - got (bool), but expected one of:\n"
        " * ()\n      didn't match because some of the arguments have invalid types: (!bool!)\n"
        " * (int dim)\n      didn't match because some of the arguments have invalid types: (!bool!)\n"
        " * (tuple of ints dim)\n      didn't match because some of the arguments have invalid types: (!bool!)\n")
    with pytest.raises(TypeError, match=r"^split\(\) received an invalid combination of arguments - got \(Tensor, int, "
                                        r"bool\), but expected one of:\n \* \(Tensor input, int split_size, "
                                        r"int dim = 0\)"
                                        r"\n      didn't match because some of the arguments have invalid types: "
                                        r"\(Tensor, int, !bool!\)\n"):
        x.split(2, True)
    # one overload only fits the count: its own words
    with pytest.raises(TypeError, match=r"^max\(\): argument 'dim' \(position 1\) must be int, not bool$"):
        x.max(True, True)
    with pytest.raises(TypeError, match=r"^min\(\): argument 'dim' \(position 1\) must be int, not bool$"):
        x.min(True, keepdim=True)
    with pytest.raises(TypeError, match=r"^prod\(\): argument 'dim' must be int, not bool$"):
        E.prod(x, dim=True, keepdim=True)


def test_count_nonzero_refuses_keepdim_listing_its_overloads():
    x = E.ones(2, 3)
    with pytest.raises(TypeError) as e:
        x.count_nonzero(keepdim=True)
    assert str(e.value) == (  # PyTorch 2.13's words
        "count_nonzero() received an invalid combination of arguments - got (keepdim=bool, ), but expected one of:\n"
        " * (int dim = None)\n      didn't match because some of the keywords were incorrect: keepdim\n"
        " * (tuple of ints dim)\n      didn't match because some of the keywords were incorrect: keepdim\n")
    with pytest.raises(TypeError, match=r"got \(Tensor, keepdim=bool\), but expected one of:\n \* \(Tensor input, "
                                        r"int dim = None\)\n      didn't match"):
        E.count_nonzero(x, keepdim=False)
    assert x.count_nonzero(dim=1).tolist() == [3, 3] and E.count_nonzero(x).item() == 6
    assert E.count_nonzero(x, axis=1).tolist() == [3, 3] and x.count_nonzero(axis=0).tolist() == [2, 2, 2]


def test_function_forms_refuse_a_bool_dim_as_pytorch():
    # PyTorch 2.13: positions counted from `input`; repeat_interleave's function lists its own three overloads
    x = E.ones(2, 3)
    for fn in ("softmax", "log_softmax"):
        with pytest.raises(TypeError, match=f"^{fn}\\(\\): argument 'dim' \\(position 2\\) must be int, not bool$"):
            getattr(E, fn)(x, True)
        with pytest.raises(TypeError, match=f"^{fn}\\(\\): argument 'dim' \\(position 1\\) must be int, not bool$"):
            getattr(x, fn)(True)
    with pytest.raises(TypeError) as e:
        E.repeat_interleave(x, 2, True)
    assert str(e.value) == (
        "repeat_interleave() received an invalid combination of arguments - got (Tensor, int, bool), but expected one "
        "of:\n * (Tensor input, Tensor repeats, int dim = None, *, int output_size = None)\n"
        " * (Tensor repeats, *, int output_size = None)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, !int!, !bool!)\n"
        " * (Tensor input, int repeats, int dim = None, *, int output_size = None)\n")
    assert E.softmax(x, 1).shape == (2, 3) and E.repeat_interleave(x, 2, 0).shape == (4, 3)


def test_squeeze_and_narrow_list_pytorchs_overloads_for_a_dim_or_start_of_no_overload():
    """PyTorch 2.13's words: a squeeze dim that is not an int or a sequence starting with one, a narrow start that is
    not an int or a Tensor, each form with its own overloads."""
    x = E.ones(2, 1)
    m = "      didn't match because some of the arguments have invalid types: "
    with pytest.raises(TypeError) as e:
        x.squeeze([0.5])
    assert str(e.value) == (
        "squeeze() received an invalid combination of arguments - got (list), but expected one of:\n"
        f" * ()\n{m}(!list of [float]!)\n * (int dim)\n{m}(!list of [float]!)\n"
        f" * (tuple of ints dim)\n{m}(!list of [float]!)\n")
    with pytest.raises(TypeError) as e:
        E.squeeze(x, 0.5)
    assert str(e.value) == (
        "squeeze() received an invalid combination of arguments - got (Tensor, float), but expected one of:\n"
        f" * (Tensor input)\n * (Tensor input, int dim)\n{m}(Tensor, !float!)\n"
        f" * (Tensor input, tuple of ints dim)\n{m}(Tensor, !float!)\n")
    with pytest.raises(TypeError) as e:  # an explicit None is no dim (PyTorch's squeeze() takes none)
        x.squeeze(None)
    assert str(e.value) == (
        "squeeze() received an invalid combination of arguments - got (NoneType), but expected one of:\n"
        f" * ()\n{m}(!NoneType!)\n * (int dim)\n{m}(!NoneType!)\n * (tuple of ints dim)\n{m}(!NoneType!)\n")
    with pytest.raises(TypeError) as e:
        E.squeeze(x, dim=None)
    assert str(e.value) == (
        "squeeze() received an invalid combination of arguments - got (Tensor, dim=NoneType), but expected one of:\n"
        f" * (Tensor input)\n * (Tensor input, int dim)\n{m}(Tensor, !dim=NoneType!)\n"
        f" * (Tensor input, tuple of ints dim)\n{m}(Tensor, !dim=NoneType!)\n")
    assert x.squeeze().shape == E.squeeze(x).shape == (2,)
    with pytest.raises(TypeError) as e:
        x.narrow(0, (1,), 1)
    assert str(e.value) == (
        "narrow() received an invalid combination of arguments - got (int, tuple, int), but expected one of:\n"
        f" * (int dim, Tensor start, int length)\n{m}(int, !tuple of (int,)!, int)\n"
        f" * (int dim, int start, int length)\n{m}(int, !tuple of (int,)!, int)\n")
    with pytest.raises(TypeError) as e:
        E.narrow(x, 0, 1, 1.5)
    assert str(e.value) == (
        "narrow() received an invalid combination of arguments - got (Tensor, int, int, float), but expected one of:\n"
        f" * (Tensor input, int dim, Tensor start, int length)\n{m}(Tensor, int, !int!, !float!)\n"
        f" * (Tensor input, int dim, int start, int length)\n{m}(Tensor, int, int, !float!)\n")
    assert x.squeeze([1, 0]).shape == (2,) and x.narrow(0, E.tensor(1), 1).shape == (1, 1)


_m = E.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("call, message", [
    (lambda: _m.select(0, E.tensor(1.0)), "select(): argument 'index' (position 2) must be int, not Tensor"),
    (lambda: E.select(_m, 0, E.tensor(1.0)), "select(): argument 'index' (position 3) must be int, not Tensor"),
    (lambda: _m.kthvalue(E.tensor(2.0)), "kthvalue(): argument 'k' (position 1) must be int, not Tensor"),
    (lambda: E.multinomial(E.ones(3), E.tensor(2.0)),
     "multinomial(): argument 'num_samples' (position 2) must be int, not Tensor"),
    (lambda: _m.flatten(E.tensor([0, 1])), "flatten(): argument 'start_dim' (position 1) must be int, not Tensor"),
    (lambda: _m.flatten(E.tensor([0])), "flatten(): argument 'start_dim' (position 1) must be int, not Tensor"),
    (lambda: _m.topk(E.tensor([1, 2])), "topk(): argument 'k' (position 1) must be int, not Tensor"),
    (lambda: E.diff(_m, E.tensor([1, 2])), "diff(): argument 'n' (position 2) must be int, not Tensor"),
    (lambda: E.diff(_m, n=2.0), "diff(): argument 'n' must be int, not float"),
    (lambda: _m.logcumsumexp(1.0), "logcumsumexp(): argument 'dim' (position 1) must be int, not float"),
    (lambda: E.logcumsumexp(_m, 1.0), "logcumsumexp(): argument 'dim' (position 2) must be int, not float"),
    (lambda: E.stack([_m, _m], 1.0), "stack(): argument 'dim' (position 2) must be int, not float"),
    (lambda: E.stack([_m], dim=E.tensor([0])), "stack(): argument 'dim' must be int, not Tensor"),
    (lambda: E.combinations(E.tensor([0, 1, 2]), 2.0),
     "combinations(): argument 'r' (position 2) must be int, not float"),
    (lambda: E.combinations(E.tensor([0, 1]), 2, 1),
     "combinations(): argument 'with_replacement' (position 3) must be bool, not int"),
    (lambda: E.hann_window(8.0), "hann_window(): argument 'window_length' (position 1) must be int, not float"),
    (lambda: E.bartlett_window(window_length=8.0),
     "bartlett_window(): argument 'window_length' must be int, not float"),
    (lambda: E.hann_window(E.tensor([8, 2])),
     "hann_window(): argument 'window_length' (position 1) must be int, not Tensor"),
    (lambda: E.glu(_m[:, :2], 1.0), "glu(): argument 'dim' (position 2) must be int, not float"),
    (lambda: E.glu(_m[:, :2], dim=E.tensor([1])), "glu(): argument 'dim' (position 2) must be int, not Tensor"),
    (lambda: E.pixel_shuffle(E.ones(1, 4, 1, 1), upscale_factor=2.0),
     "pixel_shuffle(): argument 'upscale_factor' must be int, not float"),
    (lambda: E.rand(E.tensor([2, 3])), "rand(): argument 'size' (position 1) must be tuple of ints, not Tensor"),
    (lambda: E.randn(2, E.tensor([2, 3])), "randn(): argument 'size' failed to unpack the object at pos 2 with error "
                                           "\"type must be tuple of ints,but got Tensor\""),
    (lambda: E.rand(size=E.tensor([2, 3])), "rand(): argument 'size' must be tuple of ints, not Tensor"),
    (lambda: E.roll(_m, (1, 1.0), (0, 1)), "roll(): argument 'shifts' failed to unpack the object at pos 2 with "
                                           "error \"type must be tuple of ints,but got float\""),
])
def test_the_parser_refuses_a_float_or_a_tensor_for_an_int(call, message):
    """PyTorch's parser takes an int argument as an int, a numpy int or an integer tensor of one element (0-dim
    for an `int`, any rank for a `SymInt`): a float, a float tensor or a longer tensor is its TypeError."""
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == message


def test_a_one_element_integer_tensor_is_an_int_where_the_parser_takes_one():
    """`SymInt` arguments take a one-element integer tensor of any rank; `int` ones a 0-dim tensor."""
    assert _m.topk(E.tensor([2])).values.tolist() == [[2.0, 1.0], [5.0, 4.0]]
    assert E.topk(_m, E.tensor([2])).indices.tolist() == [[2, 1], [2, 1]]
    assert _m.select(0, E.tensor([1])).tolist() == [3.0, 4.0, 5.0]
    assert _m.roll(E.tensor(1)).tolist() == [[5.0, 0.0, 1.0], [2.0, 3.0, 4.0]]
    assert E.stack([_m], E.tensor(0)).shape == (1, 2, 3)
    assert E.rand(E.tensor([2])).shape == (2,)
    assert E.hann_window(E.tensor(4)).tolist() == [0.0, 0.5, 1.0, 0.5]
def test_a_parsed_op_missing_a_required_argument_raises_pytorchs_parser_words():
    # PyTorch names every required parameter from the first missing one on (given by keyword or not), pluralizing
    # as its message does ("1 ... arguments", "2 ... argument"); a missing one wins over an unknown keyword
    a = E.ones(3, 3, dtype=E.int8)
    with pytest.raises(TypeError, match='^_int_mm\\(\\) missing 2 required positional argument: "input", "mat2"$'):
        E._int_mm(self=a, mat2=a)
    with pytest.raises(TypeError, match='^_int_mm\\(\\) missing 1 required positional arguments: "mat2"$'):
        E._int_mm(a, b=a)
    with pytest.raises(TypeError, match='^linalg_vector_norm\\(\\) missing 1 required positional arguments: "input"$'):
        E.linalg.vector_norm()
    with pytest.raises(TypeError, match="^_int_mm\\(\\) got an unexpected keyword argument 'self'$"):
        E._int_mm(a, mat2=a, self=a)
