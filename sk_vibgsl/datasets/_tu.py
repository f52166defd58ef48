"""TU graph-classification datasets: bundled, local or downloaded.

Reads the text format of the TUDataset collection (Morris et al., 2020) with
numpy only, straight from the zip (nothing is extracted to disk):

- ``NAME_A.txt``: one edge per line, ``u, v``, 1-based global node ids;
- ``NAME_graph_indicator.txt``: the (1-based) graph of each node;
- ``NAME_graph_labels.txt``: one label per graph;
- ``NAME_node_labels.txt`` (optional): one-hot encoded node features;
- ``NAME_node_attributes.txt`` (optional): real-valued node features.

Edge labels, edge attributes and graph attributes are ignored.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import numpy as np
import torch
from sklearn.utils import Bunch
from torch_geometric.data import Data

__all__ = ["get_data_home", "load_imdb_binary", "load_mutag", "load_tu_dataset"]

#: Where the TU collection serves its zips.
TU_URL = "https://www.chrsmrrs.com/graphkerneldatasets/{name}.zip"

#: sha256 of the zips of known datasets (see ``/work/shared/datasets/README.md``).
SHA256 = {
    "IMDB-BINARY": "0e131a319f14a39665e8c1206dc4b814c6fe0ae13cb9b7434724864f16509785",
    "IMDB-MULTI": "982a077e70d5df57faf42124dd5058ab43e408a56bcbd02a21c3441f0a24c543",
    "REDDIT-BINARY": "c5c19f935bcfc8c9d62f136b501a85d176c963c032e2d709abeafd4625728a45",
    "COLLAB": "43cadefba243bda26d75386832232f6ee5cf3860959a7aad3be4be50e5208ae9",
    "MUTAG": "c6a5a54f0f18e1aa334b4c48bcac3e54e893c91c0f55f0c4c756bf20180e3335",
}

#: Folder of the zips shipped with the package.
BUNDLED_DIR = Path(__file__).resolve().parent / "data"
BUNDLED = ("IMDB-BINARY", "MUTAG")

_ENV_VAR = "SK_VIBGSL_DATA"
_CHUNK_BYTES = 1 << 25  # parse large files 32 MiB at a time
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_FIRST_LINE = re.compile(rb"\S[^\n]*")  # the first non-blank line of a block
_NON_BLANK = re.compile(rb"\S")
_CITATION = (
    "C. Morris, N. M. Kriege, F. Bause, K. Kersting, P. Mutzel, M. Neumann. TUDataset: "
    "A collection of benchmark datasets for learning with graphs. ICML 2020 Workshop on "
    "Graph Representation Learning and Beyond (GRL+ 2020). arXiv:2007.08663. "
    "https://chrsmrrs.github.io/datasets/"
)


def get_data_home(data_home: str | os.PathLike[str] | None = None) -> Path:
    """Return the folder where TU datasets are looked for and downloaded to.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The folder to use. If None, the environment variable
        ``SK_VIBGSL_DATA`` is used when set, else ``~/.cache/sk_vibgsl``.

    Returns
    -------
    pathlib.Path
        The folder, with ``~`` expanded. It is not created.
    """
    if data_home is None:
        data_home = os.environ.get(_ENV_VAR) or Path.home() / ".cache" / "sk_vibgsl"
    return Path(data_home).expanduser()


# --------------------------------------------------------------------------- files


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_sha256(path: Path, name: str) -> None:
    """Raise ValueError if ``path`` is not the known zip of dataset ``name``."""
    expected = SHA256.get(name)
    if expected is None:
        return
    actual = _sha256(path)
    if actual != expected:
        raise ValueError(
            f"sha256 mismatch for {path}: expected {expected}, got {actual}. The file is "
            f"corrupt or not the official {name} zip; delete or replace it."
        )


def _fetch_url(url: str, dest: Path) -> None:
    """Write the body of ``url`` to ``dest`` (the only function touching the network)."""
    with urllib.request.urlopen(url, timeout=60) as response, open(dest, "wb") as fh:
        while block := response.read(1 << 20):
            fh.write(block)


def _download(name: str, home: Path) -> Path:
    """Download ``NAME.zip`` into ``home/NAME/``, check its sha256, return its path."""
    url = TU_URL.format(name=name)
    target = home / name / f"{name}.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        try:
            _fetch_url(url, tmp)
        except OSError as exc:
            raise OSError(
                f"Could not download TU dataset {name!r} from {url}: {exc}. Without network "
                f"access, put {name}.zip into {target.parent} (or pass data_home=... / set "
                f"{_ENV_VAR} to a folder holding it)."
            ) from exc
        _check_sha256(tmp, name)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _is_dataset_dir(path: Path, name: str) -> bool:
    return (path / f"{name}_A.txt").is_file()


def _candidates(name: str, home: Path) -> list[Path]:
    return [home / name / f"{name}.zip", home / f"{name}.zip", home / name, home / name / name]


def _locate(name: str, places: list[Path]) -> Path | None:
    for path in places:
        if path.suffix == ".zip" and path.name == f"{name}.zip":
            if path.is_file():
                return path
        elif _is_dataset_dir(path, name):
            return path
    return None


class _Source:
    """The text files of one dataset, in a zip or in a folder."""

    def __init__(self, path: Path, name: str) -> None:
        self.path = path
        self.name = name
        self._zip: zipfile.ZipFile | None = None
        self._members: dict[str, str] = {}
        if path.is_file():
            self._zip = zipfile.ZipFile(path)
            for member in self._zip.namelist():
                base = member.rstrip("/").rsplit("/", 1)[-1]
                if not member.endswith("/") and not member.startswith("__MACOSX"):
                    self._members.setdefault(base, member)

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()

    def has(self, filename: str) -> bool:
        if self._zip is not None:
            return filename in self._members
        return (self.path / filename).is_file()

    @contextmanager
    def open(self, filename: str) -> Iterator[IO[bytes]]:
        if self._zip is not None:
            with self._zip.open(self._members[filename]) as fh:
                yield fh
        else:
            with open(self.path / filename, "rb") as fh:
                yield fh

    def read_numbers(self, suffix: str, dtype: type) -> tuple[np.ndarray, int] | None:
        """Parse ``NAME_<suffix>.txt`` into ``(values, n_columns)``, or None if absent."""
        filename = f"{self.name}_{suffix}.txt"
        if not self.has(filename):
            return None
        with self.open(filename) as fh:
            return _parse_numbers(fh, dtype, f"{self.path}: {filename}")

    def read_text(self, filename: str) -> str | None:
        if not self.has(filename):
            return None
        with self.open(filename) as fh:
            return fh.read().decode("utf-8", errors="replace")


# --------------------------------------------------------------------------- parsing


def _numbers_from_bytes(text: bytes, dtype: type, what: str) -> np.ndarray:
    if not _NON_BLANK.search(text):
        return np.empty(0, dtype=dtype)
    try:
        return np.fromstring(text.replace(b",", b" "), dtype=dtype, sep=" ")
    except ValueError as exc:
        raise ValueError(f"{what}: not a file of {np.dtype(dtype).name} numbers ({exc})") from None


def _blocks_of_lines(stream: IO[bytes]) -> Iterator[bytes]:
    """Yield the bytes of ``stream`` in blocks of whole lines."""
    while block := stream.read(_CHUNK_BYTES):
        if not block.endswith(b"\n"):
            block += stream.readline()
        yield block


def _parse_numbers(stream: IO[bytes], dtype: type, what: str) -> tuple[np.ndarray, int]:
    """Parse a comma-separated numeric text file, a block of lines at a time.

    Returns the values in reading order and the number of columns (counted on
    the first non-blank line; 0 for an empty file).
    """
    parts: list[np.ndarray] = []
    n_columns = 0
    for block in _blocks_of_lines(stream):
        if not n_columns and (line := _FIRST_LINE.search(block)):
            n_columns = line.group().count(b",") + 1
        parts.append(_numbers_from_bytes(block, dtype, what))
    values = np.concatenate(parts) if parts else np.empty(0, dtype=dtype)
    if n_columns and values.size % n_columns:
        raise ValueError(f"{what}: {values.size} values do not fill rows of {n_columns} columns")
    return values, n_columns


def _one_hot(labels: np.ndarray) -> np.ndarray:
    """One-hot encode each column of ``labels`` over its sorted unique values."""
    blocks = []
    for column in labels.T:
        values, codes = np.unique(column, return_inverse=True)
        block = np.zeros((column.size, values.size), dtype=np.float32)
        block[np.arange(column.size), codes] = 1.0
        blocks.append(block)
    return np.hstack(blocks)


def _build_graphs(
    name: str,
    edges: np.ndarray,
    graph_indicator: np.ndarray,
    n_graphs: int,
    x: np.ndarray,
) -> list[Data]:
    """Split the global TU arrays into one :class:`~torch_geometric.data.Data` per graph.

    ``edges`` holds the flat 1-based ``(u, v)`` pairs of ``A.txt``;
    ``graph_indicator`` the 1-based graph id of every node; ``x`` the
    ``(n_nodes, n_features)`` node features.
    """
    n_nodes = graph_indicator.size
    if n_nodes and (graph_indicator[0] < 1 or graph_indicator[-1] > n_graphs):
        raise ValueError(
            f"{name}_graph_indicator.txt: graph ids must lie in 1..{n_graphs} "
            f"(the number of graph labels)"
        )
    if np.any(graph_indicator[1:] < graph_indicator[:-1]):
        raise ValueError(f"{name}_graph_indicator.txt: graph ids are not sorted")
    graph = graph_indicator - 1
    node_ptr = np.zeros(n_graphs + 1, dtype=np.int64)
    np.cumsum(np.bincount(graph, minlength=n_graphs), out=node_ptr[1:])

    if edges.size % 2:
        raise ValueError(f"{name}_A.txt: expected two node ids per line")
    if edges.size and (edges.min() < 1 or edges.max() > n_nodes):
        raise ValueError(f"{name}_A.txt: node ids must lie in 1..{n_nodes}")
    # One int64 key per directed edge: sorting it drops duplicate lines and
    # orders the edges by (source, target), hence by graph.
    key = edges.reshape(-1, 2) @ np.array([n_nodes, 1], dtype=np.int64)
    key -= n_nodes + 1  # 1-based (u, v) -> (u - 1) * n_nodes + (v - 1)
    del edges  # the caller hands over its only reference
    key.sort()
    if key.size and not (distinct := key[1:] != key[:-1]).all():
        key = key[np.concatenate(([True], distinct))]
    src, dst = np.divmod(key, n_nodes) if n_nodes else (key, key)
    del key
    edge_graph = graph[src]
    if np.any(edge_graph != graph[dst]):
        raise ValueError(f"{name}_A.txt: some edges join nodes of different graphs")
    edge_ptr = np.searchsorted(edge_graph, np.arange(n_graphs + 1))
    offset = node_ptr[edge_graph]
    del edge_graph
    src -= offset
    dst -= offset
    del offset
    # Each graph gets arrays of its own (not views of one big buffer: torch
    # pickles a view with its whole storage, so one graph sent to a joblib
    # worker would carry the edges of the entire dataset).
    return [
        Data(
            x=torch.from_numpy(x[node_ptr[i] : node_ptr[i + 1]].copy()),
            edge_index=torch.from_numpy(
                np.stack([src[edge_ptr[i] : edge_ptr[i + 1]], dst[edge_ptr[i] : edge_ptr[i + 1]]])
            ),
        )
        for i in range(n_graphs)
    ]


def _read_dataset(path: Path, name: str) -> tuple[list[Data], np.ndarray, str | None]:
    """Parse the TU files at ``path`` (zip or folder): graphs, labels and README."""
    source = _Source(path, name)
    try:
        parsed = {}
        for suffix, n_columns in (("A", 2), ("graph_indicator", 1), ("graph_labels", 1)):
            result = source.read_numbers(suffix, np.int64)
            if result is None:
                raise ValueError(f"{path}: {name}_{suffix}.txt is missing")
            if result[1] not in (0, n_columns):
                raise ValueError(
                    f"{path}: {name}_{suffix}.txt has {result[1]} columns, expected {n_columns}"
                )
            parsed[suffix] = result[0]
        graph_indicator = parsed["graph_indicator"]
        target = parsed["graph_labels"]
        n_nodes = graph_indicator.size

        features = []  # [attributes, one-hot labels]
        for suffix, dtype in (("node_attributes", np.float64), ("node_labels", np.int64)):
            result = source.read_numbers(suffix, dtype)
            if result is None or not result[1]:
                continue
            values, n_columns = result
            if values.size != n_nodes * n_columns:
                raise ValueError(f"{path}: {name}_{suffix}.txt does not have {n_nodes} rows")
            block = values.reshape(n_nodes, n_columns)
            features.append(block.astype(np.float32) if dtype is np.float64 else _one_hot(block))
        x = np.hstack(features) if features else np.zeros((n_nodes, 0), dtype=np.float32)

        graphs = _build_graphs(name, parsed.pop("A"), graph_indicator, target.size, x)
        readme = source.read_text("README.txt")
    finally:
        source.close()
    return graphs, target, readme


def _describe(name: str, graphs: list[Data], target: np.ndarray) -> str:
    values, counts = np.unique(target, return_counts=True)
    classes = ", ".join(f"{v}: {c}" for v, c in zip(values.tolist(), counts.tolist()))
    n_nodes = sum(g.num_nodes for g in graphs)
    n_edges = sum(g.edge_index.shape[1] for g in graphs)
    n_features = graphs[0].x.shape[1] if graphs else 0
    return (
        f"TU dataset {name}\n\n"
        f"{len(graphs)} graphs, {n_nodes} nodes, {n_edges} directed edges, "
        f"{n_features} node features.\nClasses (raw label: count): {classes}.\n\n"
        f"Please cite the collection: {_CITATION}\n"
    )


def _load(path: Path, name: str, return_X_y: bool) -> Bunch | tuple[list[Data], np.ndarray]:
    if path.is_file():
        _check_sha256(path, name)
    graphs, target, readme = _read_dataset(path, name)
    if return_X_y:
        return graphs, target
    descr = readme if readme is not None else _describe(name, graphs, target)
    return Bunch(data=graphs, target=target, DESCR=descr, name=name)


# --------------------------------------------------------------------------- public


def load_tu_dataset(
    name: str,
    *,
    data_home: str | os.PathLike[str] | None = None,
    download_if_missing: bool = True,
    return_X_y: bool = False,
) -> Bunch | tuple[list[Data], np.ndarray]:
    """Load a TU graph-classification dataset.

    The dataset is looked for in ``data_home`` as ``NAME/NAME.zip``,
    ``NAME.zip``, or an unpacked folder ``NAME/`` (or ``NAME/NAME/``) holding
    ``NAME_A.txt`` and the other text files. When ``data_home`` is None and
    nothing is found there, the copies bundled with the package
    (IMDB-BINARY and MUTAG) are used. Otherwise the zip is downloaded from
    the TU collection into ``data_home/NAME/NAME.zip`` if
    ``download_if_missing`` is True.

    Parameters
    ----------
    name : str
        The TU name of the dataset (case-sensitive), e.g. ``"IMDB-BINARY"``.
    data_home : str or path-like, default=None
        The folder holding the datasets. If None, ``$SK_VIBGSL_DATA`` is used
        when set, else ``~/.cache/sk_vibgsl`` (see :func:`get_data_home`).
    download_if_missing : bool, default=True
        If True, download the dataset when it is not found; if False, raise
        :class:`FileNotFoundError` instead.
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    bunch : :class:`~sklearn.utils.Bunch`
        With the attributes:

        data : list of :class:`torch_geometric.data.Data`
            One graph each, with ``x`` (float32, ``(n_nodes, n_features)``)
            and ``edge_index`` (int64, ``(2, n_edges)``, local 0-based node
            ids, each directed edge once, sorted). Node features are the node
            attributes followed by the one-hot node labels; datasets with
            neither have zero feature columns (add
            :class:`~sk_vibgsl.DegreeFeatures`).
        target : ndarray of shape (n_graphs,)
            The raw TU graph labels (e.g. -1/1 or 1..3).
        DESCR : str
            The dataset's ``README.txt`` when it has one, else a summary.
        name : str
            The dataset's name.
    (data, target) : tuple
        If ``return_X_y`` is True.

    Raises
    ------
    FileNotFoundError
        If the dataset is not found and ``download_if_missing`` is False.
    ValueError
        If a zip of a known dataset has the wrong sha256, or the files are
        malformed (e.g. edges between graphs, unsorted graph indicator).
    OSError
        If the download fails.

    Notes
    -----
    Duplicate lines of ``A.txt`` (the social datasets list every undirected
    edge four times) are dropped; self-loops are kept. Edge labels and
    attributes are ignored. Zips of known datasets are checked against
    their sha256; unpacked folders are not.

    References
    ----------
    .. [1] C. Morris, N. M. Kriege, F. Bause, K. Kersting, P. Mutzel,
       M. Neumann. "TUDataset: A collection of benchmark datasets for
       learning with graphs." ICML 2020 Workshop GRL+, arXiv:2007.08663.

    Examples
    --------
    >>> from sk_vibgsl.datasets import load_tu_dataset
    >>> graphs, y = load_tu_dataset("MUTAG", return_X_y=True)
    >>> len(graphs), graphs[0].x.shape[1]
    (188, 7)
    """
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise ValueError(f"invalid TU dataset name: {name!r}")
    home = get_data_home(data_home)
    places = _candidates(name, home)
    if data_home is None:
        places.append(BUNDLED_DIR / f"{name}.zip")
    path = _locate(name, places)
    if path is None:
        if not download_if_missing:
            looked = "\n".join(f"  - {p}" for p in places)
            raise FileNotFoundError(
                f"TU dataset {name!r} not found. Looked in:\n{looked}\n"
                f"Pass data_home=<folder holding {name}/{name}.zip, {name}.zip or an "
                f"unpacked {name}/ folder>, set the {_ENV_VAR} environment variable to such "
                f"a folder, or allow download_if_missing=True to download it from "
                f"{TU_URL.format(name=name)}."
            )
        path = _download(name, home)
    return _load(path, name, return_X_y)


def load_imdb_binary(*, return_X_y: bool = False) -> Bunch | tuple[list[Data], np.ndarray]:
    """Load the bundled IMDB-BINARY dataset (Yanardag & Vishwanathan, 2015).

    1000 ego-networks of actors, two classes (raw labels 0 and 1, 500 each),
    19.77 nodes and 96.53 undirected edges per graph on average, no node
    features (the graphs have 0 feature columns).

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    bunch : :class:`~sklearn.utils.Bunch` or tuple
        See :func:`load_tu_dataset`.
    """
    return _load(BUNDLED_DIR / "IMDB-BINARY.zip", "IMDB-BINARY", return_X_y)


def load_mutag(*, return_X_y: bool = False) -> Bunch | tuple[list[Data], np.ndarray]:
    """Load the bundled MUTAG dataset (Debnath et al., 1991; Kriege & Mutzel, 2012).

    188 nitro compounds, two classes (raw labels -1: 63, 1: 125), 17.93
    nodes per graph on average, 7 one-hot atom-type node features.

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    bunch : :class:`~sklearn.utils.Bunch` or tuple
        See :func:`load_tu_dataset`.
    """
    return _load(BUNDLED_DIR / "MUTAG.zip", "MUTAG", return_X_y)
