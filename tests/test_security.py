"""SECURITY.md's promises that hold for the whole package: nothing it reads is unpickled or
evaluated (an audit of the source), and a damaged weights file costs the value policies only
(the kernel reads it when a value policy first needs it, not at import)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import genial

from .processes import genial_env

PACKAGE = Path(genial.__file__).parent
ROOT = Path(__file__).resolve().parents[1]

# what would run code or choose a constructor from data, wherever it appears in the package
DANGEROUS = re.compile(
    r"\bpickle\.loads?\(|\bcPickle\b|\bdill\b|\bmarshal\.loads?\(|\bshelve\.|\beval\(|\bexec\("
    r"|\bliteral_eval\b|\byaml\.(?:unsafe_)?load\(|allow_pickle\s*=\s*True|\bjsonpickle\b"
)
# the one use that stays, of the package's own objects in memory (documented as trusted)
ALLOWED = {("_vecenv.py", "pickle.loads(pickle.dumps(self))")}


def _sources() -> list[Path]:
    files = [p for ext in ("py", "pyx", "pxi", "pxd") for p in PACKAGE.rglob(f"*.{ext}")]
    return sorted(p for p in files if "__pycache__" not in p.parts)


def test_the_package_never_unpickles_or_evaluates_what_it_reads() -> None:
    found = []
    for path in _sources():
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            match = DANGEROUS.search(code)
            if match and not any(
                path.name == name and snippet in code for name, snippet in ALLOWED
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert len(_sources()) > 50  # (the scan sees the package)
    assert found == []


def test_the_security_policy_is_in_the_repository() -> None:
    policy = ROOT / "SECURITY.md"
    if not policy.exists():  # (a wheel's tests: the repository is not beside them)
        pytest.skip("SECURITY.md is in the repository, not in the wheel")
    text = policy.read_text("utf-8")
    for needed in ("What is trusted", "What is not trusted", "Reporting a problem", "pickle"):
        assert needed in text


_CHILD = textwrap.dedent(
    """
    import json, sys
    from importlib import resources
    import genial
    from genial import _core

    damaged = sys.argv[1]
    real = resources.files

    class Package:
        def __init__(self, where):
            self.where = where
        def joinpath(self, name):
            return self.where if name == "value_weights.json" else real("genial").joinpath(name)

    resources.files = lambda name: Package(damaged) if name == "genial" else real(name)
    game = genial.Game(2, seed=1)
    while not game.is_over:          # greedy never reads the weights
        game.play(game.choose("greedy"))
    try:
        genial.Game(2, seed=1).choose("value")
    except ValueError as err:
        print(json.dumps({"over": game.is_over, "value": str(err)}))
    else:
        print(json.dumps({"over": game.is_over, "value": None}))
    """
)


def _damaged_weights(tmp_path: Path, kind: str) -> Path:
    data = json.loads((PACKAGE / "value_weights.json").read_text("utf-8"))
    path = tmp_path / "value_weights.json"
    if kind == "huge-weight":  # the checksum made valid for the huge number
        import hashlib

        data["models"]["2"][3] = 10**400
        body = json.dumps(data["models"], sort_keys=True, separators=(",", ":"))
        data["sha256"] = hashlib.sha256(body.encode()).hexdigest()
        path.write_text(json.dumps(data))
    elif kind == "deep-metrics":
        text = json.dumps(data)
        path.write_text(text[:-1] + ', "deep": ' + "[" * 100_000 + "]" * 100_000 + "}")
    elif kind == "huge-file":
        with open(path, "wb") as out:
            out.truncate(8 << 30)
    elif kind == "fifo":
        import os

        os.mkfifo(path)
    return path


@pytest.mark.parametrize("kind", ["huge-weight", "deep-metrics", "huge-file", "fifo"])
def test_a_damaged_weights_file_costs_the_value_policies_only(tmp_path: Path, kind: str) -> None:
    if kind == "fifo" and sys.platform == "win32":  # pragma: no cover
        pytest.skip("FIFOs are POSIX")
    path = _damaged_weights(tmp_path, kind)
    child = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)],
        capture_output=True,
        text=True,
        env=genial_env(),
        timeout=300,  # (a guard against a hang, not a speed bound)
        check=False,
    )
    assert child.returncode == 0, child.stderr
    result = json.loads(child.stdout)
    assert result["over"] is True  # greedy played a whole game
    assert result["value"] is not None
    assert "genial/value_weights.json is missing or damaged" in result["value"]
