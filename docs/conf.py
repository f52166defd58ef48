"""Sphinx configuration of the sk_vibgsl documentation.

Build (what CI runs; warnings are errors, nitpicky cross-references)::

    python -m sphinx -W --keep-going -n -b html docs docs/_build/html

The build needs no network: nothing is downloaded (no intersphinx inventories,
no remote images), the notebooks are rendered with their stored outputs, and the
gallery examples run in seconds. Links to the scikit-learn, skorch, PyTorch, PyG,
NumPy, SciPy and networkx docs are plain URLs (see ``_external_url`` below).

Math is typeset in the browser by MathJax 3, loaded from a CDN by default. For a
site that also reads offline, point ``SK_VIBGSL_DOCS_MATHJAX`` at a local MathJax 3
``es5`` folder (e.g. from ``npm pack mathjax@3``); it is then copied into the
build and loaded from there.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import warnings
from pathlib import Path

# Examples and autodoc import torch: one thread each, so a docs build on a shared
# machine does not stall on busy cores (set before torch is imported).
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # document this checkout, even beside another install

import sk_vibgsl  # noqa: E402


def _sync(src: Path, dst: Path, pattern: str) -> None:
    """Copy the files matching ``pattern`` under ``src`` to ``dst`` (same layout),
    rewriting only those that changed, and drop copies whose source is gone.

    The notebooks and the benchmark reports live outside ``docs/`` (where the
    project keeps them); the build reads copies of them (git-ignored), since
    links between documents must resolve inside the source tree.
    """
    wanted = {path.relative_to(src) for path in src.glob(pattern)}
    for rel in wanted:
        target = dst / rel
        data = (src / rel).read_bytes()
        if not target.exists() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    if dst.exists():
        for path in dst.glob(pattern):
            if path.relative_to(dst) not in wanted:
                path.unlink()


_sync(ROOT / "notebooks", DOCS / "notebooks", "0*.ipynb")
_sync(ROOT / "benchmarks" / "results", DOCS / "benchmarks" / "results", "**/*.md")
_sync(ROOT / "benchmarks" / "results", DOCS / "benchmarks" / "results", "**/*.png")

# -- Project ---------------------------------------------------------------------
project = "sk_vibgsl"
author = "the sk_vibgsl developers"
copyright = "2026, the sk_vibgsl developers"
release = sk_vibgsl.__version__  # the version is written in one place only
version = ".".join(release.split(".")[:2])

# -- Extensions ------------------------------------------------------------------
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.extlinks",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
    "sphinx_design",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "**.ipynb_checkpoints",
    # sphinx-gallery writes a notebook beside each example: a download, not a page
    "auto_examples/*.ipynb",
    "README.md",
]
templates_path = ["_templates"]
nitpicky = True

# -- autodoc / autosummary / numpydoc --------------------------------------------
autosummary_generate = True
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_default_options = {"member-order": "bysource"}
# a method without a docstring shows none, rather than its base class's text
# (e.g. torch's generic Module.forward)
autodoc_inherit_docstrings = False
numpydoc_show_class_members = False  # members are listed by the templates
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# -- MyST and notebooks ----------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "attrs_inline"]
myst_heading_anchors = 3
nb_execution_mode = "off"  # the notebooks are rendered with their stored outputs
nb_merge_streams = True

# -- sphinx-gallery: short examples, executed at build time -----------------------
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "show_memory": False,
    "backreferences_dir": None,
    "doc_module": ("sk_vibgsl",),
    "abort_on_example_error": True,
    "min_reported_time": 1,
}

# -- matplotlib's plot directive (figures drawn at build time) --------------------
plot_basedir = str(DOCS)  # `.. plot:: user_guide/x.py` names a file under docs/
plot_include_source = False
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_rcparams = {"figure.dpi": 110, "savefig.bbox": "tight"}

# -- HTML --------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"sk_vibgsl {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
    "navigation_with_keys": False,
    # no version switcher, no analytics, no remote logo: the build stays offline
}
html_context = {"default_mode": "light"}

_local_mathjax = os.environ.get("SK_VIBGSL_DOCS_MATHJAX")
if _local_mathjax:
    # a local MathJax 3 `es5` folder: copied to _static/mathjax/, loaded from there
    _mathjax_parent = Path(tempfile.mkdtemp(prefix="sk_vibgsl_docs_"))
    (_mathjax_parent / "mathjax").symlink_to(Path(_local_mathjax).resolve())
    html_static_path.append(str(_mathjax_parent))
    mathjax_path = "mathjax/tex-mml-chtml.js"
else:
    mathjax_path = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"

# -- Links to other projects' docs, by URL (no intersphinx: the build is offline) --
SKLEARN = "https://scikit-learn.org/stable/"
SKORCH = "https://skorch.readthedocs.io/en/stable/"
TORCH = "https://docs.pytorch.org/docs/stable/"
PYG = "https://pytorch-geometric.readthedocs.io/en/latest/"
NUMPY = "https://numpy.org/doc/stable/reference/"
SCIPY = "https://docs.scipy.org/doc/scipy/reference/"
NETWORKX = "https://networkx.org/documentation/stable/reference/"
MATPLOTLIB = "https://matplotlib.org/stable/api/"

extlinks = {
    "sklearn": (SKLEARN + "%s", "%s"),
    "skorch": (SKORCH + "%s", "%s"),
    "torch": (TORCH + "%s", "%s"),
    "pyg": (PYG + "%s", "%s"),
}

# Names whose page does not follow its project's usual URL pattern.
_EXTERNAL_PAGES = {
    "torch.Tensor": TORCH + "tensors.html",
    "torch.nn.Module": TORCH + "generated/torch.nn.Module.html",
    "torch.optim.Adam": TORCH + "generated/torch.optim.Adam.html",
    "networkx.Graph": NETWORKX + "classes/graph.html",
    "networkx.DiGraph": NETWORKX + "classes/digraph.html",
    "networkx.MultiGraph": NETWORKX + "classes/multigraph.html",
    "matplotlib.axes.Axes": MATPLOTLIB + "_as_gen/matplotlib.axes.Axes.html",
    "matplotlib.figure.Figure": MATPLOTLIB + "_as_gen/matplotlib.figure.Figure.html",
    # names used by the docstrings of skorch and scikit-learn methods that the
    # estimator inherits (score, save_params, load_params)
    "pickle": "https://docs.python.org/3/library/pickle.html",
    "Checkpoint": SKORCH + "callbacks.html#skorch.callbacks.Checkpoint",
}
# labels of scikit-learn's docs that its inherited docstrings refer to
_EXTERNAL_LABELS = {
    "accuracy_score": SKLEARN + "modules/model_evaluation.html#accuracy-score",
}


def _external_url(target: str) -> str | None:
    """The URL of another project's page for a dotted Python name, or None."""
    if target in _EXTERNAL_PAGES:
        return _EXTERNAL_PAGES[target]
    top = target.split(".")[0]
    if top == "sklearn":
        return f"{SKLEARN}modules/generated/{target}.html"
    if top == "torch_geometric":
        return f"{PYG}generated/{target}.html"
    if top == "torch":
        return f"{TORCH}generated/{target}.html"
    if top == "skorch":
        parts = target.split(".")
        page = parts[1] if len(parts) > 2 else "net"
        return f"{SKORCH}{page}.html#{target}"
    if top == "matplotlib":
        return f"{MATPLOTLIB}_as_gen/{target}.html"
    if top == "numpy":
        return f"{NUMPY}generated/{target}.html"
    if top == "scipy":
        return f"{SCIPY}generated/{target}.html"
    return None


def _link_external(app, env, node, contnode):
    """Resolve a Python cross-reference to another project by URL.

    Our own names never reach this: they resolve to our pages, and one that
    does not is reported by the nitpicky build.
    """
    from docutils import nodes

    target = node.get("reftarget", "")
    if node.get("refdomain") == "std" and node.get("reftype") == "ref":
        url = _EXTERNAL_LABELS.get(target)
    elif node.get("refdomain") == "py":
        url = _external_url(target)
    else:
        return None
    if url is None:
        return None
    ref = nodes.reference("", "", internal=False, refuri=url, reftitle=target)
    ref += contnode
    return ref


_METHOD_RETURNS = re.compile(r"^Returns \((\w+)\)\s*$")
_stashed_returns: dict[str, list[str]] = {}


def _take_method_returns(app, what, name, obj, options, lines):
    """Take a ``Returns (method)`` section out of a docstring before numpydoc
    sees it (numpydoc does not know the section and would drop it), rendered as
    a list under a rubric; :func:`_put_method_returns` appends it afterwards.

    ``VIBGSLModule`` documents what its ``forward`` returns this way; the
    entries keep numpydoc's ``name : type`` / indented description layout.
    """
    for i in range(len(lines) - 1):
        match = _METHOD_RETURNS.match(lines[i])
        if match and set(lines[i + 1].strip()) == {"-"}:
            break
    else:
        return
    end = i + 2
    items: list[list[str]] = []
    while end < len(lines):
        line = lines[end]
        if not line.strip():  # a blank line inside an entry, or the section's end
            if end + 1 < len(lines) and lines[end + 1].startswith(" "):
                end += 1
                continue
            break
        if line.startswith(" ") and items:
            items[-1].append(line.strip())
        else:
            items.append([line.strip()])
        end += 1
    block = ["", f".. rubric:: ``{match.group(1)}`` returns", ""]
    for head, *desc in items:
        label, _, kind = head.partition(" : ")
        entry = f"* ``{label.strip()}`` ({kind.strip()})"
        block.append(entry + (": " + " ".join(desc) if desc else ""))
    _stashed_returns[name] = block + [""]
    del lines[i:end]


def _put_method_returns(app, what, name, obj, options, lines):
    lines.extend(_stashed_returns.pop(name, []))


# numpydoc also parses the raw docstring when it formats the signature, and
# warns there about the section that the two functions above render.
warnings.filterwarnings("ignore", message=r"Unknown section Returns \(\w+\)", category=UserWarning)


def setup(app):
    app.connect("missing-reference", _link_external)
    # around numpydoc's own handler (priority 500), which would drop the section
    app.connect("autodoc-process-docstring", _take_method_returns, priority=400)
    app.connect("autodoc-process-docstring", _put_method_returns, priority=600)
