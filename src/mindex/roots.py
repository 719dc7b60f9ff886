"""Where a project's root is, found as git finds its own. Standard library only: the
command's front door (`mindex.serve.front`), which reads no config, and the settings
(`mindex.config.find_project_root`) both use it."""

from __future__ import annotations

import os

STATE_DIR = ".mindex"  # the project's mindex folder: its index, memory, knowledge and config


def project_root(start: str) -> str:
    """The nearest folder above `start` (itself included, links resolved) holding `.mindex`,
    else `.git`, else `start` itself."""
    start = os.path.realpath(start)
    for marker in (STATE_DIR, ".git"):
        here = start
        while True:
            if os.path.exists(os.path.join(here, marker)):
                return here
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
    return start
