"""Which indexed files an import names, by each language's rules (Python packages and
relative imports, JS/TS paths and aliases, Go packages, Rust modules, Java packages, C
includes): the code graph's map of modules."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mindex.graph_types import JS_SUFFIXES, CallRef
from mindex.languages import SCRIPTS

if TYPE_CHECKING:
    from mindex.store.base import Store


class ModuleMap:
    """The code files of an index by (source, path), and the files a module path names."""

    def __init__(self, files: dict[int, tuple[str, str, str | None]], roots: dict[str, str],
                 text: Callable[[int], bytes | None] = lambda doc_id: None) -> None:
        self.files = files
        self._text = text  # a file's indexed text (its package.json, its tsconfig.json)
        self.by_path: dict[tuple[str, str], int] = {(s, p): d for d, (s, p, _) in files.items()}
        self._roots = roots
        self._suffix: dict[str, list[int]] = {}
        self._packages: dict[str, str] = {}
        self._modules: dict[str, list[int]] = {}
        self._workspaces: dict[str, dict[str, tuple[str, dict[str, Any]]]] = {}
        self._tsconfigs: dict[str, list[tuple[str, str, list[str]]]] = {}

    def _ending(self, suffix: str, source: str) -> list[int]:
        key = f"{source}\0{suffix}"
        if key not in self._suffix:
            self._suffix[key] = [d for (s, p), d in self.by_path.items()
                                 if s == source and (p == suffix or p.endswith("/" + suffix))]
        return self._suffix[key]

    def module_files(self, doc_id: int, module: str, name: str = "") -> list[int]:
        """The indexed files an import's module names ([] when it is outside the index)."""
        source, path, language = self.files[doc_id]
        here = posixpath.dirname(path)
        candidates: list[str] = []
        exact = False
        if language == "python":
            dots = len(module) - len(module.lstrip("."))
            rest = module[dots:].replace(".", "/")
            if dots:
                base = here
                for _ in range(dots - 1):
                    base = posixpath.dirname(base)
                stem = posixpath.join(base, rest) if rest else base
                # `from . import f` at a source's top level (a package added as the root): its __init__.py
                candidates, exact = ([f"{stem}.py", f"{stem}/__init__.py"] if stem else ["__init__.py"]), True
            else:
                return self._python_module(source, rest)
        elif language in SCRIPTS:
            if not module.startswith("."):
                return self._aliased_module(source, module)
            stem = posixpath.normpath(posixpath.join(here, module))
            candidates = [stem] + [stem + s for s in JS_SUFFIXES] + [f"{stem}/index{s}" for s in JS_SUFFIXES]
            exact = True
        elif language == "go":
            parts = module.split("/")
            for k in range(len(parts), 0, -1):
                folder = "/".join(parts[-k:])
                found = [d for (s, p), d in self.by_path.items() if s == source and p.endswith(".go")
                         and (posixpath.dirname(p) == folder or posixpath.dirname(p).endswith("/" + folder))]
                if found:
                    return found
            return []
        elif language == "rust":
            relative = self._rust_relative(source, path, module)
            if relative is not None:
                candidates, exact = relative, True
            else:  # another crate's path (or `std::`): the files it names by their last parts
                parts = [p for p in module.split("::") if p not in ("crate", "self", "super", "")]
                if not parts:
                    return []
                stem = "/".join(parts)
                candidates = [f"{stem}.rs", f"{stem}/mod.rs"]
        elif language in ("java", "groovy"):  # Groovy imports Java's classes and its own alike
            stem = module.replace(".", "/")
            if name == "*":
                return [d for (s, p), d in self.by_path.items() if s == source and posixpath.dirname(p).endswith(stem)]
            candidates = [f"{stem}/{name}.java", f"{stem}/{name}.groovy"]
        elif language == "kotlin":  # a package's files, whatever their names
            return self._package_files(source, module.replace(".", "/"), (".kt", ".kts"))
        elif language == "scala":  # a package's files; for `import a.b.O._`, O.scala or else package a.b's
            stem, scala = module.replace(".", "/"), (".scala", ".sc")
            parent = posixpath.dirname(stem)
            return [] if not stem else (self._package_files(source, stem, scala) or self._ending(f"{stem}.scala", source)
                                        or (self._package_files(source, parent, scala) if parent else []))
        elif language == "php":  # `use Vendor\Pkg\Client`: `src/Client.php` under PSR-4, or deeper
            parts = [*module.split("\\"), name]
            for k in range(len(parts), 0, -1):
                if found := self._ending("/".join(parts[-k:]) + ".php", source):
                    return found
            return []
        elif language == "ruby":  # `require_relative` from this file's folder; `require` from a load path
            if module.startswith("."):
                candidates, exact = [posixpath.normpath(posixpath.join(here, module)) + ".rb"], True
            else:
                candidates = [f"{module}.rb"]
        elif language == "elixir":  # `MyApp.Repo` is `lib/my_app/repo.ex` by convention
            stem = "/".join(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", part).lower() for part in module.split("."))
            candidates = [f"{stem}.ex"]
        elif language == "dart":  # `import 'src/x.dart'` beside this file; `package:name/x.dart` in its lib/
            if module.startswith("package:"):
                candidates = ["lib/" + module.split("/", 1)[1]] if "/" in module else []
            else:
                candidates, exact = [posixpath.normpath(posixpath.join(here, module))], True
        elif language == "lua":  # `require("a.b")`: `a/b.lua` or `a/b/init.lua` under a load path (`lua/`)
            stem = module.replace(".", "/")
            candidates = [f"{stem}.lua", f"{stem}/init.lua"]
        elif language == "bash":  # `source ./lib/util.sh` from this file's folder; `"$DIR/util.sh"`: by its tail
            tail = module.rsplit("$", 1)[-1].split("/", 1)[-1] if "$" in module else ""
            if not tail and not module.startswith("/"):
                candidates, exact = [posixpath.normpath(posixpath.join(here, module))], True
            else:
                candidates = [tail or posixpath.basename(module)]
        elif language == "powershell":
            return self._powershell(source, here, module)
        elif language == "julia":  # `include("x.jl")` beside this file; `using .Sub`, `using Kit`: `Sub.jl`, `Kit.jl`
            if module.endswith(".jl"):
                local = posixpath.normpath(posixpath.join(here, module))
                return [self.by_path[(source, local)]] if (source, local) in self.by_path else self._ending(module, source)
            candidates = [module.lstrip(".").rpartition(".")[2] + ".jl"]
        elif language == "zig":  # `@import("a/b.zig")` beside this file; `@import("clap")`: a package's `clap.zig`
            if module.endswith(".zig"):
                candidates, exact = [posixpath.normpath(posixpath.join(here, module))], True
            else:
                candidates = [f"{module}.zig"]
        elif language == "solidity":  # `./x.sol` from this file; `@oz/contracts/a/X.sol` by its tail in the index
            if module.startswith("."):
                candidates, exact = [posixpath.normpath(posixpath.join(here, module))], True
            else:  # a remapped package: its longest tail of two parts or more that some file ends with
                parts = module.split("/")
                return next((found for k in range(len(parts), 1, -1) if (found := self._ending("/".join(parts[-k:]), source))), [])
        elif language == "ocaml":  # `Foo`: foo.ml (or Foo.ml); `Lib.Foo`: a wrapped library's foo.ml, else lib.ml
            for part in reversed(module.split(".")):
                for stem in dict.fromkeys((part[:1].lower() + part[1:], part)):
                    if found := self._ending(f"{stem}.ml", source):
                        return found
            return []
        elif language == "haskell":  # `import Kit.Util`: `src/Kit/Util.hs` (or `.lhs`)
            candidates = [module.replace(".", "/") + ".hs", module.replace(".", "/") + ".lhs"]
        elif language == "perl":  # `use Mojo::Util`: `lib/Mojo/Util.pm`
            candidates = [module.replace("::", "/") + ".pm"]
        elif language in ("c", "cpp", "objc"):
            local = posixpath.normpath(posixpath.join(here, module))
            if (source, local) in self.by_path:
                return [self.by_path[(source, local)]]
            if language == "objc" and "/" in module and not self._ending(module, source):
                return self._ending(posixpath.basename(module), source)  # a framework's `<Mantle/MTLModel.h>`
            candidates = [module]
        found = []
        for candidate in candidates:
            if exact:
                if (source, candidate) in self.by_path:
                    found.append(self.by_path[(source, candidate)])
            else:
                found += self._ending(candidate, source)
        return list(dict.fromkeys(found))

    def _powershell(self, source: str, here: str, module: str) -> list[int]:
        """The files a dot-sourced script or an imported module names: `$PSScriptRoot/lib.ps1`
        (or `./lib.ps1`) from this file's folder, else by its last part; `$Dir/lib.ps1` by its
        tail; `Kit` (a module by name) `Kit.psm1`; a manifest `Kit.psd1` its `Kit.psm1`. Nothing
        for a variable alone (`. $scriptBlock`) or a parameter."""
        if module.startswith("-") or (module.startswith("$") and "/" not in module):
            return []
        stem = module[:-5] + ".psm1" if module.lower().endswith(".psd1") else module
        if not stem.lower().endswith((".ps1", ".psm1")):
            return [] if "/" in stem or "$" in stem else self._ending(f"{stem}.psm1", source)
        if stem.lower().startswith("$psscriptroot/") or stem.startswith("."):
            local = posixpath.normpath(posixpath.join(here, stem.split("/", 1)[1] if stem.startswith("$") else stem))
            if (source, local) in self.by_path:
                return [self.by_path[(source, local)]]
        tail = stem.rsplit("$", 1)[-1].split("/", 1)[-1] if "$" in stem else stem
        while tail.startswith(("../", "./")):
            tail = tail.split("/", 1)[1]
        return self._ending(tail, source) or self._ending(posixpath.basename(tail), source)

    def _package_files(self, source: str, stem: str, suffixes: tuple[str, ...]) -> list[int]:
        """The files with `suffixes` of the package folder `stem` (`a/b`: any folder ending so),
        whatever their names (Kotlin, Scala)."""
        return [d for (s, p), d in self.by_path.items() if s == source and p.endswith(suffixes)
                and (posixpath.dirname(p) == stem or posixpath.dirname(p).endswith("/" + stem))]

    def _rust_relative(self, source: str, path: str, module: str) -> list[str] | None:
        """The files a Rust path from `crate::`, `self::` or `super::` names, from the crate's
        root (the nearest folder above `path` whose `lib.rs` or `main.rs` is indexed): `use
        crate::WalkDir` in `src/tests/recursive.rs` is `src/lib.rs`, `super::util` there
        `src/tests/util.rs`. None for any other path, or a file under no crate root."""
        parts = module.split("::")
        if parts[0] not in ("crate", "self", "super") or (root := self._crate_root(source, path)) is None:
            return None
        here = path[len(root):].lstrip("/").removesuffix(".rs").split("/") if root else path.removesuffix(".rs").split("/")
        if here[-1] in ("mod", "lib", "main"):
            here = here[:-1]  # a folder's `mod.rs` (or the root file) is the folder's module
        if parts[0] == "crate":
            at, rest = [], parts[1:]
        else:
            at, rest = list(here), parts
            while rest and rest[0] in ("self", "super"):
                if rest.pop(0) == "super":
                    if not at:
                        return None
                    at.pop()
        stem = posixpath.join(root, *at, *rest) if at or rest else ""
        if not stem or stem == root:
            return [posixpath.join(root, "lib.rs"), posixpath.join(root, "main.rs")]
        return [f"{stem}.rs", f"{stem}/mod.rs"]

    def _crate_root(self, source: str, path: str) -> str | None:
        """The nearest folder above `path` whose `lib.rs` or `main.rs` is indexed: its crate's
        root ('' at the source's top), None when there is none."""
        folder = posixpath.dirname(path)
        while not any((source, posixpath.join(folder, f)) in self.by_path for f in ("lib.rs", "main.rs")):
            if not folder:
                return None
            folder = posixpath.dirname(folder)
        return folder

    def rust_module_files(self, doc_id: int, receiver: str) -> set[str]:
        """The paths a call's Rust module path may name (`eval::matches_req()`, `eval` being a
        module of the crate, `mod eval;`): `eval.rs` or `eval/mod.rs` beside the calling file
        or in its own folder (`src/foo.rs` declares `src/foo/eval.rs`); `super::` goes up a
        folder, and `crate::` starts at the crate's root (as `use crate::` does; its `src/` when
        no `lib.rs` or `main.rs` is indexed). Empty for no module path."""
        source, path = self.files[doc_id][0], self.files[doc_id][1]
        parts = receiver.split("::")
        here = posixpath.dirname(path)
        # where this module's own modules live: beside lib.rs, main.rs and mod.rs, else in a
        # folder named as the file
        children = here if posixpath.basename(path) in ("lib.rs", "main.rs", "mod.rs") else posixpath.splitext(path)[0]
        folders = [children] if parts[0] in ("self", "super") else [here, children]
        if parts[0] == "crate":
            root = self._crate_root(source, path)
            folders = [root if root is not None else path[:path.index("src/") + 3] if "src/" in path else ""]
        while parts and parts[0] in ("crate", "self", "super"):
            if parts.pop(0) == "super":
                children = posixpath.dirname(children)
                folders = [children]
        if not parts or not all(part.isidentifier() for part in parts):
            return set()
        stem = "/".join(parts)
        return {posixpath.join(folder, f"{stem}{end}") for folder in folders for end in (".rs", "/mod.rs")}

    def _workspace_files(self, source: str, module: str) -> list[int]:
        """Files of an import of a package this tree holds (a monorepo's `@acme/core`, whose
        `package.json` names it): its entry (`source`, `exports`, `module`, `main`, `types`,
        a built path read as the `src/` file it is made from) or `src/index.*`; with a subpath
        (`@acme/core/store`), that file of the package. [] for any other package."""
        parts = module.split("/")
        name, sub = ("/".join(parts[:2]), "/".join(parts[2:])) if module.startswith("@") else (parts[0], "/".join(parts[1:]))
        found = self._packages_here(source).get(name)
        if found is None:
            return []
        folder, manifest = found
        stems = [posixpath.join(folder, sub), posixpath.join(folder, "src", sub)] if sub else []
        for field in () if sub else _ENTRIES:
            entry = _entry(manifest.get(field))
            if entry:
                path = posixpath.normpath(entry.removeprefix("./"))
                built = next((b for b in _BUILT if path.startswith(b)), None)
                made = "src/" + path[len(built):] if built else path
                for suffix in (".d.ts", *JS_SUFFIXES):
                    made = made.removesuffix(suffix)
                stems += [posixpath.join(folder, made), posixpath.join(folder, path)]
        stems += [posixpath.join(folder, "src", "index"), posixpath.join(folder, "index")] if not sub else []
        for stem in dict.fromkeys(stems):
            hits = [self.by_path[(source, c)] for c in (stem, *(stem + x for x in JS_SUFFIXES),
                                                        *(f"{stem}/index{x}" for x in JS_SUFFIXES)) if (source, c) in self.by_path]
            if hits:
                return hits[:1]
        return []

    def _ts_paths(self, source: str, module: str) -> list[int] | None:
        """Files a `compilerOptions.paths` pattern of an indexed tsconfig maps `module` to
        (`"@app/*": ["src/app/*"]`, from the tsconfig's folder and its `baseUrl`); None when
        no pattern matches, so the other rules go on."""
        if source not in self._tsconfigs:
            self._tsconfigs[source] = _read_ts_paths(
                [(p, self._text(d) or b"") for (s, p), d in self.by_path.items() if s == source and _is_tsconfig(p)])
        for pattern, base, targets in self._tsconfigs[source]:
            head, star, tail = pattern.partition("*")
            if not (module.startswith(head) and module.endswith(tail) and len(module) >= len(head) + len(tail)):
                continue
            if not star and module != pattern:
                continue
            matched = module[len(head): len(module) - len(tail)] if star else ""
            for target in targets:
                stem = posixpath.normpath(posixpath.join(base, target.replace("*", matched, 1)))
                stem = "" if stem == "." else stem
                for suffix in ("", *JS_SUFFIXES, *(f"/index{x}" for x in JS_SUFFIXES)):
                    if (source, stem + suffix) in self.by_path:
                        return [self.by_path[(source, stem + suffix)]]
            return []  # the alias is the project's own, but names no indexed file
        return None

    def _packages_here(self, source: str) -> dict[str, tuple[str, dict[str, Any]]]:
        """The packages a source holds, by the name their indexed `package.json` gives: (its
        folder, the manifest), read once from the index's copy."""
        if source not in self._workspaces:
            import json

            found: dict[str, tuple[str, dict[str, Any]]] = {}
            for (s, path), doc_id in self.by_path.items():
                if s != source or posixpath.basename(path) != "package.json" or "node_modules/" in path:
                    continue
                try:
                    manifest = json.loads(self._text(doc_id) or b"")
                except (ValueError, RecursionError):  # not JSON, nested past reason
                    continue
                if isinstance(manifest, dict) and isinstance(manifest.get("name"), str):
                    found.setdefault(manifest["name"], (posixpath.dirname(path), manifest))
            self._workspaces[source] = found
        return self._workspaces[source]

    def named_module(self, module: str) -> list[int]:
        """Files of every source that a dotted module path as a person writes it names
        (`attrs`, `attr._make`, `pkg.mod`): Python's as an import of it would find them, other
        languages' `pkg/mod.<ext>` or the `mod` or `index` file of `pkg/mod/`, or a Go
        package's folder."""
        stem = module.replace(".", "/")
        if stem not in self._modules:
            heads = (stem, f"{stem}/mod", f"{stem}/index")
            found = [d for (_, p), d in self.by_path.items() if not p.endswith((".py", ".pyi")) and (
                (base := p.rsplit(".", 1)[0]) in heads or base.endswith(tuple("/" + h for h in heads))
                or (p.endswith(".go") and ((folder := posixpath.dirname(p)) == stem or folder.endswith("/" + stem))))]
            self._modules[stem] = found + [d for source in self._roots for d in self._python_module(source, stem)]
        return self._modules[stem]

    def _package(self, source: str) -> str:
        """The Python package a source's root is, when the root holds `__init__.py` (a user
        who adds `Django-5.1.4/django` indexes the package `django`): its folder's name."""
        if source not in self._packages:
            root = self._roots.get(source, "")
            # An empty __init__.py is not indexed (nothing to search), so ask the folder.
            marked = (source, "__init__.py") in self.by_path or os.path.isfile(os.path.join(root, "__init__.py"))
            self._packages[source] = posixpath.basename(root.rstrip("/")) if root and marked else ""
        return self._packages[source]

    def _python_module(self, source: str, path: str) -> list[int]:
        """Files of an absolute Python module path (`django/utils/crypto`): under the root, or
        inside the package the root is; else the longest trailing part of the path (two
        names at least) that ends an indexed file's path."""
        under_root = [self.by_path[(source, c)] for c in (f"{path}.py", f"{path}/__init__.py") if (source, c) in self.by_path]
        if under_root:
            return under_root
        package = self._package(source)
        if package and (path == package or path.startswith(package + "/")):
            inner = path[len(package) + 1 :]
            found = [self.by_path[(source, c)] for c in (f"{inner}.py", f"{inner}/__init__.py" if inner else "__init__.py")
                     if (source, c) in self.by_path]
            if found:
                return found
        parts = path.split("/")
        for start in range(len(parts) - 1):
            stem = "/".join(parts[start:])
            found = self._ending(f"{stem}.py", source) + self._ending(f"{stem}/__init__.py", source)
            if found:
                return found
        # One name (`import attrs`): a top-level package or module in a folder that is no
        # package itself (`src/attrs/__init__.py`), not any file of that name.
        return [d for tail in (f"{path}.py", f"{path}/__init__.py") for d in self._ending(tail, source)
                if not self._in_package(source, self.files[d][1][: -len(tail)])]

    def _in_package(self, source: str, folder: str) -> bool:
        """Whether `folder` (a path relative to the source's root, '' or ending in '/') holds
        an `__init__.py`, indexed or (empty, so not indexed) on disk."""
        if not folder:
            return bool(self._package(source))
        root = self._roots.get(source, "")
        return (source, folder + "__init__.py") in self.by_path or bool(root) and os.path.isfile(
            os.path.join(root, folder, "__init__.py"))

    def _aliased_module(self, source: str, module: str) -> list[int]:
        """Files of a non-relative JS/TS import: a path alias (`@/lib/util`, `~/lib/util`,
        `#lib/util`, `$lib/util`) or a base-URL path (`src/lib/util`), matched against the
        ends of indexed paths; a bare package name (`react`) is outside the index."""
        if (mapped := self._ts_paths(source, module)) is not None:
            return mapped
        alias = next((a for a in ("@/", "~/", "#", "$") if module.startswith(a)), None)
        if alias is None and (module.startswith("@") or "/" not in module):
            return self._workspace_files(source, module)  # an npm package: one of this tree's own?
        stem = module[len(alias):] if alias else module
        if alias == "$":
            stem = stem.split("/", 1)[-1]  # SvelteKit's $lib/x is src/lib/x
        # A base-URL path names the root's own folder when the root is that folder (src/).
        top = posixpath.basename(self._roots.get(source, "").rstrip("/"))
        stems = [stem, stem[len(top) + 1 :]] if top and stem.startswith(top + "/") else [stem]
        found = [d for s in stems for suffix in JS_SUFFIXES
                 for d in (*self._ending(s + suffix, source), *self._ending(f"{s}/index{suffix}", source))]
        return list(dict.fromkeys(found))


def _is_tsconfig(path: str) -> bool:
    name = posixpath.basename(path)
    return (name.startswith(("tsconfig", "jsconfig")) and name.endswith(".json")) and "node_modules/" not in path


def _read_ts_paths(configs: list[tuple[str, bytes]]) -> list[tuple[str, str, list[str]]]:
    """(pattern, base folder, targets) of every `compilerOptions.paths` entry of these
    tsconfig files, (path, indexed text) each (JSON with comments and trailing commas, as
    TypeScript reads it), the longest pattern first."""
    import json
    import re

    found = []
    for path, data in configs:
        try:
            text = data.decode("utf-8", "replace")
            # (an unclosed comment runs to the end once: no search from every `/*` again)
            text = re.sub(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*(?:.*?\*/|.*\Z)', lambda m: m.group(1) or "", text,
                          flags=re.DOTALL)
            options = json.loads(re.sub(r",(\s*[}\]])", r"\1", text)).get("compilerOptions") or {}
        except (ValueError, AttributeError, RecursionError):  # not JSON, nested past reason
            continue
        mapping = options.get("paths") if isinstance(options, dict) else None
        if not isinstance(mapping, dict):
            continue
        base = posixpath.normpath(posixpath.join(posixpath.dirname(path), str(options.get("baseUrl") or ".")))
        for pattern, targets in mapping.items():
            if isinstance(pattern, str) and isinstance(targets, list):
                found.append((pattern, "" if base == "." else base, [t for t in targets if isinstance(t, str)]))
    return sorted(found, key=lambda item: -len(item[0].partition("*")[0]))


# Where a package's built files come from: `dist/index.js` is made from `src/index.ts`.
_BUILT = ("dist/", "lib/", "build/", "out/", "esm/", "cjs/", "es/")
_ENTRIES = ("source", "exports", "module", "main", "types", "typings")


def _entry(value: Any) -> str | None:
    """A package.json entry's path: a string, or `exports`' `.` (its `import`, `default`,
    `types` or `source` condition, nested conditions read the same way)."""
    if isinstance(value, dict):
        value = value.get(".", value)
        for key in ("source", "import", "default", "types", "require", "node"):
            if isinstance(value, dict) and key in value:
                return _entry(value[key])
        return None
    return value if isinstance(value, str) else None


def file_stem(path: str) -> str:
    """A file's name without its folder and suffix: `os` of `include/fmt/os.h`."""
    return posixpath.splitext(posixpath.basename(path))[0]


def included_stems(doc_id: int, imports: Callable[[int], list[CallRef]], module_files: Callable[..., list[int]],
                   cache: dict[int, set[str]]) -> set[str]:
    """The names (without suffix) of the headers a C or C++ file includes, and of those they
    include, three levels deep: jq's `util.c` calls `jv_free`, which `jv.h` declares and
    `util.h` includes."""
    if doc_id not in cache:
        stems: set[str] = set()
        seen, frontier = {doc_id}, [doc_id]
        for _ in range(3):
            following = []
            for doc in frontier:
                for include in imports(doc):
                    stems.add(file_stem(include.qualifier))
                    following += [f for f in module_files(doc, include.qualifier) if f not in seen]
                    seen.update(following)
            frontier = following
        cache[doc_id] = stems
    return cache[doc_id]


def reexported(imports: Callable[[int], list[CallRef]], module_files: Callable[[int, str, str], list[int]],
               files: list[int], name: str) -> list[tuple[int, str]]:
    """Where `name`, as `files` offer it (a package's `__init__.py`), is defined: the (file,
    name) pairs their imports of it come from, through three steps at most (`from ._next_gen
    import define` in `attr/__init__.py` makes `attr.define` the function of `_next_gen.py`;
    `as` renames, `import *` passes every name on, and an `alias` reference, `s = attrs`,
    hands `attr.s` on to the `attrs` that file imports). Each step's pairs, nearest first."""
    frontier = [(doc, name) for doc in files]
    seen, found = set(frontier), []
    for _ in range(3):
        step = []
        for doc, wanted in frontier:
            for imp in imports(doc):
                if imp.name == "*" or (imp.name and imp.alias == wanted):
                    real = wanted if imp.name == "*" else imp.name
                    origins = [doc] if imp.kind == "alias" else module_files(doc, imp.qualifier, imp.name)
                    for origin in origins:
                        if (origin, real) not in seen:
                            seen.add((origin, real))
                            step.append((origin, real))
        found += step
        frontier = step
    return found


MAX_PARTS = 16  # of a dotted name `module_rows` reads as a module path and a name


def module_rows(query: str, modules: ModuleMap, imports: Callable[[int], list[CallRef]],
                spelled: Callable[[str], list[Any]]) -> list[Any]:
    """The symbol rows (id, file, name, ...: `spelled` gives a name's) that `attrs.define` or
    `attr._make.Factory.__init__` names: a name after the module path that holds it, the
    longest such path first; defined in the module's file or offered by it (a package's
    `__init__.py` importing it from where it is defined: `reexported`)."""
    parts = query.split(".")
    if len(parts) > MAX_PARTS:  # no module path is this deep; each cut reads every path
        return []
    for cut in range(len(parts) - 1, 0, -1):
        files = modules.named_module(".".join(parts[:cut]))
        head, rest = parts[cut], "".join("." + p for p in parts[cut + 1 :])
        places = [(doc, head) for doc in files] + reexported(imports, modules.module_files, files, head)
        rows = [row for doc, name in places for row in spelled(name + rest) if row[1] == doc and row[2] == name + rest]
        if rows:
            return list({row[0]: row for row in rows}.values())
    return []


INCLUDED_WHOLE = frozenset({"julia", "powershell"})  # a file `include`d or dot-sourced joins its includer


def included_together(files: dict[int, tuple[str, str, str | None]], imports: Callable[[int], list[CallRef]],
                      module_files: Callable[[int, str, str], list[int]]) -> dict[int, set[int]]:
    """For each file that another includes whole (Julia's `include("x.jl")`, PowerShell's
    `. ./x.ps1`), the files that share its names: those including it and what they include
    (CSV.jl's `src/file.jl` calls a function of `src/utils.jl`, both included by `src/CSV.jl`;
    Pester's module dot-sources each function's script)."""
    includes: dict[int, set[int]] = {}
    for doc_id, (_, _, language) in files.items():
        if language in INCLUDED_WHOLE:
            for imp in imports(doc_id):
                if imp.name == "*" and imp.qualifier.lower().endswith((".jl", ".ps1")):
                    includes.setdefault(doc_id, set()).update(d for d in module_files(doc_id, imp.qualifier, "*") if d != doc_id)
    together: dict[int, set[int]] = {}
    for includer, included in includes.items():
        for doc_id in included:
            together.setdefault(doc_id, set()).update({includer} | included - {doc_id})
    return together


def spellings(store: Store, short: str) -> list[str]:
    """The names a call of `short` may be written with: itself, and the names it is bound
    to or imported as (`s = attrs`, then `from attr import s as S`), three steps deep;
    resolution then says which of those calls reach the definition."""
    names, frontier = {short: None}, [short]
    for _ in range(3):
        frontier = [alias for name in frontier for _, _, _, _, alias, _, _ in store.ref_rows(
            "name", name, ("alias", "import")) if alias and alias not in names and alias.isidentifier()]
        names.update(dict.fromkeys(frontier))
    return list(names)


Place = tuple[int, int, CallRef]  # (the file's place in the graph's files, the import's in its file, the import)


def imports_by_name(files: dict[int, tuple[str, str, str | None]], imports: Callable[[int], list[CallRef]],
                    module_files: Callable[[int, str, str], list[int]]) -> tuple[dict[str, list[Place]], dict[int, list[Place]]]:
    """Every file's imports by the name or alias they bring in, and, for whole modules, by each
    file the module is. Made once a graph: impact asks `importers` for every caller it finds
    (thousands for a test helper), and going through every file's imports each time took
    minutes on the standard library."""
    names: dict[str, list[Place]] = {}
    modules: dict[int, list[Place]] = {}
    for place, doc_id in enumerate(files):
        for n, imp in enumerate(imports(doc_id)):
            if imp.name in ("", "*"):
                for file in module_files(doc_id, imp.qualifier, imp.name):
                    modules.setdefault(file, []).append((place, n, imp))
            else:
                for key in {imp.name, imp.alias} - {""}:
                    names.setdefault(key, []).append((place, n, imp))
    return names, modules
