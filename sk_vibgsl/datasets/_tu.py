"""TU graph-classification datasets: bundled, local, or downloaded.

Reads the TU text format (Morris et al., 2020) with numpy:
``NAME_A.txt`` (1-based global edges), ``NAME_graph_indicator.txt``,
``NAME_graph_labels.txt`` and, where present, ``NAME_node_labels.txt``
(one-hot node features) and ``NAME_node_attributes.txt`` (real features).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
import zipfile
from pathlib import Path

import numpy as np
import torch
from sklearn.utils import Bunch
from torch_geometric.data import Data

__all__ = ["get_data_home", "load_imdb_binary", "load_mutag", "load_tu_dataset"]

BUNDLED = Path(__file__).resolve().parent / "data"
URL = "https://www.chrsmrrs.com/graphkerneldatasets/{name}.zip"

#: sha256 of the official zips (as in shared/datasets/README.md).
SHA256 = {
    "IMDB-BINARY": "0e131a319f14a39665e8c1206dc4b814c6fe0ae13cb9b7434724864f16509785",
    "IMDB-MULTI": "982a077e70d5df57faf42124dd5058ab43e408a56bcbd02a21c3441f0a24c543",
    "REDDIT-BINARY": "c5c19f935bcfc8c9d62f136b501a85d176c963c032e2d709abeafd4625728a45",
    "COLLAB": "43cadefba243bda26d75386832232f6ee5cf3860959a7aad3be4be50e5208ae9",
    "MUTAG": "c6a5a54f0f18e1aa334b4c48bcac3e54e893c91c0f55f0c4c756bf20180e3335",
}


def get_data_home(data_home: str | os.PathLike | None = None) -> Path:
    """Folder for TU datasets: ``data_home``, else ``$SK_VIBGSL_DATA``, else
    ``~/.cache/sk_vibgsl``."""
    if data_home is None:
        data_home = os.environ.get("SK_VIBGSL_DATA", Path.home() / ".cache" / "sk_vibgsl")
    return Path(data_home).expanduser()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _check_zip(name: str, path: Path) -> None:
    expected = SHA256.get(name)
    if expected is None:
        return
    actual = _sha256(path)
    if actual != expected:
        raise ValueError(
            f"{path}: sha256 is {actual}, expected {expected} for {name}. The file is "
            "corrupt or not the official dataset; delete it and load again."
        )


def _download(url: str, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as tmp:
        with urllib.request.urlopen(url, timeout=60) as response:
            shutil.copyfileobj(response, tmp)
    os.replace(tmp.name, target)


def _candidates(name: str, home: Path) -> list[Path]:
    return [
        home / name / f"{name}.zip",
        home / f"{name}.zip",
        home / name / name,
        home / name,
    ]


class _Source:
    """Read ``NAME_<suffix>.txt`` members from a zip or a folder."""

    def __init__(self, name: str, path: Path) -> None:
        self.name, self.path = name, path
        self.zip = zipfile.ZipFile(path) if path.suffix == ".zip" else None
        if self.zip is not None:
            self.members = {Path(m).name: m for m in self.zip.namelist()}

    def read(self, suffix: str) -> bytes | None:
        filename = f"{self.name}_{suffix}.txt" if suffix != "README" else "README.txt"
        if self.zip is not None:
            member = self.members.get(filename)
            return None if member is None else self.zip.read(member)
        file = self.path / filename
        return file.read_bytes() if file.exists() else None


def _numbers(raw: bytes, dtype) -> np.ndarray:
    text = raw.replace(b",", b" ")
    return np.array(text.split(), dtype=dtype)


def _parse(source: _Source) -> tuple[list[Data], np.ndarray]:
    name = source.name
    indicator_raw, labels_raw, edges_raw = (
        source.read("graph_indicator"), source.read("graph_labels"), source.read("A")
    )
    if indicator_raw is None or labels_raw is None or edges_raw is None:
        raise ValueError(
            f"{source.path}: {name}_A.txt, {name}_graph_indicator.txt and "
            f"{name}_graph_labels.txt are required."
        )
    graph_of_node = _numbers(indicator_raw, np.int64) - 1
    if np.any(np.diff(graph_of_node) < 0):
        raise ValueError(f"{name}_graph_indicator.txt is not sorted by graph.")
    target = _numbers(labels_raw, np.int64)
    n_graphs, n_nodes = len(target), len(graph_of_node)
    node_ptr = np.searchsorted(graph_of_node, np.arange(n_graphs + 1))

    edges = _numbers(edges_raw, np.int64).reshape(-1, 2) - 1
    if edges.size and (edges.min() < 0 or edges.max() >= n_nodes):
        raise ValueError(f"{name}_A.txt refers to nodes outside 1..{n_nodes}.")
    src, dst = edges[:, 0], edges[:, 1]
    if np.any(graph_of_node[src] != graph_of_node[dst]):
        raise ValueError(f"{name}_A.txt has edges between different graphs.")
    key = np.unique(src * n_nodes + dst)  # drop duplicate lines, sort by source
    src, dst = key // n_nodes, key % n_nodes
    edge_graph = graph_of_node[src]
    edge_ptr = np.searchsorted(edge_graph, np.arange(n_graphs + 1))

    parts = []
    attrs = source.read("node_attributes")
    if attrs is not None:
        parts.append(_numbers(attrs, np.float32).reshape(n_nodes, -1))
    node_labels = source.read("node_labels")
    if node_labels is not None:
        values, codes = np.unique(_numbers(node_labels, np.int64), return_inverse=True)
        parts.append(np.eye(len(values), dtype=np.float32)[codes])
    x = np.hstack(parts) if parts else np.zeros((n_nodes, 0), np.float32)

    x_t = torch.from_numpy(x)
    local = torch.from_numpy(np.stack([src - node_ptr[edge_graph], dst - node_ptr[edge_graph]]))
    graphs = [
        Data(
            x=x_t[node_ptr[i]:node_ptr[i + 1]],
            edge_index=local[:, edge_ptr[i]:edge_ptr[i + 1]],
            num_nodes=int(node_ptr[i + 1] - node_ptr[i]),
        )
        for i in range(n_graphs)
    ]
    return graphs, target


def load_tu_dataset(
    name: str,
    *,
    data_home: str | os.PathLike | None = None,
    download_if_missing: bool = True,
    return_X_y: bool = False,
):
    """Load a TU graph-classification dataset.

    Parameters
    ----------
    name : str
        TU name, e.g. ``"IMDB-BINARY"`` (case-sensitive).
    data_home : path, optional
        Folder holding ``NAME/NAME.zip``, ``NAME.zip`` or an unpacked
        ``NAME/`` folder. Default: ``$SK_VIBGSL_DATA``, else
        ``~/.cache/sk_vibgsl``. IMDB-BINARY and MUTAG are bundled and load
        with no path when not found there.
    download_if_missing : bool, default=True
        Download the official zip into ``data_home`` when not found.
    return_X_y : bool, default=False
        Return ``(graphs, target)`` instead of a Bunch.

    Returns
    -------
    Bunch with ``data`` (list of :class:`torch_geometric.data.Data` with
    ``x`` and ``edge_index``; graphs without node labels or attributes have
    0 feature columns — add :class:`~sk_vibgsl.DegreeFeatures`), ``target``
    (the raw TU labels), ``DESCR`` and ``name``; or ``(data, target)``.

    Raises
    ------
    FileNotFoundError
        The dataset is nowhere to be found and downloads are off.
    ValueError
        A zip's sha256 differs from the official one, or the files are
        malformed.
    """
    home = get_data_home(data_home)
    places = _candidates(name, home)
    if data_home is None:
        places.append(BUNDLED / f"{name}.zip")
    found = next(
        (p for p in places if (p.suffix == ".zip" and p.is_file())
         or (p.is_dir() and (p / f"{name}_A.txt").is_file())),
        None,
    )
    if found is None and download_if_missing:
        found = home / name / f"{name}.zip"
        _download(URL.format(name=name), found)
    if found is None:
        raise FileNotFoundError(
            f"TU dataset {name!r} not found; looked in: "
            + ", ".join(str(p) for p in places)
            + ". Pass data_home=, set SK_VIBGSL_DATA, or allow download_if_missing=True."
        )
    if found.suffix == ".zip":
        _check_zip(name, found)
    source = _Source(name, found)
    graphs, target = _parse(source)
    if return_X_y:
        return graphs, target
    readme = source.read("README")
    descr = readme.decode("utf-8", "replace") if readme else (
        f"TU dataset {name}: {len(graphs)} graphs, classes {sorted(set(target.tolist()))}. "
        "Cite Morris et al., TUDataset (2020)."
    )
    return Bunch(data=graphs, target=target, DESCR=descr, name=name)


def load_imdb_binary(*, return_X_y: bool = False):
    """The bundled IMDB-BINARY (1000 ego-networks, 2 classes, no node features)."""
    return load_tu_dataset("IMDB-BINARY", data_home=BUNDLED, download_if_missing=False,
                           return_X_y=return_X_y)


def load_mutag(*, return_X_y: bool = False):
    """The bundled MUTAG (188 molecules, 2 classes, 7 one-hot atom types)."""
    return load_tu_dataset("MUTAG", data_home=BUNDLED, download_if_missing=False,
                           return_X_y=return_X_y)


