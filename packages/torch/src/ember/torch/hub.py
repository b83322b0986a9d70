"""`torch.hub`: the cache directory, file downloads with hash checks, `load_state_dict_from_url` (pretrained
weights in PyTorch's checkpoint format load as ember tensors), and `load`/`list`/`help` for a local
repository's `hubconf.py`. Fetching a GitHub repository's code is not done: ember runs no downloaded code
unasked, and a program can clone the repository and pass `source="local"`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import tempfile
import urllib.parse
import urllib.request

__all__ = ["get_dir", "set_dir", "download_url_to_file", "load_state_dict_from_url", "load", "list", "help"]

_hub_dir: str | None = None
_HASH_IN_NAME = re.compile(r"-([a-f0-9]*)\.")  # "resnet18-f37072fd.pth": the sha256 prefix PyTorch's names carry


def get_dir() -> str:
    """The hub cache: `set_dir`'s, else $TORCH_HOME/hub, else $XDG_CACHE_HOME/torch/hub (~/.cache/torch/hub)."""
    if _hub_dir is not None:
        return _hub_dir
    home = os.environ.get("TORCH_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache")), "torch")
    return os.path.join(os.path.expanduser(home), "hub")


def set_dir(d) -> None:
    """Use `d` as the hub cache from now on."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Copy the object at `url` to the file `dst` (written beside it first, then moved); when `hash_prefix`
    is given, the file's sha256 must start with it or a RuntimeError is raised and nothing is left."""
    dst = os.path.expanduser(dst)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(dst)), suffix=".partial")
    try:
        sha = hashlib.sha256()
        with os.fdopen(fd, "wb") as f, urllib.request.urlopen(url) as src:  # noqa: S310 - the caller's URL
            while chunk := src.read(1 << 20):
                sha.update(chunk)
                f.write(chunk)
        if hash_prefix is not None and not sha.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{sha.hexdigest()}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None, progress: bool = True,
                             check_hash: bool = False, file_name: str | None = None, weights_only: bool = False):
    """The object saved at `url`, downloaded once into `model_dir` (the hub's checkpoints dir by default) and
    loaded with `torch.load`; `check_hash` checks the sha256 prefix that the file name carries."""
    import ember.torch as torch

    model_dir = model_dir or os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, name)
    if not os.path.exists(cached):
        m = _HASH_IN_NAME.search(name) if check_hash else None
        download_url_to_file(url, cached, m.group(1) if m else None, progress=progress)
    return torch.load(cached, map_location=map_location)


def _hubconf(repo_or_dir: str, source: str):
    if source != "local":
        raise NotImplementedError(f"torch.hub: source={source!r} would fetch and run a repository's code; ember "
                                  "runs local repositories only: clone it and pass its directory with "
                                  "source='local'")
    path = os.path.join(os.path.expanduser(repo_or_dir), "hubconf.py")
    if not os.path.exists(path):
        raise FileNotFoundError(f"Cannot find hubconf.py in {repo_or_dir}")
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entrypoints(module) -> dict:
    return {k: v for k, v in vars(module).items() if callable(v) and not k.startswith("_")
            and getattr(v, "__module__", None) == module.__name__}


def list(github, force_reload: bool = False, skip_validation: bool = False, trust_repo=None,  # noqa: A001
         verbose: bool = True, *, source: str = "local"):
    """The entrypoints that a local repository's hubconf.py defines."""
    return sorted(_entrypoints(_hubconf(github, source)))


def help(github, model, force_reload: bool = False, skip_validation: bool = False, trust_repo=None, *,  # noqa: A001
         source: str = "local"):
    """The docstring of the entrypoint `model` of a local repository's hubconf.py."""
    fn = _entrypoints(_hubconf(github, source)).get(model)
    if fn is None:
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn.__doc__


def load(repo_or_dir, model, *args, source: str = "github", trust_repo=None, force_reload: bool = False,
         verbose: bool = True, skip_validation: bool = False, **kwargs):
    """`model(*args, **kwargs)`, the entrypoint of a local repository's hubconf.py (`source="local"`)."""
    fn = _entrypoints(_hubconf(repo_or_dir, source)).get(model)
    if fn is None:
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn(*args, **kwargs)
