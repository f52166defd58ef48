"""TU dataset loading: parsing, lookup, integrity checks, bundled data, download."""

from __future__ import annotations

import os
import pickle
import re
import shutil
import urllib.error
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from sklearn.utils import Bunch

from sk_vibgsl.datasets import _tu, get_data_home, load_imdb_binary, load_mutag, load_tu_dataset

# Graph 1: nodes 1, 2, 3 (path 1-2-3; every line written twice as in the social
# TU files). Graph 2: nodes 4, 5 (edge 4-5 and a self-loop on 5, also repeated).
TINY = {
    "A": "1, 2\n2, 1\n1, 2\n2, 1\n3, 2\n2, 3\n5, 4\n4, 5\n5, 5\n5, 5\n",
    "graph_indicator": "1\n1\n1\n2\n2\n",
    "graph_labels": "-1\n1\n",
    "node_labels": "0\n3\n0\n3\n1\n",
}
TINY_X = [
    [[1, 0, 0], [0, 0, 1], [1, 0, 0]],  # labels 0, 3, 0 over the sorted values (0, 1, 3)
    [[0, 0, 1], [0, 1, 0]],  # labels 3, 1
]
TINY_EDGES = [
    [[0, 1, 1, 2], [1, 0, 2, 1]],  # each direction once, sorted by (source, target)
    [[0, 1, 1], [1, 0, 1]],  # the self-loop once
]


def _write_folder(folder: Path, name: str = "TINY", files: dict | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for suffix, text in (TINY if files is None else files).items():
        (folder / f"{name}_{suffix}.txt").write_text(text)
    return folder


def _write_zip(path: Path, name: str = "TINY", files: dict | None = None, extra=()) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        for suffix, text in (TINY if files is None else files).items():
            zf.writestr(f"{name}/{name}_{suffix}.txt", text)
        for member, text in extra:
            zf.writestr(f"{name}/{member}", text)
    return path


def _check_tiny(graphs, target) -> None:
    assert isinstance(target, np.ndarray) and target.tolist() == [-1, 1]
    assert np.issubdtype(target.dtype, np.integer)
    assert len(graphs) == 2
    for graph, x, edges in zip(graphs, TINY_X, TINY_EDGES):
        assert graph.x.dtype == torch.float32 and graph.edge_index.dtype == torch.int64
        assert graph.x.tolist() == x
        assert graph.edge_index.tolist() == edges
        assert graph.num_nodes == len(x)


def _shared_datasets() -> Path | None:
    """``shared/datasets`` beside the checkout, else ``$SK_VIBGSL_SHARED``."""
    candidates = [Path(__file__).resolve().parents[2] / "shared" / "datasets"]
    if os.environ.get("SK_VIBGSL_SHARED"):
        env = Path(os.environ["SK_VIBGSL_SHARED"])
        candidates += [env, env / "datasets"]
    return next((p for p in candidates if (p / "IMDB-MULTI").is_dir()), None)


@pytest.fixture
def shared() -> Path:
    path = _shared_datasets()
    if path is None:
        pytest.skip("shared/datasets not found (set SK_VIBGSL_SHARED)")
    return path


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    def refuse(url, dest):
        raise AssertionError(f"a test tried to download {url}")

    monkeypatch.setattr(_tu, "_fetch_url", refuse)


# --------------------------------------------------------------------------- parsing


def test_parses_a_tiny_folder(tmp_path):
    _write_folder(tmp_path / "TINY")
    result = load_tu_dataset("TINY", data_home=tmp_path, download_if_missing=False, return_X_y=True)
    _check_tiny(*result)


def test_parses_the_same_from_a_zip_and_returns_a_bunch(tmp_path):
    _write_zip(tmp_path / "TINY" / "TINY.zip")
    bunch = load_tu_dataset("TINY", data_home=tmp_path, download_if_missing=False)
    assert isinstance(bunch, Bunch) and bunch.name == "TINY"
    _check_tiny(bunch.data, bunch.target)
    assert "TINY" in bunch.DESCR and "2 graphs" in bunch.DESCR and "Morris" in bunch.DESCR


def test_descr_is_the_readme_in_the_zip(tmp_path):
    _write_zip(tmp_path / "TINY.zip", extra=[("README.txt", "About TINY.\n")])
    assert load_tu_dataset("TINY", data_home=tmp_path, download_if_missing=False).DESCR == (
        "About TINY.\n"
    )


@pytest.mark.parametrize("layout", ["NAME/NAME.zip", "NAME.zip", "NAME/", "NAME/NAME/"])
def test_every_layout_is_found(tmp_path, layout):
    where = tmp_path / layout.replace("NAME", "TINY")
    if layout.endswith(".zip"):
        _write_zip(where)
    else:
        _write_folder(where)
    _check_tiny(
        *load_tu_dataset("TINY", data_home=tmp_path, download_if_missing=False, return_X_y=True)
    )


def test_node_attributes_come_before_one_hot_labels(tmp_path):
    files = dict(TINY, node_attributes="0.5, 1\n1.5, 2\n2.5, 3\n3.5, 4\n-1e-1, 5\n")
    _write_folder(tmp_path / "TINY", files=files)
    graphs, _ = load_tu_dataset(
        "TINY", data_home=tmp_path, download_if_missing=False, return_X_y=True
    )
    assert graphs[0].x.tolist() == [[0.5, 1, 1, 0, 0], [1.5, 2, 0, 0, 1], [2.5, 3, 1, 0, 0]]
    assert torch.allclose(graphs[1].x, torch.tensor([[3.5, 4, 0, 0, 1], [-0.1, 5, 0, 1, 0]]))


def test_no_node_labels_gives_zero_feature_columns(tmp_path):
    files = {k: v for k, v in TINY.items() if k != "node_labels"}
    _write_folder(tmp_path / "TINY", files=files)
    graphs, _ = load_tu_dataset(
        "TINY", data_home=tmp_path, download_if_missing=False, return_X_y=True
    )
    assert [tuple(g.x.shape) for g in graphs] == [(3, 0), (2, 0)]
    assert [g.num_nodes for g in graphs] == [3, 2]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"A": "1, 2\n2, 1\n3, 4\n4, 3\n"}, "different graphs"),
        ({"graph_indicator": "1\n2\n1\n2\n2\n"}, "not sorted"),
        ({"A": "1, 2\n2, 6\n"}, r"node ids must lie in 1\.\.5"),
        ({"graph_labels": "-1\n"}, r"graph ids must lie in 1\.\.1"),
        ({"A": "1, x\n"}, "not a file of int64 numbers"),
        ({"node_labels": "0\n1\n"}, "does not have 5 rows"),
    ],
)
def test_malformed_files_are_errors(tmp_path, change, message):
    _write_folder(tmp_path / "TINY", files=dict(TINY, **change))
    with pytest.raises(ValueError, match=message):
        load_tu_dataset("TINY", data_home=tmp_path, download_if_missing=False)


# --------------------------------------------------------------------------- lookup


def test_sha256_mismatch_is_an_error(tmp_path):
    path = _write_zip(tmp_path / "MUTAG" / "MUTAG.zip", name="MUTAG")
    expected = _tu.SHA256["MUTAG"]
    message = f"sha256 mismatch for {re.escape(str(path))}: "
    message += rf"expected {expected}, got [0-9a-f]{{64}}\."
    with pytest.raises(ValueError, match=message):
        load_tu_dataset("MUTAG", data_home=tmp_path, download_if_missing=False)


def test_unpacked_folders_are_not_hashed(tmp_path):
    _write_folder(tmp_path / "MUTAG", name="MUTAG")
    _check_tiny(
        *load_tu_dataset("MUTAG", data_home=tmp_path, download_if_missing=False, return_X_y=True)
    )


def test_missing_dataset_without_download_says_where_it_looked(tmp_path):
    with pytest.raises(FileNotFoundError, match="'NOPE' not found") as info:
        load_tu_dataset("NOPE", data_home=tmp_path, download_if_missing=False)
    message = str(info.value)
    assert isinstance(info.value, OSError)
    for place in [
        tmp_path / "NOPE" / "NOPE.zip",
        tmp_path / "NOPE.zip",
        tmp_path / "NOPE",
        tmp_path / "NOPE" / "NOPE",
    ]:
        assert f"- {place}\n" in message
    assert "data_home=" in message and "SK_VIBGSL_DATA" in message
    assert "download_if_missing=True" in message


def test_an_explicit_data_home_does_not_fall_back_to_the_bundled_copy(tmp_path):
    with pytest.raises(FileNotFoundError, match="'MUTAG' not found"):
        load_tu_dataset("MUTAG", data_home=tmp_path, download_if_missing=False)


def test_invalid_names_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="invalid TU dataset name"):
        load_tu_dataset("../MUTAG", data_home=tmp_path, download_if_missing=False)


def test_environment_variable_is_the_default_home(tmp_path, monkeypatch):
    _write_folder(tmp_path / "TINY")
    monkeypatch.setenv("SK_VIBGSL_DATA", str(tmp_path))
    assert get_data_home() == tmp_path
    _check_tiny(*load_tu_dataset("TINY", download_if_missing=False, return_X_y=True))


def test_get_data_home(tmp_path, monkeypatch):
    monkeypatch.delenv("SK_VIBGSL_DATA", raising=False)
    assert get_data_home() == Path.home() / ".cache" / "sk_vibgsl"
    assert get_data_home(tmp_path) == tmp_path
    assert get_data_home("~/x") == Path.home() / "x"


# --------------------------------------------------------------------------- download


def _shared_or_bundled_mutag() -> Path:
    shared = _shared_datasets()
    return shared / "MUTAG" / "MUTAG.zip" if shared else _tu.BUNDLED_DIR / "MUTAG.zip"


def test_download_writes_the_zip_checks_it_and_loads_it(tmp_path, monkeypatch):
    calls, hashed = [], []

    def fake_fetch(url, dest):
        calls.append(url)
        shutil.copyfile(_shared_or_bundled_mutag(), dest)

    sha256 = _tu._sha256
    monkeypatch.setattr(_tu, "_fetch_url", fake_fetch)
    monkeypatch.setattr(_tu, "_sha256", lambda path: hashed.append(path) or sha256(path))
    graphs, y = load_tu_dataset("MUTAG", data_home=tmp_path, return_X_y=True)
    assert calls == ["https://www.chrsmrrs.com/graphkerneldatasets/MUTAG.zip"]
    target = tmp_path / "MUTAG" / "MUTAG.zip"
    assert sorted(p.name for p in target.parent.iterdir()) == ["MUTAG.zip"]  # no temp file
    assert len(hashed) == 2 and hashed[-1] == target  # the download, then the load
    assert len(graphs) == 188 and y.shape == (188,)
    # The second call finds the zip: no download.
    load_tu_dataset("MUTAG", data_home=tmp_path, return_X_y=True)
    assert len(calls) == 1


def test_a_corrupt_download_is_an_error_and_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(_tu, "_fetch_url", lambda url, dest: Path(dest).write_bytes(b"junk"))
    with pytest.raises(ValueError, match="sha256 mismatch"):
        load_tu_dataset("MUTAG", data_home=tmp_path)
    assert list((tmp_path / "MUTAG").iterdir()) == []


def test_a_failed_download_says_how_to_work_offline(tmp_path, monkeypatch):
    def offline(url, dest):
        raise urllib.error.URLError("no network")

    monkeypatch.setattr(_tu, "_fetch_url", offline)
    with pytest.raises(OSError, match="Could not download TU dataset 'COLLAB'.*data_home"):
        load_tu_dataset("COLLAB", data_home=tmp_path)
    assert list((tmp_path / "COLLAB").iterdir()) == []


# --------------------------------------------------------------------------- real data


def test_bundled_mutag_loads_with_no_path(tmp_path, monkeypatch):
    monkeypatch.setenv("SK_VIBGSL_DATA", str(tmp_path))  # nothing there: the bundled copy
    bunch = load_tu_dataset("MUTAG", download_if_missing=False)
    graphs, y = load_mutag(return_X_y=True)
    for data, target in [(bunch.data, bunch.target), (graphs, y)]:
        assert len(data) == 188
        assert {g.x.shape[1] for g in data} == {7}
        assert sum(g.num_nodes for g in data) == 3371
        assert dict(zip(*np.unique(target, return_counts=True))) == {-1: 63, 1: 125}
    assert bunch.name == "MUTAG" and "MUTAG" in bunch.DESCR  # the zip's README.txt
    assert all(g.x.sum(dim=1).eq(1).all() for g in graphs)  # one-hot atom types


def test_bundled_imdb_binary(tmp_path, monkeypatch):
    monkeypatch.setenv("SK_VIBGSL_DATA", str(tmp_path))
    bunch = load_imdb_binary()
    graphs, y = load_tu_dataset("IMDB-BINARY", download_if_missing=False, return_X_y=True)
    assert np.array_equal(y, bunch.target)
    assert len(graphs) == 1000 and bunch.name == "IMDB-BINARY"
    assert {tuple(g.x.shape[1:]) for g in graphs} == {(0,)}
    assert sum(g.num_nodes for g in graphs) == 19773
    assert sum(g.edge_index.shape[1] for g in graphs) == 193062  # 2 x 96.53 x 1000
    assert np.bincount(y).tolist() == [500, 500]
    for g in graphs[:50]:  # each direction once, symmetric, in range
        edges = set(map(tuple, g.edge_index.t().tolist()))
        assert len(edges) == g.edge_index.shape[1]
        assert edges == {(v, u) for u, v in edges}
        assert g.edge_index.min() >= 0 and g.edge_index.max() < g.num_nodes


def test_each_loaded_graph_owns_its_arrays(tmp_path, monkeypatch):
    """A graph pickles with its own edges only: torch pickles a view with its
    whole storage, so views of one dataset-wide buffer would make every graph
    sent to a joblib worker carry the entire dataset."""
    monkeypatch.setenv("SK_VIBGSL_DATA", str(tmp_path))
    graphs, _ = load_mutag(return_X_y=True)
    for g in graphs[:20]:
        own = g.edge_index.numel() * 8 + g.x.numel() * 4
        assert g.edge_index.untyped_storage().nbytes() == g.edge_index.numel() * 8
        assert g.x.untyped_storage().nbytes() == g.x.numel() * 4
        assert len(pickle.dumps(g)) < own + 4096
        assert g.edge_index.is_contiguous()


def test_imdb_multi_from_the_shared_folder(shared):
    graphs, y = load_tu_dataset(
        "IMDB-MULTI", data_home=shared, download_if_missing=False, return_X_y=True
    )
    assert len(graphs) == 1500
    assert sum(g.num_nodes for g in graphs) == 19502
    assert dict(zip(*np.unique(y, return_counts=True))) == {1: 500, 2: 500, 3: 500}
