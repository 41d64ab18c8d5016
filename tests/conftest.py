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
