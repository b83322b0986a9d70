"""torch.hub: the cache directory, downloads with sha256 prefixes, load_state_dict_from_url over a
file:// URL, and a local repository's hubconf.py; remote code is refused with a clear error."""

import hashlib

import pytest

import ember.torch as torch


def test_cache_dir_follows_set_dir_and_torch_home(tmp_path, monkeypatch):
    monkeypatch.setattr(torch.hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    assert torch.hub.get_dir() == str(tmp_path / "th" / "hub")
    torch.hub.set_dir(tmp_path / "elsewhere")
    assert torch.hub.get_dir() == str(tmp_path / "elsewhere")


def test_load_state_dict_from_url_downloads_once_and_checks_the_hash(tmp_path, monkeypatch):
    monkeypatch.setattr(torch.hub, "_hub_dir", str(tmp_path / "hub"))
    src = tmp_path / "w.pt"
    torch.save({"w": torch.arange(3.0)}, src)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    named = tmp_path / f"weights-{digest[:8]}.pt"
    named.write_bytes(src.read_bytes())
    sd = torch.hub.load_state_dict_from_url(named.as_uri(), check_hash=True)
    assert sd["w"].tolist() == [0.0, 1.0, 2.0]
    assert (tmp_path / "hub" / "checkpoints" / named.name).exists()
    bad = tmp_path / "weights-deadbeef.pt"
    bad.write_bytes(src.read_bytes())
    with pytest.raises(RuntimeError, match="invalid hash value"):
        torch.hub.load_state_dict_from_url(bad.as_uri(), model_dir=str(tmp_path / "m"), check_hash=True)
    assert not (tmp_path / "m" / bad.name).exists()


def test_local_hubconf_and_refused_remote_code(tmp_path):
    (tmp_path / "hubconf.py").write_text(
        "import ember.torch as torch\n\n\ndef tiny(n=2):\n    \"\"\"A tiny linear model.\"\"\"\n"
        "    return torch.nn.Linear(n, 1)\n")
    assert torch.hub.list(str(tmp_path)) == ["tiny"]
    assert torch.hub.help(str(tmp_path), "tiny") == "A tiny linear model."
    assert torch.hub.load(str(tmp_path), "tiny", 3, source="local").in_features == 3
    with pytest.raises(NotImplementedError, match="source='local'"):
        torch.hub.load("pytorch/vision", "resnet18")
