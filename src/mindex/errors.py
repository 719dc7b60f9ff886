"""The one error tree of mindex. Every message says what went wrong and what to do next.

    MindexError
    ├── ConfigError                 bad config file, value or flag
    ├── DependencyMissingError      an optional extra is not installed
    ├── StoreError                  the database cannot be used as it is
    │   ├── SchemaTooNewError       written by a newer mindex
    │   ├── ReadOnlyIndexError      a write asked of an index on read-only storage
    │   └── IndexLockedError        another process is writing
    ├── SourceError                 a registered source is wrong
    │   ├── SourceNotFoundError     no source by that name or path
    │   ├── SourceExistsError       already registered
    │   └── SourcePathError         the folder is missing or unreadable
    ├── NotFoundError               no chunk with that id
    ├── EmbeddingMismatchError      vectors were made by another model or dimension
    ├── UnsupportedModeError        a search mode this index cannot serve yet
    ├── GrepTimeoutError            a grep pattern ran past its time limit
    └── RemoteError                 an HTTP service (embedder, reranker) failed
        └── BudgetExceededError     a run reached its request or token budget

The CLI turns each into a clean exit with `exit_code`; the MCP server turns each into a tool
error. Anything else is a bug and stays a traceback.
"""

from __future__ import annotations


class MindexError(Exception):
    """Base of every error mindex raises on purpose."""

    exit_code = 1
    code = "MINDEX_ERROR"


class ConfigError(MindexError):
    """A config file, environment variable or flag holds a value mindex cannot use."""

    code = "CONFIG_ERROR"


# mindex is installed from a checkout (or a wheel built from one), not from a package index:
# what a message tells a user to run must work that way.
UPGRADE_HINT = ("upgrade mindex: `git pull` in its checkout, then install it again as before "
                "(`pip install '.[models]'`, `pipx install --force .` or `uv tool install --force .`)")


def extra_hint(extra: str) -> str:
    """How to add an optional part of mindex (an extra of its package) where it is installed."""
    return (f"install mindex again with the `{extra}` extra: `pip install '.[{extra}]'` in its checkout "
            f"(as a tool: `pipx install --force '.[{extra}]'` or `uv tool install --force '.[{extra}]'`)")


class DependencyMissingError(MindexError):
    """An optional dependency is needed; the message names the extra to install."""

    code = "DEPENDENCY_MISSING"

    def __init__(self, module: str, extra: str, purpose: str) -> None:
        super().__init__(f"{purpose} needs the optional module {module!r}; {extra_hint(extra)}")
        self.extra = extra


class StoreError(MindexError):
    """The database cannot be opened or used as it is."""

    code = "STORE_ERROR"


class SchemaTooNewError(StoreError):
    """The database was written by a newer mindex than this one."""

    code = "SCHEMA_TOO_NEW"


class ReadOnlyIndexError(StoreError):
    """A command that writes was given an index whose file or folder cannot be written."""

    code = "INDEX_READ_ONLY"


class IndexLockedError(StoreError):
    """Another process holds the write lock for longer than we were told to wait."""

    exit_code = 4
    code = "INDEX_LOCKED"


class SourceError(MindexError):
    """A source cannot be registered, found or read."""

    code = "SOURCE_ERROR"


class SourceNotFoundError(SourceError):
    """No registered source matches the given name or path."""

    exit_code = 3
    code = "SOURCE_NOT_FOUND"


class SourceExistsError(SourceError):
    """A source with that name or path is already registered."""

    code = "SOURCE_EXISTS"


class SourcePathError(SourceError):
    """A source's folder does not exist, is not a folder, or cannot be read."""

    code = "SOURCE_PATH"


class NotFoundError(MindexError):
    """No chunk or document has the given id."""

    exit_code = 3
    code = "NOT_FOUND"


class GrepTimeoutError(MindexError):
    """A grep pattern ran past its time limit (Python's `re` backtracks: `(a|aa)+$`)."""

    code = "GREP_TIMEOUT"


class EmbeddingMismatchError(MindexError):
    """The index's vectors belong to another embedding model or dimension."""

    code = "EMBEDDING_DIM_MISMATCH"


class UnsupportedModeError(MindexError):
    """The requested search mode needs a part this index does not have yet."""

    code = "MODE_UNAVAILABLE"


class RemoteError(MindexError):
    """An HTTP service answered with an error, too slowly, or not at all (after retries)."""

    code = "REMOTE_ERROR"


class BudgetExceededError(RemoteError):
    """A run stopped at its configured request or token budget; the work done is kept."""

    exit_code = 5
    code = "BUDGET_EXCEEDED"


class MemoryInputError(MindexError):
    """A memory or knowledge entry cannot be saved as given (empty text, unknown type, ...)."""

    code = "MEMORY_INPUT"
    exit_code = 2


class WorkflowInputError(MindexError):
    """A workflow or milestone command was given something it cannot take (unknown phase,
    bad JSON metadata, a workflow in a state that does not allow the change)."""

    code = "WORKFLOW_INPUT"
    exit_code = 2
