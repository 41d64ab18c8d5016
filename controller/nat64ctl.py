#!/usr/bin/env python3
"""nat64ctl: manage the NAT64 fabric's mappings over its REST API (the embedded controller's or
the ONOS app's: the paths are the same). Standard library only.

    nat64ctl sessions [--protocol P] [--ipv6 ADDR] [--ipv4 ADDR] [--remote ADDR]
    nat64ctl bib [--protocol P] [--static]
    nat64ctl bib add PROTOCOL IPV6 PORT IPV4 PORT
    nat64ctl bib remove PROTOCOL IPV6 PORT
    nat64ctl eamt
    nat64ctl eamt add IPV6_PREFIX IPV4_PREFIX
    nat64ctl eamt remove IPV4_PREFIX
    nat64ctl pools | stats | devices

The API is at $NAT64FABRIC_URL (default http://127.0.0.1:8181/onos/nat64fabric); --url overrides.
Credentials: --user USER:PASSWORD (or $NAT64FABRIC_USER), as ONOS's REST API needs; otherwise the
embedded controller's credentials file, --credentials FILE (or $NAT64FABRIC_CREDENTIALS, default
/var/lib/nat64fabric/rest-credentials), which the controller writes in its --state directory.
--cacert FILE trusts the CA of an HTTPS API (the system's CAs otherwise).
"""
import argparse
import base64
import http.client
import json
import os
import ssl
import sys
import urllib.error
import urllib.parse
import urllib.request

DEFAULT_URL = "http://127.0.0.1:8181/onos/nat64fabric"
DEFAULT_CREDENTIALS = "/var/lib/nat64fabric/rest-credentials"


def credentials(args):
    """USER:PASSWORD from --user, else from the credentials file if it exists."""
    if args.user:
        return args.user
    try:
        with open(args.credentials) as f:
            return f.read().strip()
    except FileNotFoundError:
        return None
    except OSError as e:
        sys.exit(f"nat64ctl: cannot read the credentials {args.credentials}: {e.strerror}")


def call(args, method, path, body=None, query=None):
    if urllib.parse.urlsplit(args.url).scheme not in ("http", "https"):
        sys.exit(f"nat64ctl: --url {args.url}: not an http:// or https:// URL (as in {DEFAULT_URL})")
    url = args.url.rstrip("/") + path
    if query:
        url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    user = credentials(args)
    if user:
        req.add_header("Authorization", "Basic " + base64.b64encode(user.encode()).decode())
    try:
        context = ssl.create_default_context(cafile=args.cacert) if args.cacert else None
    except (OSError, ssl.SSLError) as e:
        sys.exit(f"nat64ctl: cannot read --cacert {args.cacert}: {getattr(e, 'strerror', None) or e}")
    try:
        with urllib.request.urlopen(req, timeout=30, context=context) as r:
            try:
                return json.load(r)
            except ValueError:
                sys.exit(f"nat64ctl: {url} answered {r.headers.get('Content-Type') or 'something'}, not JSON: "
                         f"is --url the API (…/onos/nat64fabric)?")
    except urllib.error.HTTPError as e:
        if e.code == 401:
            tried = ("with --user" if args.user else f"with the credentials in {args.credentials}" if user
                     else f"without credentials (no --user, and no file {args.credentials})")
            sys.exit(f"nat64ctl: 401 from {url} {tried}: give the controller's STATE/rest-credentials with "
                     "--credentials FILE, or --user USER:PASSWORD")
        try:
            err = json.load(e)
        except ValueError:
            err = None
        if isinstance(err, dict) and err.get("message"):
            field = f"{err['field']}: " if err.get("field") else ""
            sys.exit(f"nat64ctl: {e.code}: {field}{err['message']}")
        hint = " (is --url the API, …/onos/nat64fabric?)" if e.code == 404 else ""
        sys.exit(f"nat64ctl: {e.code} {e.reason} from {url}{hint}")
    except urllib.error.URLError as e:
        if isinstance(e.reason, ssl.SSLCertVerificationError):
            sys.exit(f"nat64ctl: {args.url}: the controller's certificate is not trusted ({e.reason.verify_message}): "
                     "give the CA that issued it with --cacert FILE")
        if isinstance(e.reason, ssl.SSLError):
            sys.exit(f"nat64ctl: {args.url}: TLS failed ({e.reason.reason or e.reason}): does the controller serve "
                     "HTTPS there (--rest-tls-cert)? Use http:// if it does not")
        sys.exit(f"nat64ctl: cannot reach {args.url} ({e.reason}): is the controller running? "
                 "Set NAT64FABRIC_URL or --url.")
    except ValueError as e:   # a URL urllib cannot use: no scheme, a bad port
        sys.exit(f"nat64ctl: --url {args.url}: {e} (as in {DEFAULT_URL})")
    except TimeoutError:
        sys.exit(f"nat64ctl: no answer from {args.url} in 30 s: is the controller busy or stopped?")
    except (ConnectionError, http.client.HTTPException) as e:
        https = " (it serves HTTPS when started with --rest-tls-cert: use https://)" if args.url.startswith("http:") else ""
        sys.exit(f"nat64ctl: the connection to {args.url} broke ({e.__class__.__name__}: {e}): "
                 f"was the controller restarted? Try again{https}.")


def table(rows, columns):
    """Rows of dicts as aligned columns, with a header."""
    if not rows:
        print("(none)")
        return
    cells = [[str(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip())
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())


def sessions(args):
    rows = call(args, "GET", "/sessions", query={"protocol": args.protocol, "ipv6Address": args.ipv6,
                                                  "ipv4Address": args.ipv4, "remote": args.remote})["sessions"]
    for r in rows:
        r["ipv6"] = f"[{r['ipv6Address']}]:{r['ipv6Port']}"
        r["ipv4"] = f"{r['ipv4Address']}:{r['ipv4Port']}"
        r["remote"] = f"{r['remoteIpv4Address']}:{r['remotePort']}"
        r["state"] = r.get("tcpState", "-")
        r["lifetime"] = f"{r['lifetimeSeconds']} s"
    table(rows, ["protocol", "ipv6", "ipv4", "remote", "state", "lifetime"])


def bib(args):
    if args.action == "add":
        if len(args.fields) != 5:
            usage("bib add PROTOCOL IPV6 PORT IPV4 PORT", args.fields)
        p, a6, p6, a4, p4 = args.fields
        r = call(args, "POST", "/bib", body={"protocol": p, "ipv6Address": a6, "ipv6Port": _int(p6, "ipv6Port"),
                                             "ipv4Address": a4, "ipv4Port": _int(p4, "ipv4Port")})
        print(f"added {r['protocol']} [{r['ipv6Address']}]:{r['ipv6Port']} = {r['ipv4Address']}:{r['ipv4Port']}")
        return
    if args.action == "remove":
        if len(args.fields) != 3:
            usage("bib remove PROTOCOL IPV6 PORT", args.fields)
        p, a6, p6 = args.fields
        r = call(args, "DELETE", f"/bib/{urllib.parse.quote(p)}/{urllib.parse.quote(a6)}/{urllib.parse.quote(p6)}")
        print(f"removed {r['protocol']} [{r['ipv6Address']}]:{r['ipv6Port']} = {r['ipv4Address']}:{r['ipv4Port']}")
        return
    if args.fields:
        usage("bib list", args.fields)
    rows = call(args, "GET", "/bib", query={"protocol": args.protocol,
                                            "static": "true" if args.static else None})["bib"]
    for r in rows:
        r["ipv6"] = f"[{r['ipv6Address']}]:{r['ipv6Port']}"
        r["ipv4"] = f"{r['ipv4Address']}:{r['ipv4Port']}"
        r["kind"] = "static" if r["static"] else "dynamic"
    table(rows, ["protocol", "ipv6", "ipv4", "kind"])


def eamt(args):
    if args.action == "add":
        if len(args.fields) != 2:
            usage("eamt add IPV6_PREFIX IPV4_PREFIX", args.fields)
        r = call(args, "POST", "/eamt", body={"ipv6Prefix": args.fields[0], "ipv4Prefix": args.fields[1]})
        print(f"added {r['ipv6Prefix']} = {r['ipv4Prefix']}")
        return
    if args.action == "remove":
        if len(args.fields) != 1:
            usage("eamt remove IPV4_PREFIX", args.fields)
        r = call(args, "DELETE", "/eamt", query={"ipv4Prefix": args.fields[0]})
        print(f"removed {r['ipv6Prefix']} = {r['ipv4Prefix']}")
        return
    if args.fields:
        usage("eamt list", args.fields)
    table(call(args, "GET", "/eamt")["eamt"], ["ipv6Prefix", "ipv4Prefix"])


def pools(args):
    p = call(args, "GET", "/pools")
    print(f"pool6  {p['pool6']}")
    p4 = p["pool4"]
    print(f"pool4  {', '.join(p4['addresses'])}  tcp {p4['tcpPorts'][0]}-{p4['tcpPorts'][1]}"
          f"  udp {p4['udpPorts'][0]}-{p4['udpPorts'][1]}  icmp {p4['icmpPorts'][0]}-{p4['icmpPorts'][1]}"
          f"  blocks of {p4['blockSize']}, {p4['blocksPerSubscriber']} per subscriber")
    print("port blocks in use:")
    table(p["blocks"], ["protocol", "ipv4Address", "firstPort", "lastPort", "subscriber"])


def stats(args):
    """The controller's counters, then the data plane's as a table: a row per counter, a column per
    switch and one for the fabric's sum, each cell "packets (rate/s)"."""
    counters = call(args, "GET", "/stats")
    # Device ids may hold dots: the longest known id (or "fabric") that starts a key names its switch.
    ids = [d["id"] for d in call(args, "GET", "/devices")["devices"]]
    devices = sorted(ids + ["fabric"], key=len, reverse=True)
    cells, shown = {}, set()       # counter -> {device: text}; the devices that have a counter
    for key, value in counters.items():
        device = next((d for d in devices if key.startswith(f"dataplane.{d}.")), None)
        if device is None:
            print(f"{key:40} {value}")
            continue
        name = key[len(f"dataplane.{device}."):]
        if name.endswith(".bytes"):
            continue
        per_second = name.endswith(".perSecond")
        name = name.removesuffix(".perSecond")
        before = cells.setdefault(name, {}).get(device, "")
        cells[name][device] = f"{before} ({value}/s)" if per_second else f"{value}{before}"
        shown.add(device)
    if cells:
        columns = [d for d in ids if d in shown] + ["fabric"]
        print("\ndata plane, as last polled: packets (per second since the poll before)")
        table([{"counter": name, **by_device} for name, by_device in sorted(cells.items())], ["counter", *columns])


def devices(args):
    table(call(args, "GET", "/devices")["devices"], ["id", "role", "connected", "entries"])


def usage(form, given):
    """A command with the wrong number of words: exit 2, as argparse's own usage errors do."""
    words = form.split()
    sys.stderr.write(f"usage: nat64ctl {form}\nnat64ctl: error: {' '.join(words[:2])} takes {len(words) - 2} "
                     f"arguments, {len(given)} given\n")
    sys.exit(2)


def _int(text, field):
    """A decimal number as written: ASCII digits only (int() would take '8_0' or other scripts' digits)."""
    if not (text.isascii() and text.isdigit()):
        sys.exit(f"nat64ctl: {field}: '{text}' is not a number")
    return int(text)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="nat64ctl", description="Manage the NAT64 fabric's mappings.")
    ap.add_argument("--url", default=os.environ.get("NAT64FABRIC_URL", DEFAULT_URL),
                    help="the REST API (env NAT64FABRIC_URL)")
    ap.add_argument("--user", default=os.environ.get("NAT64FABRIC_USER"),
                    help="USER:PASSWORD, as ONOS needs (env NAT64FABRIC_USER)")
    ap.add_argument("--credentials", default=os.environ.get("NAT64FABRIC_CREDENTIALS", DEFAULT_CREDENTIALS),
                    help="the embedded controller's credentials file, STATE/rest-credentials "
                         "(env NAT64FABRIC_CREDENTIALS)")
    ap.add_argument("--cacert", help="trust this CA certificate (PEM) for an HTTPS API")
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sessions", help="list sessions, with filters")
    s.add_argument("--protocol")
    s.add_argument("--ipv6")
    s.add_argument("--ipv4")
    s.add_argument("--remote")
    s.set_defaults(run=sessions)
    b = sub.add_parser("bib", help="list, add or remove BIB entries (static ones: port forwarding)")
    b.add_argument("action", nargs="?", choices=["list", "add", "remove"], default="list")
    b.add_argument("fields", nargs="*")
    b.add_argument("--protocol")
    b.add_argument("--static", action="store_true")
    b.set_defaults(run=bib)
    e = sub.add_parser("eamt", help="list, add or remove EAMs (RFC 7757)")
    e.add_argument("action", nargs="?", choices=["list", "add", "remove"], default="list")
    e.add_argument("fields", nargs="*")
    e.set_defaults(run=eamt)
    for name, fn, text in (("pools", pools, "pool6, pool4 and the port blocks in use"),
                           ("stats", stats, "counters"), ("devices", devices, "switches")):
        sub.add_parser(name, help=text).set_defaults(run=fn)
    args = ap.parse_args(argv)
    try:
        args.run(args)
    except (KeyError, TypeError) as e:   # a JSON answer without what this command reads
        sys.exit(f"nat64ctl: the answer from {args.url} lacks what this command reads ({e}): is --url this "
                 "fabric's API?")


if __name__ == "__main__":
    main()
