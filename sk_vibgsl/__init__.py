"""sk_vibgsl: VIB-GSL graph structure learning as a scikit-learn estimator."""

from ._classifier import VIBGSLClassifier
from ._presets import LEARNED_CHANNEL_PARAMS, PAPER_PARAMS
from .perturbation import EdgePerturber, perturb_edges
from .preprocessing import DegreeFeatures, NodeFeatureTransformer, RandomWalkFeatures

__version__ = "0.1.0"

__all__ = [
    "DegreeFeatures",
    "EdgePerturber",
    "LEARNED_CHANNEL_PARAMS",
    "NodeFeatureTransformer",
    "PAPER_PARAMS",
    "RandomWalkFeatures",
    "VIBGSLClassifier",
    "__version__",
    "perturb_edges",
]
