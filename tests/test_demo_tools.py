"""What makes `make demo` and `make mn-cli` comfortable, without running Mininet: the forwarder that
brings the controller's API from the demo's private network namespace to the machine's 127.0.0.1
(mininet/forward.py), and the build stamp that keeps a second `make build` from running Maven."""
import os
import pathlib
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "mininet"))
import forward  # noqa: E402

ECHO = textwrap.dedent("""\
    import socket, sys, threading
    server = socket.create_server(("127.0.0.1", int(sys.argv[1])))
    def serve(c):
        with c:
            data = b""
            while chunk := c.recv(65536):
                data += chunk
            c.sendall(b"echo:" + data)      # after the client's end: half-closes pass through
    while True:
        threading.Thread(target=serve, args=(server.accept()[0],), daemon=True).start()
    """)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ask(port, payload):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
        c.sendall(payload)
        c.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := c.recv(65536):
            answer += chunk
        return answer


def wait_listening(port, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


@pytest.fixture
def echo(tmp_path):
    port = free_port()
    (tmp_path / "echo.py").write_text(ECHO)
    server = subprocess.Popen([sys.executable, tmp_path / "echo.py", str(port)])
    wait_listening(port)
    yield port
    server.kill()
    server.wait()


def test_listen_prefers_its_port_and_takes_a_free_one_when_taken():
    taken = socket.create_server(("127.0.0.1", 0))
    with taken:
        port = taken.getsockname()[1]
        other = forward.listen(port)
        with other:
            assert other.getsockname()[0] == "127.0.0.1" and other.getsockname()[1] not in (port, 0)
    free = free_port()
    with forward.listen(free) as s:
        assert s.getsockname() == ("127.0.0.1", free)


def test_forwarder_relays_both_ways_and_stops_by_its_pid(echo, tmp_path):
    listener = forward.listen(0)
    port = listener.getsockname()[1]
    process = forward.start(listener, echo, tmp_path / "forward.log")
    listener.close()              # the forwarder holds its own copy
    try:
        assert ask(port, b"hello") == b"echo:hello"
        big = os.urandom(3 << 20)
        assert ask(port, big) == b"echo:" + big, "3 MiB, both directions, ended by a half-close"
    finally:
        forward.stop(process)
    assert process.returncode is not None
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_forwarder_reaches_into_another_network_namespace(tmp_path):
    """As in the demo: the socket made here, the forwarder and the server in a namespace of their own,
    whose 127.0.0.1 this one cannot reach."""
    (tmp_path / "echo.py").write_text(ECHO)
    listener = forward.listen(0)
    port, inner = listener.getsockname()[1], free_port()
    fd = listener.fileno()
    script = (f"ip link set lo up && {{ {sys.executable} {tmp_path / 'echo.py'} {inner} & }} && sleep 0.5 && "
              f"exec {sys.executable} {forward.__file__} --listen-fd {fd} --to-port {inner}")
    process = subprocess.Popen(["unshare", "--net", "bash", "-c", script], pass_fds=(fd,), start_new_session=True)
    listener.close()
    try:
        deadline = time.time() + 10
        while True:
            try:
                assert ask(port, b"across") == b"echo:across"
                break
            except (OSError, AssertionError):
                assert time.time() < deadline, "the forwarder did not reach the namespace's server"
                time.sleep(0.2)
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", inner), timeout=2).close()
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait()


def make_dry_run():
    """What `make build p4` would run now, without running it (deps and the venv left out)."""
    out = subprocess.run(["make", "-n", "-o", "deps", "-o", ".venv/.installed", "build", "p4"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return out


def test_a_second_build_runs_no_maven():
    if not (ROOT / "bin" / ".built").exists():
        pytest.fail("bin/.built is missing: run `make build` first")
    first = make_dry_run()
    assert "mvn" not in first and "softswitch compile" not in first, first
    source = ROOT / "controller" / "src" / "main" / "java" / "org" / "nat64fabric" / "controller" / "Main.java"
    before = source.stat()
    try:
        os.utime(source, (before.st_atime, time.time() + 60))      # as if just edited
        edited = make_dry_run()
        assert "mvn -B -Dstyle.color=never package" in edited and "softswitch compile" in edited, edited
    finally:
        os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert "mvn" not in make_dry_run()
    for text in ("controller/README.md", "controller/nat64ctl.py"):   # no input of Maven's
        path = ROOT / text
        before = path.stat()
        try:
            os.utime(path, (before.st_atime, time.time() + 60))
            assert "mvn" not in make_dry_run(), text
        finally:
            os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


FAKE_MVN = textwrap.dedent("""\
    #!/bin/sh
    # Maven as 3.8 prints in batch mode, colour codes and all; fails when FAIL is set
    printf '\\033[1;34mINFO\\033[m Scanning for projects...\\n' | sed 's/^/[/; s/INFO/INFO]/'
    for m in core:1 controller:2; do
      printf '[\\033[1;34mINFO\\033[m] Building %s 0.1.0-SNAPSHOT                [%s/2]\\n' "${m%:*}" "${m#*:}" \\
        | sed 's/\\[\\x1b\\[1;34mINFO\\x1b\\[m\\]/[INFO]/'
      printf '[INFO] \\033[1mcompiling\\033[m %s\\n' "${m%:*}"
    done
    if [ -n "$FAIL" ]; then printf '[\\033[1;31mERROR\\033[m] Foo.java:[3,1] class, interface, enum, or record expected\\n'; exit 1; fi
    """)


def fake_build(tmp_path, fail=False, downloaded=True):
    """`make bin/.built` run by the Makefile's own recipe in an empty directory, with a fake mvn first
    on the PATH: what the user sees, and the log."""
    (tmp_path / "fake").mkdir(exist_ok=True)
    (tmp_path / "fake" / "mvn").write_text(FAKE_MVN)
    (tmp_path / "fake" / "mvn").chmod(0o755)
    home = tmp_path / "home"
    if downloaded:
        (home / ".m2/repository/io/grpc/grpc-netty-shaded").mkdir(parents=True, exist_ok=True)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    env = {**os.environ, "PATH": f"{tmp_path / 'fake'}:{os.environ['PATH']}", "HOME": str(home),
           "FAIL": "1" if fail else ""}
    out = subprocess.run(["make", "--no-print-directory", "-f", str(ROOT / "Makefile"), "-C", str(work), "bin/.built"],
                         capture_output=True, text=True, env=env, timeout=60)
    return out, work


def test_the_build_shows_progress_without_escape_codes(tmp_path):
    out, work = fake_build(tmp_path, downloaded=False)
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout + out.stderr
    assert out.stdout.splitlines() == [
        "build: first run: Maven downloads the dependencies into ~/.m2 (a few minutes)",
        "build: compiling with Maven (its log: bin/build.log)",
        "build: [1/2] core", "build: [2/2] controller"], out.stdout
    log = (work / "bin" / "build.log").read_text()
    assert "[INFO] compiling core" in log and "\x1b" not in log
    assert (work / "bin" / ".built").exists()
    again, _ = fake_build(tmp_path)
    assert "build:" not in again.stdout, "nothing changed: no Maven"
    (work / "bin" / ".built").unlink()
    again, _ = fake_build(tmp_path)
    assert "first run" not in again.stdout, "said once, while ~/.m2 lacks the dependencies"


def test_a_failed_build_says_why_without_escape_codes(tmp_path):
    out, work = fake_build(tmp_path, fail=True)
    assert out.returncode != 0
    assert "\x1b" not in out.stdout + out.stderr
    assert out.stderr.splitlines()[:2] == ["[ERROR] Foo.java:[3,1] class, interface, enum, or record expected",
                                           "build: failed; all of it in bin/build.log"], out.stderr
    assert not (work / "bin" / ".built").exists(), "a failed build is tried again"
