"""``bluemoon`` hands its children one metrics folder (PROMETHEUS_MULTIPROC_DIR): the one named,
emptied of an earlier run's counts (prometheus-client would add them to this run's), or one of its own."""

from __future__ import annotations

from pathlib import Path

from cli.bluemoon import metrics_folder


def test_the_folder_named_is_emptied_of_an_earlier_runs_files(tmp_path, monkeypatch):
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / "counter_4242.db").write_bytes(b"an earlier run's counts")
    (folder / "README").write_text("not ours")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(folder))
    assert metrics_folder() == str(folder)
    assert sorted(p.name for p in folder.iterdir()) == ["README"]


def test_without_one_bluemoon_makes_an_empty_folder(monkeypatch):
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    made = Path(metrics_folder())
    assert made.is_dir() and list(made.iterdir()) == []
