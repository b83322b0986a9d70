"""PyTorch's "invalid combination of arguments" TypeError: the keyword order of its C++ map (checked against
libstdc++'s own iteration order, recorded) and the overload lines, against PyTorch 2.13's messages."""

import numpy as np
import pytest

import ember.core as E
from ember.core.ops.parser_errors import kwargs_order


def test_keywords_follow_libstdcxx_unordered_map_order():
    # orders printed by a g++ 13 program iterating std::unordered_map<std::string, int> after these insertions
    assert kwargs_order(["correction", "unbiased"]) == ["unbiased", "correction"]
    assert kwargs_order(["unbiased", "correction"]) == ["correction", "unbiased"]
    assert kwargs_order(["dim", "correction", "unbiased"]) == ["unbiased", "correction", "dim"]
    assert kwargs_order(list("abcdefghijklmno")) == list("oabhndkcifgejlm")  # past 13 keys: rehashed to 29
    keys = ["dim", "keepdim", "dtype", "out", "correction", "unbiased", "tol", "atol", "rtol", "rcond", "hermitian",
            "interpolation"]
    assert kwargs_order(keys) == ["hermitian", "rcond", "rtol", "atol", "tol", "unbiased", "correction",
                                  "interpolation", "out", "dtype", "keepdim", "dim"]  # shared buckets keep together


def test_unbiased_with_correction_lists_the_overloads_as_pytorch():
    x = E.zeros(3, 2)
    method = (" * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n{}"
              " * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n"
              " * (bool unbiased = True)\n")
    with pytest.raises(TypeError) as e:
        x.std(0, correction=0, unbiased=True)
    assert str(e.value) == (
        "std() received an invalid combination of arguments - got (int, unbiased=bool, correction=int), but expected "
        "one of:\n" + method.format("      didn't match because some of the keywords were incorrect: unbiased, "
                                    "correction\n"))
    with pytest.raises(TypeError) as e:
        x.var(unbiased=True, correction=0)
    assert str(e.value) == ("var() received an invalid combination of arguments - got (correction=int, unbiased=bool, "
                            "), but expected one of:\n" + method.format(""))
    with pytest.raises(TypeError) as e:
        E.std(x, (0,), True, correction=0, keepdim=True)
    assert str(e.value) == (
        "std() received an invalid combination of arguments - got (Tensor, tuple, bool, keepdim=bool, correction=int), "
        "but expected one of:\n"
        " * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)\n"
        " * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, "
        "Tensor out = None)\n"
        " * (Tensor input, bool unbiased = True)\n")
    with pytest.raises(TypeError) as e:
        E.var_mean(x, dim=0, correction=1, unbiased=True)
    assert str(e.value) == (
        "var_mean() received an invalid combination of arguments - got (Tensor, unbiased=bool, correction=int, "
        "dim=int), but expected one of:\n"
        " * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
        "      didn't match because some of the keywords were incorrect: unbiased, correction\n"
        " * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n"
        " * (Tensor input, bool unbiased = True)\n")
    assert x.var(0, correction=0).tolist() == [0.0, 0.0] and x.std(True).item() == 0.0  # one of the two computes


_SIZE_OPS = [("reshape", "shape", (3, 2)), ("permute", "dims", (1, 0)), ("flip", "dims", (1,)),
             ("tile", "dims", (2, 1))]


@pytest.mark.parametrize("op,name,good", _SIZE_OPS)
def test_function_form_of_varargs_size_ops_takes_one_tuple(op, name, good):
    # PyTorch 2.13's words: torch.flip(x, dims) is (Tensor, tuple of ints); only the method takes varargs
    x = E.arange(6).view(2, 3)
    fn = getattr(E, op)
    assert fn(x, good).shape == getattr(x, op)(*good).shape
    assert fn(x, (E.tensor(good[0]), *good[1:])).shape == fn(x, good).shape  # one-element int tensors are ints
    if len(good) > 1:
        with pytest.raises(TypeError, match=rf"^{op}\(\) takes 2 positional arguments but 3 were given$"):
            fn(x, *good)
    with pytest.raises(TypeError,
                       match=rf"^{op}\(\): argument '{name}' \(position 2\) must be tuple of ints, not int$"):
        fn(x, 1)
    with pytest.raises(TypeError, match=rf"^{op}\(\): argument '{name}' must be tuple of ints, not int$"):
        fn(x, **{name: 1})
    with pytest.raises(TypeError, match=rf"^{op}\(\): argument '{name}' \(position 2\) must be tuple of ints, not "
                                        r"numpy\.ndarray$"):
        fn(x, np.array(good))
    with pytest.raises(TypeError, match=rf"^{op}\(\): argument '{name}' \(position 2\) must be tuple of ints, not "
                                        r"Tensor$"):
        fn(x, E.tensor(good))
    with pytest.raises(TypeError, match=rf"^{op}\(\): argument '{name}' \(position 2\) must be tuple of ints, but "
                                        r"found element of type float at pos 0$"):
        fn(x, (1.5, *good[1:]))


@pytest.mark.parametrize("op,name,good", _SIZE_OPS)
def test_method_form_refuses_an_int_by_keyword(op, name, good):
    x = E.arange(6).view(2, 3)
    assert getattr(x, op)(**{name: good}).shape == getattr(x, op)(*good).shape
    with pytest.raises(TypeError, match=rf"^{op}\(\): argument '{name}' must be tuple of ints, not int$"):
        getattr(x, op)(**{name: 1})


def test_size_arguments_bad_elements_are_worded_by_how_they_were_given():
    # PyTorch 2.13: by keyword a bad first element refuses the whole sequence; a later one is a failed unpack
    x = E.arange(6).view(2, 3)
    with pytest.raises(TypeError, match=r"^flip\(\): argument 'dims' must be tuple of ints, not list$"):
        x.flip(dims=[1.5])
    with pytest.raises(TypeError, match=r"^reshape\(\): argument 'shape' must be tuple of ints, not tuple$"):
        E.reshape(x, shape=(1.5, 2))
    with pytest.raises(TypeError, match=r"^flip\(\): argument 'dims' failed to unpack the object at pos 2 with error "
                                        r"\"type must be tuple of ints,but got float\"$"):
        E.flip(x, dims=(1, 1.5))
    with pytest.raises(TypeError, match=r'^flip\(\) missing 1 required positional arguments: "dims"$'):
        E.flip(x)
    assert E.equal(x.flip(E.tensor(1)), x.flip(1))  # a one-element integer tensor is an int


def test_tile_method_reads_its_dims_as_pytorchs_parser_does():
    x = E.arange(6).view(2, 3)
    assert x.tile(2).shape == x.tile((2,)).shape == x.tile(E.tensor(2)).shape == x.tile(dims=(2,)).shape == (2, 6)
    assert x.tile(np.int64(2), 1).shape == (4, 3)
    cases = [((), {}, r'^tile\(\) missing 1 required positional arguments: "dims"$'),
             ((1.5,), {}, r"^tile\(\): argument 'dims' \(position 1\) must be tuple of ints, not float$"),
             ((True,), {}, r"^tile\(\): argument 'dims' \(position 1\) must be tuple of ints, not bool$"),
             ((1.5, 1), {}, r"^tile\(\) takes 1 positional argument but 2 were given$"),
             (((1.5, 1),), {}, r"^tile\(\): argument 'dims' \(position 1\) must be tuple of ints, but found element "
                               r"of type float at pos 0$"),
             (([True],), {}, r"^tile\(\): argument 'dims' \(position 1\) must be tuple of ints, but found element of "
                             r"type bool at pos 0$"),
             ((2, 1.5), {}, r"^tile\(\): argument 'dims' failed to unpack the object at pos 2 with error \"type must "
                            r"be tuple of ints,but got float\"$"),
             ((), {"dims": (True,)}, r"^tile\(\): argument 'dims' must be tuple of ints, not tuple$")]
    for args, kwargs, message in cases:
        with pytest.raises(TypeError, match=message):
            x.tile(*args, **kwargs)
