from __future__ import annotations

from pathlib import Path

from mindex.parse.html import parse_html
from mindex.parse.markdown import heading_text, parse_markdown, parse_mdx, split_front_matter
from mindex.parse.rst import parse_rst
from mindex.parse.text import parse_text

FIXTURES = Path(__file__).parent / "fixtures" / "docs"


def read(rel: str) -> str:
    return (FIXTURES / rel).read_text(encoding="utf-8")


def test_markdown_front_matter_becomes_metadata_and_title() -> None:
    parsed = parse_markdown(read("guide/retries.md"), "guide/retries.md")
    assert parsed.title == "Configuring retries"
    assert parsed.metadata == {"title": "Configuring retries", "tags": ["http", "resilience"], "version": 2}


def test_markdown_headings_inside_fenced_code_are_not_sections() -> None:
    parsed = parse_markdown(read("guide/retries.md"), "guide/retries.md")
    paths = [s.heading_path for s in parsed.sections]
    assert paths == [
        ("Retries",),
        ("Retries", "Configuring retries"),
        ("Retries", "Backoff"),
        ("Retries", "Timeouts"),  # a setext heading
    ]


def test_a_markdown_heading_is_named_as_it_reads_and_its_line_kept_as_written() -> None:
    r"""anyhow's README opens with `# Anyhow&ensp;¯\\\_(°ペ)\_/¯`: the context said so, entity and
    escapes and all. Links, images and tags read as their text, entities and escapes as their
    characters; code spans stay as written, and so does the section's own heading line."""
    text = (r"# Anyhow&ensp;¯\\\_(°ペ)\_/¯" "\n\nIntro.\n\n## [1.2.0](https://example.com/v1.2.0) - 2023-01-05\n\nFixed.\n\n"
            r"## The `a\_b` &amp; <code>c</code> option" "\n\nText.\n\n![logo](logo.png) Setext &copy;\n---\n\nMore.\n")
    sections = parse_markdown(text, "README.md").sections
    title = r"Anyhow ¯\_(°ペ)_/¯"
    assert [s.heading_path for s in sections] == [
        (title,), (title, "1.2.0 - 2023-01-05"), (title, r"The `a\_b` & c option"), (title, "logo Setext ©")]
    assert sections[0].text.startswith(r"# Anyhow&ensp;¯\\\_(°ペ)\_/¯")
    assert sections[1].text.startswith("## [1.2.0](https://example.com/v1.2.0)")


def test_a_heading_of_thousands_of_backticks_or_brackets_is_read_in_one_pass() -> None:
    r"""A heading line is untrusted text: its code spans are paired in one pass over the runs
    of backticks, and no link or tag can run past a bracket it does not take (a regex that
    backtracked took 9.5 s on 10,000 backticks). A link's text may hold a code span; an
    escaped backtick opens none."""
    assert heading_text("`" * 20_000) == "`" * 20_000
    assert heading_text("`a" * 10_000) == "`a" * 10_000
    assert heading_text("[" * 20_000 + "x](u)") == "[" * 19_999 + "x"
    assert heading_text("<a" * 20_000) == "<a" * 20_000
    assert heading_text("`a`" * 10_000 + "<b>") == "`a`" * 10_000
    assert heading_text("[`Object.hasOwn`](https://v8.dev/features/object-has-own) lands") == "`Object.hasOwn` lands"
    assert heading_text("`[a](b)` stays") == "`[a](b)` stays"
    assert heading_text(r"\`a\` b") == "`a` b"


def test_markdown_section_start_lines_count_front_matter() -> None:
    text = read("guide/retries.md")
    lines = text.split("\n")
    for section in parse_markdown(text, "guide/retries.md").sections:
        assert section.start_line is not None
        assert lines[section.start_line - 1] == section.text.split("\n")[0]


def test_invalid_front_matter_is_reported_and_the_body_kept() -> None:
    meta, body, consumed = split_front_matter("---\ntitle: [unclosed\n---\n# Body\n")
    assert "invalid YAML front-matter" in meta["front_matter_error"]
    assert body == "# Body\n"
    assert consumed == 3


def test_front_matter_that_is_not_a_mapping_is_reported() -> None:
    meta, body, _ = split_front_matter("---\n- a\n- b\n---\ntext")
    assert meta == {"front_matter_error": "front-matter is not a mapping"}
    assert body == "text"


def test_mdx_imports_and_exports_are_dropped() -> None:
    parsed = parse_mdx(read("guide/install.mdx"), "guide/install.mdx")
    text = "\n".join(s.text for s in parsed.sections)
    assert "import Tabs" not in text and "export const" not in text
    assert parsed.sections[0].heading_path == ("Installation",)
    assert parsed.sections[0].start_line == 4


def test_html_drops_navigation_and_footer_and_keeps_code() -> None:
    parsed = parse_html(read("reference/api.html"), "reference/api.html")
    text = "\n".join(s.text for s in parsed.sections)
    assert parsed.title == "API reference"
    assert "Sidebar navigation" not in text and "Copyright footer" not in text
    assert "```" in text and 'client = Client(base_url="https://api.example.org")' in text


def test_html_sections_report_original_file_lines() -> None:
    source = read("reference/api.html")
    lines = source.split("\n")
    parsed = parse_html(source, "reference/api.html")
    by_heading = {s.heading_path[-1]: s for s in parsed.sections}
    session = by_heading["Session.send"]
    assert session.start_line is not None and "Session.send" in lines[session.start_line - 1]
    assert session.line_map is not None
    assert "TransportError" in lines[session.line_map[-1][1] - 1]


def test_broken_html_still_parses() -> None:
    parsed = parse_html("<html><body><h1>Title<p>Unclosed <b>bold <div>text", "broken.html")
    assert "Unclosed" in "\n".join(s.text for s in parsed.sections)


def test_rst_levels_follow_adornment_order() -> None:
    parsed = parse_rst(read("reference/cli.rst"), "reference/cli.rst")
    assert parsed.title == "Command line"
    assert parsed.metadata == {"author": "Acme docs team"}
    paths = [s.heading_path for s in parsed.sections if s.heading_path]
    assert paths == [
        ("Command line",),
        ("Command line", "Global options"),
        ("Command line", "Global options", "Subcommands"),
        ("Command line", "Environment"),
    ]


def test_plain_text_is_one_section_titled_by_its_first_line() -> None:
    parsed = parse_text(read("reference/changelog.txt"), "reference/changelog.txt")
    assert parsed.title == "Acme HTTP changelog"
    assert len(parsed.sections) == 1 and parsed.sections[0].start_line == 1


def test_a_page_nested_deeper_than_the_converter_follows_keeps_its_text() -> None:
    """The HTML converter silently drops the text of elements nested more than about 1,020
    deep; such a page is read as plain text instead, and ordinary pages (unclosed <p> and
    <li> included) still convert with their headings."""
    from mindex.parse.html import MAX_DEPTH, nesting_depth

    deep = "<html><body><h1>Deep</h1>" + "<div>" * 2_000 + "the buried walrus" + "</div>" * 2_000 + "</body></html>"
    assert nesting_depth(deep) == 2_002 > MAX_DEPTH
    parsed = parse_html(deep, "deep.html")
    assert "buried walrus" in " ".join(s.text for s in parsed.sections)
    sloppy = "<html><body><h1>List</h1><ul>" + "<li><p>item <br>" * 3_000 + "</ul><h2>After</h2><p>end</body></html>"
    assert nesting_depth(sloppy) < 10
    assert ("List", "After") in [s.heading_path for s in parse_html(sloppy, "list.html").sections]


def test_kotlin_swift_and_dart_signatures_hold_their_parameters() -> None:
    """Their grammars name no `parameters` field: a Kotlin method's signature was its bare name
    (`go`), so outlines showed no parameters and overloads could not be told apart."""
    from mindex.languages import language_for
    from mindex.parse.code import definitions, parse_tree

    samples = {
        "a.kt": ("class A(val c: Client) {\n  fun go(x: Int, y: String = \"\"): Int { return 1 }\n}\n",
                 [("A", "A(val c: Client)"), ("go", 'go(x: Int, y: String = "")')]),
        "a.swift": ("class A {\n  func go(x: Int, y: String) -> Int { return 1 }\n}\n",
                    [("A", "A"), ("go", "go(x: Int, y: String)")]),
        "a.dart": ("class A {\n  int go(int x, String y) { return 1; }\n}\n", [("A", "A"), ("go", "go(int x, String y)")]),
    }
    for path, (text, expected) in samples.items():
        lang = language_for(path, text)
        assert lang is not None
        tree = parse_tree(text.encode(), lang, 5)
        assert [(d.name, d.signature) for d in definitions(tree)] == expected, path


def test_elixir_defines_by_calling_def_and_defmodule() -> None:
    """Elixir was one of the languages without definitions (its `def` and `defmodule` are
    calls): plug's `Plug.Conn.send_resp` could not be found by name, and a function's `@doc`
    was a chunk apart from it."""
    from mindex.languages import language_for
    from mindex.parse.cast import chunk_code
    from mindex.parse.code import definitions, parse_tree

    text = (
        "defmodule MyApp.Accounts do\n  @moduledoc \"Users.\"\n  alias MyApp.Repo\n\n"
        "  @doc \"\"\"\n  Lists users.\n  \"\"\"\n  def list_users(opts \\\\ []) do\n    Repo.all(User)\n  end\n\n"
        "  defp hidden(z), do: z\n  def guarded(x) when is_integer(x), do: x\nend\n")
    lang = language_for("accounts.ex", text)
    assert lang is not None
    tree = parse_tree(text.encode(), lang, 5)
    assert [(d.qualname, d.kind, d.start_line, d.signature, d.exported) for d in definitions(tree)] == [
        ("MyApp.Accounts", "module", 1, "MyApp.Accounts", True),
        ("MyApp.Accounts.list_users", "function", 8, "list_users(opts \\\\ [])", True),
        ("MyApp.Accounts.hidden", "function", 12, "hidden(z)", False),
        ("MyApp.Accounts.guarded", "function", 13, "guarded(x)", True)]
    (documented,) = [c for c in chunk_code(text, tree, 200) if c.symbol == "MyApp.Accounts.list_users"]
    assert documented.start_line == 5 and documented.text.lstrip().startswith('@doc """')
