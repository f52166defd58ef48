"""TU graph-classification datasets (IMDB-BINARY and MUTAG are bundled)."""

from ._tu import get_data_home, load_imdb_binary, load_mutag, load_tu_dataset

__all__ = ["get_data_home", "load_imdb_binary", "load_mutag", "load_tu_dataset"]
