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
