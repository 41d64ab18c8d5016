"""A TCP forwarder, so that the REST API and dashboard of a controller in the demo's private network
namespace can be reached from the machine's own 127.0.0.1.

The demo opens the listening socket (listen()) before it leaves the machine's namespace; a socket
stays in the namespace it was made in. After entering the private one it starts this file as a
process (start()) that inherits that socket and connects, from the private namespace, to the
controller: connections to the machine's 127.0.0.1:PORT reach the controller. Stopped by its PID.
"""
import argparse
import socket
import subprocess
import sys
import threading

PREFERRED_PORT = 8181   # the API's usual port, when it is free


def listen(port=PREFERRED_PORT):
    """A listening socket on 127.0.0.1:port, or on a free port when that one is taken."""
    for candidate in (port, 0):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # the last demo's connections may linger
        try:
            s.bind(("127.0.0.1", candidate))
            s.listen(64)
            return s
        except OSError:
            s.close()
    raise OSError("no free port on 127.0.0.1")


def start(listener, target_port, log_path):
    """The forwarder as a process, with `listener`, to 127.0.0.1:target_port of the caller's namespace."""
    fd = listener.fileno()
    return subprocess.Popen([sys.executable, __file__, "--listen-fd", str(fd), "--to-port", str(target_port)],
                            pass_fds=(fd,), stdout=open(log_path, "a"), stderr=subprocess.STDOUT)


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _pump(source, sink):
    """Copies one direction until its end, then says so to the other side."""
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def _relay(client, target_port):
    with client:
        try:
            upstream = socket.create_connection(("127.0.0.1", target_port), timeout=5)
        except OSError as e:
            print(f"forward: 127.0.0.1:{target_port}: {e}", file=sys.stderr, flush=True)
            return
        with upstream:
            upstream.settimeout(None)
            back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
            back.start()
            _pump(client, upstream)
            back.join()


def main():
    ap = argparse.ArgumentParser(description="forward the connections of an inherited listening socket")
    ap.add_argument("--listen-fd", type=int, required=True, help="the listening socket, inherited")
    ap.add_argument("--to-port", type=int, required=True, help="the port on 127.0.0.1 to connect to")
    args = ap.parse_args()
    listener = socket.socket(fileno=args.listen_fd)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_relay, args=(client, args.to_port), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
