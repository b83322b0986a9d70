"""torch.__future__: the module-conversion flags, as PyTorch's accessors, drive nn.Module.to()."""

import ember.torch as torch


def test_overwrite_flag_round_trips_and_replaces_parameters():
    assert torch.__future__.get_overwrite_module_params_on_conversion() is False
    assert torch.__future__.get_swap_module_params_on_conversion() is False
    m = torch.nn.Linear(2, 2)
    w = m.weight
    torch.__future__.set_overwrite_module_params_on_conversion(True)
    try:
        assert torch.__future__.get_overwrite_module_params_on_conversion() is True
        m.double()
        assert m.weight is not w and m.weight.dtype == torch.float64 and w.dtype == torch.float32
    finally:
        torch.__future__.set_overwrite_module_params_on_conversion(False)


def test_swap_tensors_exchanges_contents_class_and_attributes():
    a = torch.arange(3.0)
    b = torch.nn.Parameter(torch.zeros(2, 2))
    b.tag = "param"
    torch.utils.swap_tensors(a, b)
    assert type(a) is torch.nn.Parameter and a.requires_grad and a.tag == "param" and tuple(a.shape) == (2, 2)
    assert type(b) is torch.Tensor and b.tolist() == [0.0, 1.0, 2.0] and not hasattr(b, "tag")
    a.sum().backward()
    assert a.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
