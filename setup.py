"""Build the compiled kernel. Metadata lives in pyproject.toml; this file only cythonizes.

``GENIAL_DEBUG=1`` builds with bounds checks, wraparound and initialisation checks on (used by CI).
"""

import os
import platform
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("GENIAL_DEBUG", "") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "embedsignature": True,
}

# popcnt is in every x86-64 processor since 2008 (x86-64-v2); the free-edge sampler uses it
ARCH_FLAGS = ["-mpopcnt"] if platform.machine().lower() in ("x86_64", "amd64") else []
if sys.platform == "win32":  # MSVC: its own flags (popcount through an intrinsic, _common.pxd)
    RELEASE, DEBUG_FLAGS = ["/O2"], ["/Od", "/Zi"]
else:
    RELEASE, DEBUG_FLAGS = ["-O3", *ARCH_FLAGS], ["-O0", "-g"]

extensions = [
    Extension(
        name,
        [source],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
        extra_compile_args=DEBUG_FLAGS if DEBUG else RELEASE,
    )
    for name, source in (
        ("genial._core", "src/genial/_core.pyx"),  # the board game
        ("genial.cards._kernel", "src/genial/cards/_kernel.pyx"),  # the card game
        ("genial._vector", "src/genial/_vector.pyx"),  # the batched vector environment
        ("genial.cards._vector", "src/genial/cards/_vector.pyx"),  # ... of the card game
    )
]

# force: the directives differ between debug and release builds, so never reuse a stale .c
setup(
    ext_modules=cythonize(
        extensions, compiler_directives=directives, include_path=["src"], force=True
    )
)
