"""A listening socket for the HTTP servers (MCP, the web UI), bound before the server starts
so that a port in use or a host that does not resolve is a clear error, not uvicorn's exit."""

from __future__ import annotations

from typing import Any

from mindex.errors import ConfigError


def bound_socket(host: str, port: int, shown: str) -> Any:
    """A socket bound to host:port for the server, or a ConfigError saying why not (uvicorn's
    own attempt logs the errno and exits with 3, with no JSON for `--json`)."""
    import socket

    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise ConfigError(f"cannot listen on {shown}: {exc.strerror}; give --host an address or a name this "
                          "machine resolves") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {shown}:{port}: {exc.strerror}; pick another --port, or stop "
                          "what holds that one") from None
    return sock
