"""Shared fixtures: the built softswitch launcher and the repository root."""
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOFTSWITCH = ROOT / "bin" / "softswitch"


@pytest.fixture(scope="session")
def softswitch():
    """Runs bin/softswitch (built by `make build`) and returns the completed process."""
    if not SOFTSWITCH.exists():
        pytest.fail("bin/softswitch is missing: run `make build` first (make test does)")

    def run(*args, check=True):
        proc = subprocess.run([str(SOFTSWITCH), *map(str, args)], capture_output=True, text=True, timeout=120)
        if check and proc.returncode != 0:
            raise AssertionError(f"softswitch {' '.join(map(str, args))} failed ({proc.returncode}):\n{proc.stderr}")
        return proc

    return run
