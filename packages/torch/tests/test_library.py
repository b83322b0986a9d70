"""torch.library.custom_op: a function made an operator, its per-device kernel, its autograd formula (checked
against the analytic gradient), PyTorch's node name and errors."""

import numpy as np
import pytest

import ember.torch as torch


def make_sin(name):
    @torch.library.custom_op(name, mutates_args=())
    def numpy_sin(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(np.sin(x.detach().numpy()))

    @numpy_sin.register_fake
    def _(x):
        return torch.empty_like(x)

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()

    numpy_sin.register_autograd(backward, setup_context=setup_context)
    return numpy_sin


def test_custom_op_runs_and_differentiates_through_its_formula():
    op = make_sin("test::sin_a")
    x = torch.tensor([0.5, 1.0, -2.0], dtype=torch.float64, requires_grad=True)
    y = op(x)
    assert y.grad_fn.name() == "GeneratedBackwardFor_test_sin_a_defaultBackward"
    (y * y).sum().backward()
    xs = np.array([0.5, 1.0, -2.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.sin(xs) * np.cos(xs), rtol=1e-12)
    assert not op(x.detach()).requires_grad  # no node without inputs that require grad


def test_backward_without_a_formula_raises_pytorchs_error():
    @torch.library.custom_op("test::scale", mutates_args=())
    def scale(x: torch.Tensor, k: float = 2.0) -> torch.Tensor:
        return x * k

    z = scale(torch.ones(2, requires_grad=True), k=3.0)
    assert z.tolist() == [3.0, 3.0] and z.requires_grad
    with pytest.raises(RuntimeError, match=r"^Trying to backward through test\.scale\.default but no autograd "
                                           r"formula was registered\. Please use register_autograd to add one\.$"):
        z.sum().backward()


def test_kernels_by_device_mutation_and_names():
    @torch.library.custom_op("test::add_", mutates_args={"x"})
    def add_(x: torch.Tensor, y: torch.Tensor) -> None:
        x.add_(y)

    a = torch.zeros(2)
    assert add_(a, torch.ones(2)) is None and a.tolist() == [1.0, 1.0]

    @torch.library.custom_op("test::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    torch.library.register_kernel("test::twice", "cpu", lambda x: x * 20)
    assert twice(torch.ones(1)).tolist() == [20.0]
    # as PyTorch: the schema is inferred first, then the name unpacked
    with pytest.raises(ValueError, match=r"infer_schema\(func\): Parameter x must have a type annotation"):
        torch.library.custom_op("twice", lambda x: x, mutates_args=())
    with pytest.raises(ValueError, match=r"not enough values to unpack \(expected 2, got 1\)"):
        torch.library.custom_op("twice", twice._init_fn, mutates_args=())


def test_mutated_arguments_get_their_version_bumped():
    @torch.library.custom_op("test::np_fill", mutates_args={"out"})
    def np_fill(x: torch.Tensor, out: torch.Tensor) -> None:
        out.numpy()[:] = x.numpy()  # a write the tensor's version cannot see

    x, out = torch.ones(3), torch.zeros(3)
    v0, vx = out._version, x._version
    np_fill(x, out)
    assert out.tolist() == [1.0, 1.0, 1.0] and out._version == v0 + 1 and x._version == vx


def test_opcheck_passes_a_correct_op_and_reports_each_failure():
    sin = make_sin("test::opcheck_sin")
    x = torch.tensor([0.1, 0.2], dtype=torch.float64, requires_grad=True)
    res = torch.library.opcheck(sin, (x,))
    assert res == dict.fromkeys(["test_schema", "test_autograd_registration", "test_faketensor",
                                 "test_aot_dispatch_dynamic"], "SUCCESS")

    @torch.library.custom_op("test::bad_fake", mutates_args=())
    def bad_fake(x: torch.Tensor) -> torch.Tensor:
        return x.t().contiguous()

    @bad_fake.register_fake
    def _(x):
        return x.new_empty(x.shape[1], x.shape[0]).t()

    with pytest.raises(Exception, match=r"opcheck\(op, \.\.\.\): test_faketensor failed with .*Shape mismatch"):
        torch.library.opcheck(bad_fake, (torch.ones(2, 3),))
    res = torch.library.opcheck(bad_fake, (torch.ones(2, 3),), raise_exception=False)
    assert res["test_schema"] == "SUCCESS" and isinstance(res["test_faketensor"], RuntimeError)

    @torch.library.custom_op("test::no_grad_formula", mutates_args=())
    def no_formula(x: torch.Tensor) -> torch.Tensor:
        return x.detach() * 2

    res = torch.library.opcheck(no_formula, (torch.ones(2, requires_grad=True),), raise_exception=False,
                                test_utils=("test_autograd_registration", "test_faketensor"))
    assert isinstance(res["test_autograd_registration"], AssertionError)
    assert "no fake impl registered" in str(res["test_faketensor"])

    @torch.library.custom_op("test::sneaky", mutates_args=())
    def sneaky(x: torch.Tensor) -> torch.Tensor:
        x.add_(1)
        return x.clone()

    with pytest.raises(Exception, match="argument x is not defined as mutable but was mutated"):
        torch.library.opcheck(sneaky, (torch.ones(2),), test_utils="test_schema")
    with pytest.raises(ValueError, match="expected test_utils to be subset of"):
        torch.library.opcheck(sneaky, (torch.ones(2),), test_utils="test_nothing")


def test_torch_ops_reaches_a_custom_op_by_name():
    op = make_sin("test::sin_ops")
    packet = torch.ops.test.sin_ops
    x = torch.tensor([0.25, 1.5], dtype=torch.float64)
    np.testing.assert_allclose(packet(x).numpy(), np.sin([0.25, 1.5]), rtol=1e-12)
    assert packet.default is op._opoverload and packet.default.name() == "test::sin_ops"
    assert torch.ops.test.sin_ops is packet and torch.ops.test is torch.ops.test  # made once, as PyTorch's
    assert str(packet) == "test.sin_ops" and str(packet.default) == "test.sin_ops.default"
    assert repr(packet) == "<OpOverloadPacket(op='test.sin_ops')>" and packet.overloads() == ["default"]
    with pytest.raises(AttributeError, match=r"^'_OpNamespace' 'test' object has no attribute 'nope'$"):
        torch.ops.test.nope  # noqa: B018
    with pytest.raises(AttributeError, match=r"^The underlying op of 'test.sin_ops' has no overload name 'x'$"):
        packet.x  # noqa: B018
    with pytest.raises(AttributeError, match=r"torch.ops.prims: PyTorch's C\+\+ operator registry is not provided"):
        torch.ops.prims  # noqa: B018


def test_meta_inputs_run_the_fake_impl_or_raise_without_one():
    op = make_sin("test::sin_meta")
    y = op(torch.empty(3, 5, device="meta", dtype=torch.float64))
    assert y.device.type == "meta" and tuple(y.shape) == (3, 5) and y.dtype == torch.float64

    @torch.library.custom_op("test::nofake", mutates_args=())
    def nofake(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    with pytest.raises(RuntimeError, match=r"^There was no fake impl registered for <CustomOpDef\(test::nofake\)>\. "
                                           r".*Please use `nofake.register_fake` to add an fake impl\.$"):
        nofake(torch.empty(2, device="meta"))


def test_a_list_of_tensors_argument_gets_one_gradient_per_tensor():
    @torch.library.custom_op("test::wsum", mutates_args=())
    def wsum(xs: list[torch.Tensor], w: list[float]) -> torch.Tensor:
        return sum(t * k for t, k in zip(xs, w))

    wsum.register_autograd(lambda ctx, g: ([g * k for k in ctx.w], None),
                           setup_context=lambda ctx, inputs, output: setattr(ctx, "w", inputs[1]))
    a, b = torch.ones(2, requires_grad=True), torch.arange(2.0, requires_grad=True)
    c = torch.ones(2)  # no grad: its slot of the list gets none
    y = wsum([a, c, b], [0.5, 1.0, 3.0])
    assert y.tolist() == [1.5, 4.5] and y.grad_fn.name() == "GeneratedBackwardFor_test_wsum_defaultBackward"
    y.sum().backward()
    assert a.grad.tolist() == [0.5, 0.5] and b.grad.tolist() == [3.0, 3.0] and c.grad is None


@pytest.mark.parametrize("check, error", [(torch._check, RuntimeError), (torch._check_index, IndexError),
                                          (torch._check_value, ValueError), (torch._check_type, TypeError),
                                          (torch._check_not_implemented, NotImplementedError)])
def test_check_family_raises_its_type_with_the_lazy_message(check, error):
    check(True, lambda: 1 / 0)  # the message is built only on failure
    with pytest.raises(error, match=r"^bad shape$"):
        check(False, lambda: "bad shape")
    with pytest.raises(error, match=r"^Expected cond to be True, but got False\. \(Could this error message"):
        check(False)
    with pytest.raises(TypeError, match=r"^cond must be a bool, but got a Tensor\. For tensor conditions, use "):
        check(torch.tensor(True))


def test_check_tensor_all_wants_a_bool_tensor():
    torch._check_tensor_all(torch.tensor([True, True]))
    with pytest.raises(RuntimeError, match=r"^all positive$"):
        torch._check_tensor_all(torch.tensor([True, False]), lambda: "all positive")
    with pytest.raises(TypeError, match=r"^cond tensor must have dtype torch.bool, but got \w+\.int64$"):
        torch._check_tensor_all(torch.tensor([1, 0]))


def test_library_defines_ops_from_schemas_with_kernels_per_dispatch_key():
    lib = torch.library.Library("testdef", "DEF")
    assert repr(lib) == "Library(kind=DEF, ns=testdef, dispatch_key=)>"
    assert lib.define("scale(Tensor x, float alpha=2., *, float shift=0.0) -> Tensor") == "scale"
    lib.define("bump_(Tensor(a!) x, float by) -> ()")
    lib.impl("scale", lambda x, alpha=2.0, *, shift=0.0: x * alpha + shift, "CPU")

    def bump_(x, by):
        x.add_(by)

    lib.impl("bump_", bump_, "CompositeExplicitAutograd")
    op = torch.ops.testdef.scale
    assert op(torch.ones(2)).tolist() == [2.0, 2.0] and op(torch.ones(1), 3.0, shift=1.0).tolist() == [4.0]
    buf = torch.zeros(2)
    v = buf._version
    assert torch.ops.testdef.bump_(buf, 1.5) is None and buf.tolist() == [1.5, 1.5] and buf._version > v
    with pytest.raises(NotImplementedError, match=r"^testdef::scale: attempted to run this operator with Meta "
                                                  r"tensors, but there was no fake impl or Meta kernel registered"):
        op(torch.empty(2, device="meta"))
    lib.impl("scale", lambda x, alpha=2.0, *, shift=0.0: torch.empty_like(x), "Meta")
    assert op(torch.empty(3, device="meta")).shape == (3,)
    with pytest.raises(RuntimeError, match=r"^Tried to register an operator \(testdef::scale\(Tensor x\) -> Tensor\) "
                                           r"with the same name and overload name multiple times"):
        lib.define("scale(Tensor x) -> Tensor")
    lib.define("nokernel(Tensor x) -> Tensor")
    with pytest.raises(NotImplementedError, match=r"^Could not run 'testdef::nokernel' with arguments from the 'CPU' "
                                                  r"backend"):
        torch.ops.testdef.nokernel(torch.ones(1))
    with pytest.raises(ValueError, match="^Unsupported kind: BAD$"):
        torch.library.Library("testdef", "BAD")


def test_library_define_and_impl_functions_with_an_autograd_formula():
    torch.library.define("testdef::mul", "(Tensor x, Tensor y) -> Tensor")

    @torch.library.impl("testdef::mul", "cpu")
    def mul(x, y):
        return x * y

    seen = []

    def setup(ctx, inputs, output):
        seen.append(ctx.needs_input_grad)
        ctx.save_for_backward(*inputs)

    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y, g * x

    torch.library.register_autograd("testdef::mul", backward, setup_context=setup)
    a, b = torch.tensor([2.0, 3.0], requires_grad=True), torch.tensor([5.0, 7.0])
    torch.ops.testdef.mul(a, b).sum().backward()
    assert a.grad.tolist() == [5.0, 7.0] and seen == [(True, False)]  # one entry per argument of the op
