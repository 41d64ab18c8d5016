"""Shared fixtures: the built softswitch launcher and the repository root."""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

# Every temporary file of this session (switch logs, pipelines, Tayga's and Mininet's files), here
# and in the Python processes the tests start, goes in one directory: removed when every test
# passed, kept and named when one failed, for its logs.
SESSION_TMP = tempfile.mkdtemp(prefix="nat64fabric-tests-")
tempfile.tempdir = os.environ["TMPDIR"] = SESSION_TMP
# softswitch's cache of compiled fast paths, the session's own: each program is compiled once per
# run (so clang always runs), and its other switches load it from there.
os.environ["SOFTSWITCH_CACHE_DIR"] = os.path.join(SESSION_TMP, "fast-path-cache")
_outcome = {}

from harness.base import FAST_PATH_RUNS

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


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="session")
def pki(tmp_path_factory):
    """A CA; a server certificate for 127.0.0.1 signed by it; a client certificate signed by it; and
    a second, unrelated CA with its own client certificate."""
    d = tmp_path_factory.mktemp("pki")
    for ca in ("ca", "other-ca"):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{ca}.key", "-out", f"{ca}.crt",
                "-days", "1", "-subj", f"/CN=nat64fabric test {ca}", cwd=d)
    (d / "server.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for name, ca, ext in (("server", "ca", ["-extfile", "server.ext"]), ("client", "ca", []),
                          ("stranger", "other-ca", [])):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
                "-subj", f"/CN={name}", cwd=d)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key",
                "-CAcreateserial", "-out", f"{name}.crt", "-days", "1", *ext, cwd=d)
    return d


def pytest_configure(config):
    config.addinivalue_line("markers", "first_pass_only: runs alike whatever NAT64FABRIC_FAST_PATH says, so make "
                                       "test runs it in its first pass and leaves it out of the fast-path passes")


def pytest_terminal_summary(terminalreporter):
    """With a fast path: what the kernel finished and what it handed to the interpreter, per program
    (a suite whose packets all went to the interpreter proved nothing about the fast path)."""
    totals = {}
    for program, switch in FAST_PATH_RUNS:
        t = totals.setdefault(pathlib.Path(program).name, {"runs": 0, "forwarded": 0, "dropped": 0,
                                                            "to interpreter": 0, "silent": 0})
        t["runs"] += 1
        try:
            counters = switch.final_counters()
        except RuntimeError:     # killed by its test, or crashed (then the test failed)
            t["silent"] += 1
            continue
        for name in ("forwarded", "dropped", "to interpreter"):
            t[name] += counters.get(f"fast path: {name}", 0)
    if totals:
        terminalreporter.section("packets by path (softswitch --fast-path)")
        for name, t in sorted(totals.items()):
            terminalreporter.write_line(
                f"{name}: {t['runs']} switch runs; the kernel forwarded {t['forwarded']} and dropped {t['dropped']} "
                f"packets, handed {t['to interpreter']} to the interpreter"
                + (f" ({t['silent']} runs printed no counters: killed or crashed)" if t["silent"] else ""))


def pytest_sessionfinish(session, exitstatus):
    _outcome["status"] = exitstatus


def pytest_unconfigure(config):
    """After the summary above, which reads the switches' logs."""
    if _outcome.get("status") in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        shutil.rmtree(SESSION_TMP, ignore_errors=True)
    else:
        print(f"the tests' files (switch logs among them) are kept in {SESSION_TMP}", file=sys.stderr)
