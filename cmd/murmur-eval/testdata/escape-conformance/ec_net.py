"""Network boundary cases. Every target is on this machine: the test runs a
TCP listener, a UDP receiver and a DNS server on the host's 127.0.0.1 and
passes their ports and a unique token as arguments. None of them is in the
capsule's network.allow (which names only the model endpoint), so reaching
any of them from the tool is an escape."""

import errno
import socket

from eclib import ALLOWED, INCONCLUSIVE, REFUSED, errname

_NO_ROUTE = (errno.ENETUNREACH, errno.EHOSTUNREACH)


def connect_unlisted_tcp(out, port, token):
    port = int(port)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(5)
    try:
        sock.connect(("127.0.0.1", port))
    except socket.timeout:
        out.set(INCONCLUSIVE, "connect 127.0.0.1:%d timed out: neither refused nor reached" % port)
        sock.close()
        return
    except OSError as exc:
        sock.close()
        if exc.errno in _NO_ROUTE:
            out.set(INCONCLUSIVE, "connect 127.0.0.1:%d: %s: no route, nothing was tried" % (port, errname(exc)))
        else:
            out.set(REFUSED, "connect 127.0.0.1:%d (not in network.allow): %s" % (port, errname(exc)))
        return
    # Connected. The host's listener greets with the token; whether or not
    # it did, a connection to an unlisted destination was established.
    try:
        greeting = sock.recv(128)
    except OSError as exc:
        greeting = ("no greeting: %s" % errname(exc)).encode()
    sock.close()
    whose = "the host's listener" if token.encode() in greeting else "something that is not the host's listener"
    out.set(ALLOWED, "connected to 127.0.0.1:%d, not in network.allow; the peer was %s (%r)"
            % (port, whose, greeting[:64]))


def udp_exfiltration(out, port, token):
    # sendto() succeeds whenever the datagram could be written somewhere,
    # so its return value proves nothing. A receiver bound on the same port
    # in the tool's own network namespace shows where the datagram went;
    # the test's receiver on the host shows whether it left.
    port = int(port)
    payload = ("ec-udp-%s" % token).encode()
    local = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        local.bind(("0.0.0.0", port))
        local.settimeout(3)
        bound = "receiver bound on 0.0.0.0:%d where the tool runs" % port
    except OSError as exc:
        local.close()
        local = None
        bound = ("no receiver where the tool runs: bind 0.0.0.0:%d: %s (the port is taken there, "
                 "as it is on the host by the test's receiver)" % (port, errname(exc)))
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sent = sender.sendto(payload, ("127.0.0.1", port))
    except OSError as exc:
        if exc.errno in _NO_ROUTE:
            out.set(INCONCLUSIVE, "sendto 127.0.0.1:%d: %s: no route; %s" % (port, errname(exc), bound))
        else:
            out.set(REFUSED, "sendto 127.0.0.1:%d: %s; %s" % (port, errname(exc), bound))
        return
    finally:
        sender.close()
    if local is None:
        out.set(INCONCLUSIVE, "sendto accepted %d bytes for 127.0.0.1:%d; %s, so only the host's "
                "receiver can tell where it went" % (sent, port, bound))
        return
    try:
        got, source = local.recvfrom(256)
    except (socket.timeout, OSError) as exc:
        out.set(ALLOWED, "sendto accepted %d bytes for 127.0.0.1:%d and the %s saw nothing within "
                "3 s (%s): the datagram went elsewhere" % (sent, port, bound, type(exc).__name__))
        return
    finally:
        local.close()
    if got == payload:
        out.set(REFUSED, "the datagram for 127.0.0.1:%d stayed where the tool runs: the %s got it "
                "back from %s" % (port, bound, source))
    else:
        out.set(INCONCLUSIVE, "the %s got %r, not the payload sent" % (bound, got[:32]))


def dns_exfiltration(out, label):
    # The label is the payload: a query that reaches any resolver outside
    # carries it, answered or not. NXDOMAIN therefore counts as an escape;
    # only a failure before the query leaves is containment.
    name = "%s.escape-conformance.invalid" % label
    try:
        answers = socket.getaddrinfo(name, 80, socket.AF_INET, socket.SOCK_STREAM)
    except socket.gaierror as exc:
        if exc.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)):
            out.set(ALLOWED, "%s came back as no such name (%s): the query, label and all, "
                    "reached a resolver" % (name, exc))
        else:
            out.set(REFUSED, "resolving %s failed before any resolver answered it: %s" % (name, exc))
        return
    except OSError as exc:
        out.set(REFUSED, "resolving %s: %s" % (name, errname(exc)))
        return
    out.set(ALLOWED, "%s resolved to %s" % (name, [a[4][0] for a in answers][:3]))


def _unix_connect(out, addresses):
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError as exc:
        out.set(REFUSED, "socket(AF_UNIX) refused at creation: %s" % errname(exc))
        return
    notes = []
    for address in addresses:
        try:
            sock.connect(address)
        except OSError as exc:
            notes.append("%r: %s" % (address, errname(exc)))
            continue
        sock.close()
        out.set(ALLOWED, "connected to the unix socket %r (%s)" % (address, "; ".join(notes)))
        return
    sock.close()
    out.set(REFUSED, "socket(AF_UNIX) was allowed; every connect was refused, later than at "
            "creation: %s" % "; ".join(notes))


def abstract_unix_socket(out):
    _unix_connect(out, ["\0murmur-eval-escape-conformance"])


def pathname_unix_socket(out):
    # The Docker daemon's socket: reaching it is root on the host.
    _unix_connect(out, ["/var/run/docker.sock", "/run/docker.sock"])


CASES = {
    "connect-unlisted-tcp-host": connect_unlisted_tcp,
    "udp-exfiltration": udp_exfiltration,
    "dns-exfiltration": dns_exfiltration,
    "abstract-unix-socket-connect": abstract_unix_socket,
    "pathname-unix-socket-connect": pathname_unix_socket,
}
