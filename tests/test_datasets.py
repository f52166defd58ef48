"""TU dataset loading: parsing, integrity checks, bundled data."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest
from conftest import shared_datasets

from sk_vibgsl.datasets import load_imdb_binary, load_mutag, load_tu_dataset

TINY = {
    # graph 1: nodes 1,2,3 (path 1-2-3, every line twice as in the social files)
    # graph 2: nodes 4,5 (edge 4-5 and a self-loop on 5)
    "A": "1, 2\n2, 1\n1, 2\n2, 1\n2, 3\n3, 2\n4, 5\n5, 4\n5, 5\n",
    "graph_indicator": "1\n1\n1\n2\n2\n",
    "graph_labels": "-1\n1\n",
    "node_labels": "0\n3\n0\n3\n1\n",
}


def _write_tiny(folder, name="TINY"):
    folder.mkdir(parents=True, exist_ok=True)
    for suffix, text in TINY.items():
        (folder / f"{name}_{suffix}.txt").write_text(text)
    return folder


def _check_tiny(graphs, target):
    assert target.tolist() == [-1, 1]
    assert [g.num_nodes for g in graphs] == [3, 2]
    # node labels 0, 1, 3 -> one-hot columns in sorted order
    assert graphs[0].x.tolist() == [[1, 0, 0], [0, 0, 1], [1, 0, 0]]
    assert graphs[1].x.tolist() == [[0, 0, 1], [0, 1, 0]]
    assert graphs[0].edge_index.tolist() == [[0, 1, 1, 2], [1, 0, 2, 1]]
    assert graphs[1].edge_index.tolist() == [[0, 1, 1], [1, 0, 1]]


def test_parses_a_tiny_folder(tmp_path):
    _write_tiny(tmp_path / "TINY")
    _check_tiny(*load_tu_dataset("TINY", data_home=tmp_path, download_if_missing=False,
                                 return_X_y=True))


def test_parses_the_same_from_a_zip_and_returns_a_bunch(tmp_path):
    src = _write_tiny(tmp_path / "src" / "TINY")
    (tmp_path / "home" / "TINY").mkdir(parents=True)
    with zipfile.ZipFile(tmp_path / "home" / "TINY" / "TINY.zip", "w") as zf:
        for file in src.iterdir():
            zf.write(file, f"TINY/{file.name}")
    bunch = load_tu_dataset("TINY", data_home=tmp_path / "home", download_if_missing=False)
    _check_tiny(bunch.data, bunch.target)
    assert bunch.name == "TINY" and "TINY" in bunch.DESCR


def test_sha256_mismatch_is_an_error(tmp_path):
    src = _write_tiny(tmp_path / "src" / "MUTAG", name="MUTAG")
    with zipfile.ZipFile(tmp_path / "MUTAG.zip", "w") as zf:
        for file in src.iterdir():
            zf.write(file, f"MUTAG/{file.name}")
    with pytest.raises(ValueError, match="sha256 is .* expected c6a5a54f"):
        load_tu_dataset("MUTAG", data_home=tmp_path, download_if_missing=False)


def test_missing_dataset_without_download_names_where_it_looked(tmp_path):
    with pytest.raises(FileNotFoundError, match="'NOPE' not found; looked in: .*SK_VIBGSL_DATA"):
        load_tu_dataset("NOPE", data_home=tmp_path, download_if_missing=False)


def test_environment_variable_is_the_default_home(tmp_path, monkeypatch):
    _write_tiny(tmp_path / "TINY")
    monkeypatch.setenv("SK_VIBGSL_DATA", str(tmp_path))
    _check_tiny(*load_tu_dataset("TINY", download_if_missing=False, return_X_y=True))


def test_download_goes_through_the_sha_check(tmp_path, monkeypatch):
    from sk_vibgsl.datasets import _tu

    bundled = _tu.BUNDLED / "MUTAG.zip"
    calls = []

    def fake_download(url, target):
        calls.append(url)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(bundled.read_bytes())

    monkeypatch.setattr(_tu, "_download", fake_download)
    graphs, y = load_tu_dataset("MUTAG", data_home=tmp_path, return_X_y=True)
    assert calls == ["https://www.chrsmrrs.com/graphkerneldatasets/MUTAG.zip"]
    assert len(graphs) == 188 and (tmp_path / "MUTAG" / "MUTAG.zip").is_file()


def test_bundled_mutag():
    graphs, y = load_mutag(return_X_y=True)
    assert len(graphs) == 188
    assert sum(g.num_nodes for g in graphs) == 3371
    assert graphs[0].x.shape[1] == 7
    assert dict(zip(*np.unique(y, return_counts=True))) == {-1: 63, 1: 125}


def test_bundled_imdb_binary_loads_without_a_path():
    bunch = load_imdb_binary()
    assert len(bunch.data) == 1000
    assert sum(g.num_nodes for g in bunch.data) == 19773
    assert sum(g.edge_index.shape[1] for g in bunch.data) == 193062  # 2 x 96.53 x 1000
    assert bunch.data[0].x.shape[1] == 0
    assert np.bincount(bunch.target).tolist() == [500, 500]
    graphs, _ = load_tu_dataset("IMDB-BINARY", return_X_y=True)
    assert len(graphs) == 1000


def test_imdb_multi_from_the_shared_folder():
    home = shared_datasets()
    if home is None:
        pytest.skip("shared/datasets not found beside the checkout")
    graphs, y = load_tu_dataset("IMDB-MULTI", data_home=home, download_if_missing=False,
                                return_X_y=True)
    assert len(graphs) == 1500
    assert sorted(set(y.tolist())) == [1, 2, 3]
