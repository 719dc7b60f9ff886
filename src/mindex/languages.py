"""The languages mindex parses with tree-sitter: one row each.

A row names the grammar wheel's module and function, the file names it claims, and the node
types that define something (function, class, ...), mapped to the symbol kind they define.
Adding a language is adding a row (and `pip install tree-sitter-<lang>`); a language without
definitions still gets structure-aware chunking. Any other text file is chunked as plain text.
Its references (calls, imports, base classes) come from `parse/queries/<name>.scm`, a
tree-sitter query file; without one the language has symbols but no graph edges.
"""

from __future__ import annotations

import importlib
import re
import warnings
from dataclasses import dataclass, field
from functools import cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Language


@dataclass(frozen=True)
class Lang:
    """One tree-sitter language: where its grammar is, which files are its, what defines."""

    name: str
    module: str
    suffixes: tuple[str, ...]
    definitions: dict[str, str] = field(default_factory=dict)
    function: str = "language"
    filenames: tuple[str, ...] = ()
    # Where a definition's name is, for node types whose name the generic lookup misses: a
    # path of steps separated by `/`, each a field name, `=type` (the first child of that
    # type) or `**type` (the first descendant of that type). A node whose path leads nowhere
    # defines nothing.
    names: dict[str, str] = field(default_factory=dict)
    # Only the `<script>` blocks are code (Vue and Svelte components): every other byte is
    # parsed as a space, so lines and offsets stay those of the file.
    script_only: bool = False


_C_LIKE = {"function_definition": "function", "struct_specifier": "struct", "enum_specifier": "enum",
           "union_specifier": "union", "type_definition": "type", "preproc_def": "constant"}
_JS = {"function_declaration": "function", "generator_function_declaration": "function",
       "class_declaration": "class", "method_definition": "method",
       # a statement that binds a function (`const f = () => ...`, `exports.f = function`)
       "lexical_declaration": "function", "variable_declaration": "function", "expression_statement": "function",
       "field_definition": "method", "public_field_definition": "method"}
_TS = {**_JS, "abstract_class_declaration": "class", "interface_declaration": "interface",
       "type_alias_declaration": "type", "enum_declaration": "enum", "internal_module": "module"}

LANGUAGES: tuple[Lang, ...] = (
    Lang("python", "tree_sitter_python", (".py", ".pyi", ".pyw"),
         {"function_definition": "function", "class_definition": "class"}),
    Lang("javascript", "tree_sitter_javascript", (".js", ".mjs", ".cjs", ".jsx"), _JS),
    Lang("typescript", "tree_sitter_typescript", (".ts", ".mts", ".cts"), _TS, "language_typescript"),
    Lang("tsx", "tree_sitter_typescript", (".tsx",), _TS, "language_tsx"),
    Lang("go", "tree_sitter_go", (".go",),
         {"function_declaration": "function", "method_declaration": "method", "type_spec": "type",
          "const_spec": "constant"}),
    Lang("rust", "tree_sitter_rust", (".rs",),
         {"function_item": "function", "struct_item": "struct", "enum_item": "enum", "trait_item": "interface",
          "impl_item": "impl", "mod_item": "module", "type_item": "type", "macro_definition": "macro",
          "const_item": "constant", "static_item": "constant"}),
    Lang("java", "tree_sitter_java", (".java",),
         {"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
          "record_declaration": "class", "method_declaration": "method", "constructor_declaration": "method"}),
    Lang("kotlin", "tree_sitter_kotlin", (".kt", ".kts"),
         {"class_declaration": "class", "object_declaration": "class", "function_declaration": "function"}),
    Lang("c", "tree_sitter_c", (".c", ".h"), _C_LIKE),
    Lang("cpp", "tree_sitter_cpp", (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp"),
         {**_C_LIKE, "class_specifier": "class", "namespace_definition": "module"}),
    Lang("csharp", "tree_sitter_c_sharp", (".cs",),
         {"class_declaration": "class", "interface_declaration": "interface", "struct_declaration": "struct",
          "enum_declaration": "enum", "record_declaration": "class", "method_declaration": "method",
          "constructor_declaration": "method", "namespace_declaration": "module",
          "file_scoped_namespace_declaration": "module"}),
    Lang("ruby", "tree_sitter_ruby", (".rb", ".rake", ".gemspec"),
         {"method": "method", "singleton_method": "method", "class": "class", "module": "module"},
         filenames=("Rakefile", "Gemfile")),
    Lang("php", "tree_sitter_php", (".php",),
         {"function_definition": "function", "method_declaration": "method", "class_declaration": "class",
          "interface_declaration": "interface", "trait_declaration": "interface"}, "language_php"),
    Lang("swift", "tree_sitter_swift", (".swift",),
         {"function_declaration": "function", "class_declaration": "class", "protocol_declaration": "interface"}),
    Lang("scala", "tree_sitter_scala", (".scala", ".sc"),
         {"function_definition": "function", "function_declaration": "function", "class_definition": "class",
          "object_definition": "class", "trait_definition": "interface", "enum_definition": "enum"}),
    Lang("bash", "tree_sitter_bash", (".sh", ".bash", ".zsh"), {"function_definition": "function"}),
    Lang("lua", "tree_sitter_lua", (".lua",), {"function_declaration": "function"},
         names={"function_declaration": "name"}),
    Lang("haskell", "tree_sitter_haskell", (".hs",),
         {"function": "function", "signature": "function", "bind": "function", "data_type": "type", "newtype": "type",
          "type_synonym": "type", "class": "interface", "instance": "impl"},
         names={"function": "name", "signature": "name", "bind": "name", "data_type": "name", "newtype": "name",
                "type_synonym": "name", "class": "name", "instance": "name"}),
    # Elixir defines by calling `def`, `defmodule`, ...: which calls define is read in parse/code.py
    Lang("elixir", "tree_sitter_elixir", (".ex", ".exs"), {"call": "function"}),
    Lang("zig", "tree_sitter_zig", (".zig",), {"function_declaration": "function", "variable_declaration": "struct"}),
    Lang("ocaml", "tree_sitter_ocaml", (".ml",),
         {"value_definition": "function", "type_definition": "type", "module_definition": "module"}, "language_ocaml",
         names={"value_definition": "=let_binding/pattern", "type_definition": "=type_binding/name",
                "module_definition": "=module_binding/=module_name"}),
    Lang("dart", "tree_sitter_dart", (".dart",), {"class_definition": "class", "function_signature": "function",
                                                  # a named constructor, `User.fromJson(...)` (parse/code.py)
                                                  "constructor_signature": "method", "constant_constructor_signature": "method",
                                                  "factory_constructor_signature": "method"}),
    Lang("julia", "tree_sitter_julia", (".jl",),
         {"function_definition": "function", "struct_definition": "struct", "module_definition": "module",
          "abstract_definition": "type", "macro_definition": "macro"},
         names={"function_definition": "=signature/**identifier", "macro_definition": "=signature/**identifier",
                "struct_definition": "=type_head/**identifier", "abstract_definition": "=type_head/**identifier"}),
    Lang("groovy", "tree_sitter_groovy", (".groovy", ".gvy", ".gradle"),
         {"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
          "method_declaration": "method", "constructor_declaration": "method", "function_definition": "function"},
         filenames=("Jenkinsfile",)),
    Lang("matlab", "tree_sitter_matlab", (".m",),
         {"function_definition": "function", "class_definition": "class"}),
    # A `.m` file is MATLAB unless it reads as Objective-C (see `language_for`).
    Lang("objc", "tree_sitter_objc", (".mm",),
         {"class_interface": "class", "class_implementation": "impl", "protocol_declaration": "interface",
          "method_declaration": "method", "method_definition": "method", **_C_LIKE}),
    Lang("powershell", "tree_sitter_powershell", (".ps1", ".psm1"),
         {"function_statement": "function", "class_statement": "class", "class_method_definition": "method"},
         names={"function_statement": "=function_name", "class_statement": "=simple_name",
                "class_method_definition": "=simple_name"}),
    Lang("perl", "tree_sitter_perl", (".pl", ".pm", ".t"),  # `.t`: a Perl test script (`t/basic.t`)
         {"subroutine_declaration_statement": "function", "package_statement": "module"}),
    Lang("solidity", "tree_sitter_solidity", (".sol",),
         {"contract_declaration": "class", "interface_declaration": "interface", "library_declaration": "module",
          "function_definition": "function", "modifier_definition": "function", "struct_declaration": "struct",
          "enum_declaration": "enum", "event_definition": "type"}),
    # Metal's shading language is C++14 with attributes: the C++ grammar reads its definitions.
    Lang("metal", "tree_sitter_cpp", (".metal",), {**_C_LIKE, "class_specifier": "class"}),
    # Single-file components: their `<script>` is TypeScript (or JavaScript, which it reads);
    # the markup and styles around it are kept in the chunks but parsed as blank (`script_only`).
    Lang("vue", "tree_sitter_typescript", (".vue",), _TS, "language_typescript", script_only=True),
    Lang("svelte", "tree_sitter_typescript", (".svelte",), _TS, "language_typescript", script_only=True),
    Lang("html", "tree_sitter_html", (".html", ".htm")),
    Lang("css", "tree_sitter_css", (".css",)),
    Lang("scss", "tree_sitter_scss", (".scss",), {"mixin_statement": "macro", "function_statement": "function"}),
    Lang("jinja", "tree_sitter_jinja", (".j2", ".jinja", ".jinja2"), {"jinja_macro": "macro"}),
    Lang("sql", "tree_sitter_sql", (".sql",)),
    Lang("hcl", "tree_sitter_hcl", (".hcl", ".tf", ".tfvars")),
    Lang("yaml", "tree_sitter_yaml", (".yaml", ".yml")),
    Lang("toml", "tree_sitter_toml", (".toml",)),
    Lang("json", "tree_sitter_json", (".json", ".jsonc")),
    Lang("make", "tree_sitter_make", (".mk",),
         {"rule": "rule", "variable_assignment": "variable", "define_directive": "macro"},
         filenames=("Makefile", "makefile", "GNUmakefile"),
         names={"rule": "=targets/=word", "variable_assignment": "name", "define_directive": "name"}),
    Lang("markdown", "tree_sitter_markdown", (".md", ".markdown")),
)

BY_NAME = {lang.name: lang for lang in LANGUAGES}
# Files a code source reads as a docs source would (README.md, docs/*.rst, *.adoc, notes.txt; HTML
# stays code: templates, components), and the language each is recorded in (`PROSE`): chunked by
# heading, ranked as docs, and `--kind docs`. A file of no known language (LICENSE, tox.ini,
# .gitignore) is "text", and not prose.
PROSE_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".mdx": "mdx", ".rst": "rst", ".txt": "plaintext",
                  ".adoc": "asciidoc", ".asciidoc": "asciidoc", ".org": "org", ".rdoc": "rdoc", ".pod": "pod",
                  ".texi": "texinfo", ".texinfo": "texinfo", ".txi": "texinfo",
                  **dict.fromkeys((".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", ".man", ".mdoc"), "man")}
PROSE = frozenset(PROSE_SUFFIXES.values())
# A line that opens or closes an AsciiDoc delimited block (listing `----`, literal `....`,
# passthrough `++++`, comment `////`, example `====`, sidebar `****`, quote `____`, `~~~~`,
# table `|===`, open `--`): no title inside one is a heading, in a page or a changelog.
ASCIIDOC_BLOCK = re.compile(r"^(-{4,}|\.{4,}|\+{4,}|/{4,}|={4,}|\*{4,}|_{4,}|~{4,}|\|={3,}|-{2})[ \t]*$")
# Languages whose code is JavaScript or TypeScript (exports, `const` definitions, imports by path)
SCRIPTS = frozenset({"javascript", "typescript", "tsx", "vue", "svelte"})
# Python's builtin classes: what an annotation naming one, or a call of one (`str(x)`), gives a
# name; a call on it reaches nothing in an index (`mindex.parse.refs`, `mindex.graph_holds`).
PYTHON_BUILTIN_CLASSES = frozenset({"dict", "list", "set", "frozenset", "tuple", "str", "bytes", "bytearray", "int",
                                    "float"})
# Languages that choose among methods of one name by the number of arguments: a call's
# reference keeps its argument count (`mindex.parse.refs`), which the code graph matches.
OVERLOADED = frozenset({"java", "groovy", "csharp", "kotlin", "cpp"})
_BY_SUFFIX = {suffix: lang for lang in LANGUAGES for suffix in lang.suffixes}
_BY_FILENAME = {name: lang for lang in LANGUAGES for name in lang.filenames}


_OBJC = re.compile(r"^\s*(?:#import\b|@(?:interface|implementation|protocol)\b)", re.MULTILINE)
# What only C++ writes at a line's start: a class, a namespace, a template, an access label.
_CPP = re.compile(r"^[ \t]*(?:class[ \t]+\w|namespace[ \t]+\w|template[ \t]*<|(?:public|private|protected)[ \t]*:)",
                  re.MULTILINE)


def language_for(path: str, text: str | None = None) -> Lang | None:
    """The language of a file, by its name first, then by its suffix (case-insensitive); a
    `.m` file (else MATLAB) or a `.h` header (else C) whose `text` imports or declares as
    Objective-C does is that, and a `.h` header that declares as only C++ does (a class, a
    namespace, a template) is C++."""
    name = PurePosixPath(path).name
    suffix = PurePosixPath(name.lower()).suffix
    found = _BY_FILENAME.get(name) or _BY_SUFFIX.get(suffix)
    if found is not None and (found.name == "matlab" or suffix == ".h") and text is not None \
            and _OBJC.search(text[:20_000]):
        return BY_NAME["objc"]
    if suffix == ".h" and text is not None and _CPP.search(text[:200_000]):  # past a long licence and includes
        return BY_NAME["cpp"]
    return found


@cache
def grammar(name: str) -> Language | None:
    """The loaded tree-sitter grammar of a language, or None when its wheel is not installed."""
    from tree_sitter import Language

    lang = BY_NAME[name]
    try:
        module = importlib.import_module(lang.module)
    except ImportError:
        return None
    with warnings.catch_warnings():  # older wheels (perl, scss, solidity) hand over an address, not a capsule
        warnings.filterwarnings("ignore", "int argument support is deprecated", DeprecationWarning)
        return Language(getattr(module, lang.function)())
