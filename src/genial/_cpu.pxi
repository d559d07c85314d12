# The run-time CPU dispatch of a kernel (``genial._common``: ``select64`` by ``pdep`` where the
# CPU has a fast one), seen from Python: private, for tests and benchmarks. Included at module
# level by a kernel that cimports ``genial._common`` (``CPU``, ``USE_BMI2``, ``set_portable``)
# and has called ``common_init()``; each kernel keeps its own setting.

from genial._common cimport CPU, USE_BMI2, set_portable


def _cpu_features():
    """What this kernel found at import and uses: ``dispatch`` (compiled with the run-time
    dispatch: GCC or clang on x86), ``vendor`` and ``family`` (cpuid), ``bmi2`` (the CPU has
    BMI1 and BMI2), ``fast_pdep`` (... and its ``pdep`` is fast: Intel, AMD from family 0x19),
    ``select64``: the path in use, ``"bmi2"`` or ``"portable"``."""
    return {
        "dispatch": bool(CPU.x86),
        "vendor": CPU.vendor.decode("ascii", "replace"),
        "family": CPU.family,
        "bmi2": bool(CPU.bmi2),
        "fast_pdep": bool(CPU.fast_pdep),
        "select64": "bmi2" if USE_BMI2 else "portable",
    }


def _use_portable(bint flag):
    """Make ``select64`` take the portable path (``flag``), or the BMI2 one wherever the CPU has
    BMI2, even with a slow ``pdep`` (so that tests cover it); returns whether the portable path
    was in use before. The results are the same on both paths. Never while games run (the
    setting is the kernel's, not a thread's)."""
    return bool(set_portable(flag))
