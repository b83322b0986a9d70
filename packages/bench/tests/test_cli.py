"""The CLI's arguments and its PyTorch hint."""

import pytest

from ember.bench import cli


def test_unknown_model_is_rejected():
    with pytest.raises(SystemExit):
        cli._parser().parse_args(["table", "--models", "nope"])


def test_without_torch_the_hint_says_how_to_get_it(monkeypatch, capsys):
    monkeypatch.setattr(cli.frameworks, "available", lambda name: False)
    args = cli._parser().parse_args(["table"])
    assert cli._compare(args) is False
    assert "pip install torch==2.13.0" in capsys.readouterr().err
