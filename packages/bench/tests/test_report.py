"""The results folder: JSON with every figure and the machine, a Markdown table, PNG charts."""

import json

from ember.bench.machine import describe_machine, machine_line
from ember.bench.overhead import run_overhead
from ember.bench.report import markdown_table, write_results
from ember.bench.table import run_table


def test_table_json_markdown_and_charts(tmp_path):
    rows = run_table(["ncf", "gnmt"], size="tiny", compare=False, repeats=2, warmup=1)
    results = {"machine": describe_machine(), "table1": rows, "overhead": run_overhead(calls=20),
               "command": "test"}
    paths = write_results(results, tmp_path)
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["schema"] == 1
    assert {"cpu", "cores", "blas", "versions"} <= set(data["machine"])
    assert [r["key"] for r in data["table1"]] == ["ncf", "gnmt"]
    for r in data["table1"]:
        assert r["ember"]["median"] > 0 and r["ember"]["spread"] >= 0 and r["ember"]["n"] == 2
        assert r["unit"] in ("samples/s", "tokens/s")
    for op in ("add", "matmul", "sum"):
        ov = data["overhead"][op]["ember"]
        assert 0 < ov["forward_us"]["median"] < ov["forward_backward_us"]["median"]
    md = (tmp_path / "table1.md").read_text()
    assert md == markdown_table(data)
    assert "| NCF | samples/s |" in md and "| GNMTv2 | tokens/s |" in md
    for png in paths["png"]:
        with open(png, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert {p.split("/")[-1] for p in paths["png"]} == {"table1.png", "overhead.png"}


def _row(model, unit, ember, torch=None):
    row = {"model": model, "unit": unit, "size": "small", "ember": {"median": ember, "spread": 1.0}}
    if torch is not None:
        row.update(torch={"median": torch, "spread": 1.0}, ratio=ember / torch)
    return row


def test_table1_chart_shows_ratios_to_pytorch_when_it_ran(tmp_path):
    import matplotlib.pyplot as plt

    from ember.bench.report import _table1_chart

    rows = [_row("AlexNet", "img/s", 50.0, 100.0), _row("NCF", "samples/s", 3000.0, 2000.0)]
    assert _table1_chart(plt, rows, tmp_path / "t.png") == {"ratio": {"AlexNet": 0.5, "NCF": 1.5}}


def test_table1_chart_groups_absolute_figures_by_unit_without_pytorch(tmp_path):
    import matplotlib.pyplot as plt

    from ember.bench.report import _table1_chart

    rows = [_row("AlexNet", "img/s", 50.0), _row("GNMT", "tokens/s", 4000.0), _row("VGG", "img/s", 10.0)]
    plotted = _table1_chart(plt, rows, tmp_path / "t.png")
    assert plotted == {"img/s": {"AlexNet": 50.0, "VGG": 10.0}, "tokens/s": {"GNMT": 4000.0}}


def test_overhead_chart_puts_each_kind_on_its_own_panel_with_pytorch_beside(tmp_path):
    import matplotlib.pyplot as plt

    from ember.bench.report import _overhead_chart

    def stat(v):
        return {"median": v, "spread": 0.0, "n": 1}

    ov = {"add": {"numpy_us": stat(0.7), "ember": {"forward_us": stat(4.0), "recorded_us": stat(8.0),
                                                   "forward_backward_us": stat(90.0)},
                  "torch": {"forward_us": stat(2.0), "recorded_us": stat(4.0), "forward_backward_us": stat(60.0)}}}
    plotted = _overhead_chart(plt, ov, tmp_path / "o.png")
    assert plotted["forward"] == {"numpy": {"add": 0.7}, "ember": {"add": 4.0}, "torch": {"add": 2.0}}
    assert plotted["op + backward"] == {"ember": {"add": 90.0}, "torch": {"add": 60.0}}
    assert (tmp_path / "o.png").read_bytes()[:4] == b"\x89PNG"


def test_machine_line_names_the_blas_kernels():
    from threadpoolctl import threadpool_info

    pools = [p for p in threadpool_info() if p["user_api"] == "blas"]
    line = machine_line()
    assert line.startswith("Measured on ") and "BLAS: " in line
    for p in pools:
        assert f"{p['internal_api']} {p['version']}" in line
        if p.get("architecture"):
            assert f"{p['version']} {p['architecture']} (" in line
