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


def test_distributed_without_ember_distributed_is_skipped_with_a_message(monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "ember.distributed.bench", None)  # import raises ImportError
    assert cli.main(["distributed"]) == 0
    assert "skipped, ember-distributed is not installed" in capsys.readouterr().err
