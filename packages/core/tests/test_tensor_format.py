"""`format(tensor, spec)` / f-strings: a plain 0-dim tensor formats as its Python number even without a spec
(`f"{loss}"` prints `0.5`, not `tensor(0.5000)`), as PyTorch 2.13's `Tensor.__format__`; and `iinfo`'s repr."""

import pytest

import ember.core as E


def test_zero_dim_formats_as_its_number_with_and_without_spec():
    assert f"{E.tensor(3.14159)}" == "3.141590118408203"
    assert f"{E.tensor(3.14159):>8.3f}" == "   3.142"
    assert f"{E.tensor(True)}|{E.tensor(2, dtype=E.int8)}|{E.tensor(1.5, dtype=E.bfloat16)}" == "True|2|1.5"
    assert f"{E.tensor(2.0) * 2}" == "4.0"


def test_other_tensors_format_as_str_and_refuse_a_spec():
    assert f"{E.tensor([1.5])}" == str(E.tensor([1.5]))
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        format(E.ones(2), ".2f")


def test_iinfo_repr_prints_bounds_as_pytorchs_g_format():
    assert repr(E.iinfo(E.int8)) == "iinfo(min=-128, max=127, dtype=int8)"
    assert repr(E.iinfo(E.int32)) == "iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)"
    assert str(E.iinfo(E.int64)) == "iinfo(min=-9.22337e+18, max=9.22337e+18, dtype=int64)"
    assert E.iinfo(E.int64).max == 2**63 - 1
