"""Sphinx configuration of genial's documentation site (``sphinx-build -W docs site``)."""

from __future__ import annotations

import genial

project = "genial"
author = "The genial developers"
copyright = "2026, The genial developers"  # noqa: A001  (Sphinx's name)
release = genial.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_nb",  # Markdown pages (MyST) and notebooks executed at build time
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "site", "**/.ipynb_checkpoints", "conf.py"]
root_doc = "index"

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "force"  # every tutorial runs on every build
nb_execution_timeout = 600
nb_execution_raise_on_error = True

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
napoleon_numpy_docstring = True
napoleon_google_docstring = False

intersphinx_mapping: dict[str, tuple[str, None]] = {}  # offline: no inventories fetched

html_theme = "furo"
html_title = f"genial {release}"
html_static_path: list[str] = []
