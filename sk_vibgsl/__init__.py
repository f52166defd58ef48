"""sk_vibgsl: VIB-GSL graph structure learning as a scikit-learn estimator."""

from ._classifier import VIBGSLClassifier
from .perturbation import EdgePerturber, perturb_edges
from .preprocessing import DegreeFeatures, NodeFeatureTransformer

__version__ = "0.1.0"

__all__ = [
    "DegreeFeatures",
    "EdgePerturber",
    "NodeFeatureTransformer",
    "VIBGSLClassifier",
    "__version__",
    "perturb_edges",
]
