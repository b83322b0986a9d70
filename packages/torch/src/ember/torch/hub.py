"""`torch.hub`'s checkpoint cache: `load_state_dict_from_url`, `download_url_to_file`, `get_dir`,
`set_dir`. Files are cached under `$TORCH_HOME/hub/checkpoints` and loaded with `torch.load`'s safe
unpickler (`weights_only=True` unless asked otherwise). Loading models from GitHub repositories
(`hub.load`, `hub.list`, `hub.help`) runs the repository's own Python code, which is written against
PyTorch's C++ library, so ember raises for those."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import urllib.parse
import urllib.request

from ember.autograd.serialization import load as _load_checkpoint

__all__ = ["get_dir", "set_dir", "download_url_to_file", "load_state_dict_from_url", "load", "list", "help"]

_hub_dir: str | None = None
_HASH = re.compile(r"-([a-f0-9]*)\.")


def get_dir() -> str:
    """The hub cache directory: `set_dir`'s, else `$TORCH_HOME/hub` (default `~/.cache/torch/hub`)."""
    if _hub_dir is not None:
        return _hub_dir
    home = os.environ.get("TORCH_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "torch")
    return os.path.join(home, "hub")


def set_dir(d) -> None:
    """Use `d` as the hub cache directory."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Download `url` to `dst` atomically (a temporary file renamed into place), checking that the
    SHA-256 of the content starts with `hash_prefix` when given.

    Raises:
        RuntimeError: the hash does not match (the partial file is removed).
    """
    dst = os.path.expanduser(dst)
    folder = os.path.dirname(os.path.abspath(dst))
    os.makedirs(folder, exist_ok=True)
    sha = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".download-")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url) as src:  # noqa: S310 - the user's URL
            while chunk := src.read(1 << 20):
                sha.update(chunk)
                out.write(chunk)
        if hash_prefix is not None and not sha.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{sha.hexdigest()}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None, progress: bool = True,
                             check_hash: bool = False, file_name: str | None = None, weights_only: bool = False):
    """Load the checkpoint at `url`, downloading it into the cache first if it is not there.

    With `check_hash`, the file name's `<name>-<sha256 prefix>.<ext>` part is checked against the
    content, as PyTorch's model URLs name their files. ember's loader never executes code from the
    file: a checkpoint that needs arbitrary classes raises `CheckpointError` whatever `weights_only` says.
    """
    model_dir = model_dir or os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, name)
    if not os.path.exists(cached):
        m = _HASH.search(name) if check_hash else None
        download_url_to_file(url, cached, m.group(1) if m else None, progress=progress)
    return _load_checkpoint(cached, map_location=map_location)


def _from_github(what: str):
    def fn(*args, **kwargs):
        raise RuntimeError(f"torch.hub.{what}: loading models from GitHub repositories runs the repository's "
                           "hubconf.py, which needs PyTorch itself; download the weights and use "
                           "load_state_dict_from_url with an ember model instead")
    fn.__name__ = what
    return fn


load = _from_github("load")
list = _from_github("list")  # noqa: A001 - PyTorch's name
help = _from_github("help")  # noqa: A001 - PyTorch's name
