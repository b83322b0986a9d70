"""torch.func's functional_call and stack_module_state: a module as a function of its weights."""

import numpy as np
import pytest

import ember.autograd as E
from ember.autograd.func import grad, vmap
from ember.nn import BatchNorm1d, Linear, Module, Sequential
from ember.nn.func import functional_call, stack_module_state


def test_functional_call_uses_the_given_weights_and_leaves_the_module_alone():
    E.manual_seed(0)
    m = Linear(3, 2)
    w0 = m.weight.detach().clone()
    w = E.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    b = E.tensor([1.0, -1.0])
    x = E.tensor([[1.0, 2.0, 3.0]])
    out = functional_call(m, {"weight": w, "bias": b}, (x,))
    np.testing.assert_allclose(out.numpy(), x.numpy() @ w.numpy().T + b.numpy())
    assert E.equal(m.weight.detach(), w0) and isinstance(m.weight, type(m.weight))
    # a partial dict keeps the module's own bias; a single tensor argument need not be a tuple
    out = functional_call(m, {"weight": w}, x)
    np.testing.assert_allclose(out.detach().numpy(), x.numpy() @ w.numpy().T + m.bias.detach().numpy(), rtol=1e-6)


def test_grad_through_functional_call_matches_backward():
    E.manual_seed(1)
    m = Sequential(Linear(4, 3), Linear(3, 1))
    x = E.randn(5, 4)
    params = {k: v.detach() for k, v in m.named_parameters()}
    g = grad(lambda p: functional_call(m, p, (x,)).pow(2).sum())(params)
    m(x).pow(2).sum().backward()
    for k, p in m.named_parameters():
        np.testing.assert_allclose(g[k].numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_vmap_over_a_stacked_ensemble_matches_each_model():
    E.manual_seed(2)
    models = [Linear(3, 2) for _ in range(4)]
    params, buffers = stack_module_state(models)
    assert tuple(params["weight"].shape) == (4, 2, 3) and params["weight"].requires_grad and buffers == {}
    x = E.randn(6, 3)
    out = vmap(lambda p: functional_call(models[0], p, (x,)))(params)
    for k, m in enumerate(models):
        np.testing.assert_allclose(out[k].detach().numpy(), m(x).detach().numpy(), rtol=1e-6)


def test_buffers_strict_keys_tied_weights_and_errors():
    bn = BatchNorm1d(2)
    bn.eval()
    rm, rv = E.tensor([1.0, 2.0]), E.tensor([4.0, 9.0])
    out = functional_call(bn, {"running_mean": rm, "running_var": rv}, (E.tensor([[3.0, 5.0]]),))
    np.testing.assert_allclose(out.detach().numpy(), [[(3 - 1) / np.sqrt(4 + 1e-5), (5 - 2) / np.sqrt(9 + 1e-5)]],
                               rtol=1e-5)
    assert bn.running_mean.tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match=r"Unexpected key\(s\): 'nope'.*\n\tMissing key\(s\): 'bias'"):
        functional_call(Linear(2, 2), {"weight": E.ones(2, 2), "nope": E.ones(1)}, (E.ones(1, 2),), strict=True)
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        functional_call(Linear(2, 2), ({"weight": E.ones(2, 2)}, {"weight": E.ones(2, 2)}), (E.ones(1, 2),))
    # tied weights: giving one name replaces both
    a = Linear(2, 2, bias=False)
    tied = Sequential(a, Linear(2, 2, bias=False))
    tied[1].weight = a.weight
    out = functional_call(tied, {"0.weight": E.eye(2) * 2}, (E.ones(1, 2),))
    assert out.tolist() == [[4.0, 4.0]]
    out = functional_call(tied, {"0.weight": E.eye(2) * 2}, (E.ones(1, 2),), tie_weights=False)
    assert out.tolist() != [[4.0, 4.0]]
    # strict: a tied name counts as given with its twin, unless tie_weights=False
    out = functional_call(tied, {"0.weight": E.eye(2) * 2}, (E.ones(1, 2),), strict=True)
    assert out.tolist() == [[4.0, 4.0]]
    with pytest.raises(RuntimeError, match=r"^Error\(s\) in reparametrizing for Sequential:\n\tMissing key\(s\): "
                                           r"'1.weight'\.$"):
        functional_call(tied, {"0.weight": E.eye(2)}, (E.ones(1, 2),), strict=True, tie_weights=False)
    with pytest.raises(RuntimeError, match="Expected at least one model"):
        stack_module_state([])


def test_functional_call_names_every_repeated_key():
    m = Linear(3, 2)
    params = dict(m.named_parameters())
    with pytest.raises(ValueError, match=r"^\['weight', 'bias'\] appeared in multiple dictionaries; behavior of "
                                         r"functional call is ambiguous$"):
        functional_call(m, (params, dict(params)), (E.ones(1, 3),))
    with pytest.raises(ValueError, match="^Expected all elements of parameter_and_buffer_dicts to be dictionaries$"):
        functional_call(m, (params, [1]), (E.ones(1, 3),))


def test_vmap_refuses_batch_norm_updating_unbatched_running_stats():
    import ember.nn.functional as F

    bn = BatchNorm1d(3)
    x = E.tensor(np.arange(24.0, dtype=np.float32).reshape(2, 4, 3))
    with pytest.raises(RuntimeError, match=r"^Batch norm got a batched tensor as input while the running_mean or "
                                           r"running_var, which will be updated in place, were not batched\.\n"):
        vmap(bn)(x)
    assert bn.running_mean.tolist() == [0.0, 0.0, 0.0]  # refused before the update, as PyTorch
    # fine: eval mode, no running stats, or running stats mapped along with the input
    bn.eval()
    assert vmap(bn)(x).shape == (2, 4, 3)
    assert vmap(lambda t: F.batch_norm(t, None, None, training=True))(x).shape == (2, 4, 3)
    rm, rv = E.zeros(2, 3), E.ones(2, 3)
    vmap(lambda t, m, v: F.batch_norm(t, m, v, training=True))(x, rm, rv)
    np.testing.assert_allclose(rm.numpy(), 0.1 * x.numpy().mean(1), rtol=1e-6)


def test_functional_call_sets_a_parametrized_tensor_through_right_inverse():
    # PyTorch's swap_tensor setattr's a name that is no parameter or buffer: a parametrized weight takes the value
    # through right_inverse and gets its own back the same way; without right_inverse it raises
    from ember.nn.utils import parametrize

    class Double(Module):
        def forward(self, w):
            return w * 2

        def right_inverse(self, w):
            return w / 2

    lin = Linear(2, 2)
    parametrize.register_parametrization(lin, "weight", Double())
    before = lin.parametrizations.weight.original.detach().clone()
    out = functional_call(lin, {"weight": E.eye(2)}, (E.ones(1, 2),))
    np.testing.assert_allclose(out.detach().numpy(), (1.0 + lin.bias.detach()).numpy()[None], rtol=1e-6)
    np.testing.assert_allclose(lin.parametrizations.weight.original.detach().numpy(), before.numpy(), rtol=1e-6)

    class NoInverse(Module):
        def forward(self, w):
            return w * 2

    other = Linear(2, 2)
    parametrize.register_parametrization(other, "weight", NoInverse())
    with pytest.raises(RuntimeError, match="^parametrization NoInverse does not implement right_inverse.$"):
        functional_call(other, {"weight": E.eye(2)}, (E.ones(1, 2),))


def test_functional_call_refuses_to_replace_a_non_tensor_attribute():
    lin = Linear(2, 2)
    lin.temp = 2.0
    with pytest.raises(TypeError, match=r"^attribute `temp`: 2.0 is not an instance of torch.Tensor$"):
        functional_call(lin, {"temp": E.tensor(1.0)}, (E.ones(1, 2),))
    functional_call(lin, {"extra": E.ones(2)}, (E.ones(1, 2),))
    assert not hasattr(lin, "extra")
