"""`torch.jit.script` of a function: a ScriptFunction with TorchScript's schema, refusing mistyped calls with
PyTorch 2.13's messages (recorded from PyTorch), and running the function eagerly otherwise."""

import numpy as np
import pytest

import ember.autograd as ea
import ember.torch as et

_PYBIND = ("Unable to cast Python instance of type <class '{}'> to C++ type '?' (#define "
           "PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)")


def smape(pred: ea.Tensor, target: ea.Tensor, eps: float = 1e-8) -> ea.Tensor:
    return (pred - target).abs() / (pred.abs() + target.abs() + eps)


def windows(x, size: int, qs: list[float], names: list[str] | None = None, flag: bool = False,
            pair: tuple[int, float] = (1, 2.0)) -> tuple[ea.Tensor, list[ea.Tensor]]:
    return x, [x[i:i + size] for i in range(0, x.shape[0] - size + 1)]


def test_scripted_function_has_torchscripts_schema_and_runs_eagerly():
    f, w = et.jit.script(smape), et.jit.script(windows)
    assert isinstance(f, et.jit.ScriptFunction) and et.jit.script(f) is f
    assert (f.name, f.qualified_name, f.__name__) == ("smape", "__torch__.smape", "ScriptFunction")
    assert str(f.schema) == "smape(Tensor pred, Tensor target, float eps=1e-08) -> Tensor"
    assert str(w.schema) == ("windows(Tensor x, int size, float[] qs, str[]? names=None, bool flag=False, "
                             "(int, float) pair=(1, 2.)) -> ((Tensor, Tensor[]))")
    np.testing.assert_allclose(f(ea.tensor([1.0, 2.0]), ea.tensor([3.0, 2.0]), 1).numpy(), [0.4, 0.0], atol=1e-7)
    assert len(w(ea.arange(5.0), 3, (0.5, 1))[1]) == 3  # an int for a float, a tuple for a list: accepted
    assert w(ea.arange(5.0), ea.tensor(2), [0.5], flag=1)[1][0].shape == (2,)


@pytest.mark.parametrize("call, expected, arg, found, position, value, detail", [
    (lambda f, w: f(1.0, ea.ones(1)), "Tensor", "pred", "float", 0, "1.0", "Unable to cast 1.0 to Tensor"),
    (lambda f, w: f(ea.ones(1), 3), "Tensor", "target", "int", 1, "3", "Unable to cast 3 to Tensor"),
    (lambda f, w: w(ea.ones(1), 2.5, [0.5]), "int", "size", "float", 1, "2.5", _PYBIND.format("float")),
    (lambda f, w: w(ea.ones(1), 1, "ab"), "List[float]", "qs", "str", 2, "'ab'", _PYBIND.format("str")),
    (lambda f, w: w(ea.ones(1), 1, [0.5], ["a", 1]), "Optional[List[str]]", "names", "list", 3, "['a', 1]",
     _PYBIND.format("int")),
])
def test_mistyped_arguments_raise_pytorchs_cast_error(call, expected, arg, found, position, value, detail):
    f, w = et.jit.script(smape), et.jit.script(windows)
    name, schema = ("smape", f.schema) if arg in ("pred", "target") else ("windows", w.schema)
    with pytest.raises(RuntimeError) as info:
        call(f, w)
    assert str(info.value) == (f"{name}() Expected a value of type '{expected}' for argument '{arg}' but instead "
                               f"found type '{found}'.\nPosition: {position}\nValue: {value}\nDeclaration: {schema}"
                               f"\nCast error details: {detail}")


def test_argument_count_and_keyword_errors_are_pytorchs():
    f = et.jit.script(smape)
    decl = "smape(Tensor pred, Tensor target, float eps=1e-08) -> Tensor"
    with pytest.raises(RuntimeError, match=r"^smape\(\) expected at most 3 argument\(s\) but received 4 argument"
                                           r"\(s\)\. Declaration: smape\(Tensor pred"):
        f(ea.ones(1), ea.ones(1), 1.0, 2)
    with pytest.raises(RuntimeError) as info:
        f(ea.ones(1))
    assert str(info.value) == f"smape() is missing value for argument 'target'. Declaration: {decl}"
    with pytest.raises(RuntimeError) as info:
        f(ea.ones(1), ea.ones(1), foo=1.0)
    assert str(info.value) == f"Unknown keyword argument 'foo' for operator 'smape'. Schema: {decl}"
    assert f(target=ea.ones(1), pred=ea.ones(2)).shape == (2,)


def test_functions_without_a_schema_come_back_unchanged():
    def star(*xs):
        return xs

    lam = lambda x: x  # noqa: E731 - what scripting a lambda gets
    assert et.jit.script(star) is star and et.jit.script(lam) is lam


def test_compilation_unit_compiles_torchscript_source_into_script_functions():
    scale = 10  # noqa: F841 - a caller's local, which PyTorch's resolution callback sees too
    cu = et.jit.CompilationUnit('''
        def foo(x: Tensor, n: int) -> Tensor:
            return x * n + bar(x) + scale

        def bar(x):
            return torch.relu(x)
    ''')
    np.testing.assert_array_equal(cu.foo(ea.tensor([-1.0, 2.0]), 3).numpy(), [7.0, 18.0])
    assert type(cu.foo).__name__ == "ScriptFunction" and cu.find_function("nope") is None
    cu.define("def count(xs: List[int]) -> int:\n    return len(xs) + len(bar(torch.ones(2)))\n")
    assert cu.count([1, 2]) == 4 and {f.name for f in cu.get_functions()} >= {"foo", "bar", "count"}
    with pytest.raises(RuntimeError, match="^foo\\(\\) Expected a value of type 'int' for argument 'n' but instead "
                                           "found type 'float'.\nPosition: 1\nValue: 2.5\nDeclaration: foo\\(Tensor x, "
                                           "int n\\) -> Tensor"):
        cu.foo(ea.ones(2), 2.5)
    with pytest.raises(AttributeError, match="^'CompilationUnit' has no attribute 'nope'$"):
        cu.nope


def test_interface_strict_fusion_and_export_opnames():
    @et.jit.interface
    class Interface(et.nn.Module):
        def forward(self, x: ea.Tensor) -> ea.Tensor:
            pass

    assert isinstance(Interface, type)
    with pytest.raises(RuntimeError, match="^interface must be applied to a class$"):
        et.jit.interface(lambda x: x)
    with pytest.warns(UserWarning, match="^Only works in script mode$"):
        with et.jit.strict_fusion():
            y = ea.ones(2) + 1
    np.testing.assert_array_equal(y.numpy(), [2.0, 2.0])
    with pytest.raises(NotImplementedError, match="torch.jit.export_opnames is not supported by ember"):
        et.jit.export_opnames(et.jit.script(et.nn.Linear(2, 2)))
