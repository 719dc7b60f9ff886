"""Operations on the registered sources: list them, with their files on request."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from mindex.ops import Operation, Param

if TYPE_CHECKING:
    from mindex.engine import Engine
    from mindex.models import SourceStats


class FileRow(NamedTuple):
    """One indexed file of a source."""

    path: str
    language: str | None
    size: int
    chunks: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "language": self.language, "size": self.size, "chunks": self.chunks}


class Listing(NamedTuple):
    """The sources (one, when a source was named) and, when asked for, each one's files."""

    sources: list[SourceStats]
    files: dict[str, list[FileRow]] | None = None

    def to_dict(self) -> dict[str, Any]:
        listed = []
        for stats in self.sources:
            row = stats.to_dict()
            if self.files is not None:
                row["files"] = [f.to_dict() for f in self.files.get(stats.source.name, [])]
            listed.append(row)
        return {"sources": listed}


def list_sources(index: Engine, files: bool = False, source: str | None = None) -> Listing:
    """The registered sources with their counts; `files` adds each one's indexed files.

    Raises:
        SourceNotFoundError: `source` names no registered source.
    """
    listed = index.sources()
    if source is not None:
        wanted = index.source(source).name
        listed = [s for s in listed if s.source.name == wanted]
    if not files:
        return Listing(listed)
    return Listing(listed, {s.source.name: [FileRow(*row) for row in index.store.document_list(s.source.id or 0)]
                            for s in listed})


class Status(NamedTuple):
    """Where the index is, its size, model and counts, and the files skipped last time."""

    info: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.info


def status(index: Engine) -> Status:
    """The index's status."""
    return Status(index.status())


OPERATIONS = (
    Operation(
        name="sources",
        tool="list_sources",
        help="List registered sources with document and chunk counts; with --files, each source's indexed files.",
        agent_help=("List the sources in the index (name, kind, folder, document and chunk counts). Use it to learn "
                    "what can be searched, or to pick a `source` filter; files=true lists each source's indexed "
                    "files (path, language, size, chunks)."),
        run="mindex.ops.sources:list_sources",
        markdown="mindex.serve.render:listing_markdown",
        text="mindex.serve.render:print_listing",
        schema="mindex.serve.mcp_models:SourcesOut",
        params=(
            Param("files", bool, "Also list each source's indexed files (path, language, size, chunks).",
                  default=False),
            Param("source", str, "Only this source (by name or folder).", default=None,
                  agent_help="only this source (see list_sources)"),
        ),
        examples=("mindex sources", "mindex sources --files --source docs",
                  "mindex sources --json | jq '.sources[] | {name, documents}'"),
    ),
    Operation(
        name="status",
        tool="index_status",
        faces=("cli", "web"),
        help="Show where the index is, its size and counts, and the files skipped last time.",
        agent_help="Where the index is, its size, model and counts, and the files skipped last time.",
        run="mindex.ops.sources:status",
        markdown="mindex.serve.render:status_markdown",
        text="mindex.serve.render:print_status_view",
        schema="mindex.serve.mcp_models:SourcesOut",
        params=(Param("skipped", bool, "List every file the last runs skipped, with the reason.", default=False,
                      display=True),),
        examples=("mindex status", "mindex status --skipped", "mindex status --json | jq '.skipped | length'"),
    ),
)
