"""`torch.utils`: `data` (ember.data, the same module objects), `checkpoint`, `collect_env`, `_pytree`, `hooks` and
`tensorboard` (imported on first use: it needs the `tensorboard` package), `benchmark` (imported on first use);
`dlpack`, `flop_counter` and `module_tracker` are imported by name."""

import importlib

import ember.data as _data
from ember.torch._alias import alias as _alias

data = _alias(__name__ + ".data", _data)

from ember.torch.utils import _pytree, checkpoint, collect_env, hooks  # noqa: E402, F401
from ember.torch.utils._swap import swap_tensors  # noqa: E402, F401


def __getattr__(name: str):
    if name in ("tensorboard", "benchmark"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
