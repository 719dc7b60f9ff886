"""Manual pages (roff: the man and mdoc macros) into sections: `.SH`/`.Sh` are sections,
`.SS`/`.Ss` subsections, `.TH`/`.Dt` give the title (`xz(1)`). Each line becomes the text a
reader of the page sees (fonts, escapes and macro names taken off, `.Op Fl v` as `[-v]`),
one line for one line, so a chunk's lines are the file's. jq's, curl's and OpenSSH's pages
were indexed as raw markup (`\\fB\\-\\-arg\\fR`), or not at all in a docs folder.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from mindex.models import ParsedDocument

# `\(em`, `\[em]`, `\*(lq`: the glyphs a page names, by name; the others are dropped.
_GLYPHS = {"em": "—", "en": "–", "bu": "•", "aq": "'", "dq": '"', "lq": "“", "rq": "”", "oq": "‘", "cq": "’",
           "co": "©", "rg": "®", "tm": "™", "mi": "-", "hy": "-", "ti": "~", "ha": "^", "sq": "□", "de": "°",
           "mu": "×", "di": "÷", "pl": "+", "eq": "=", "<=": "≤", ">=": "≥", "->": "→", "<-": "←", "R": "®",
           "Tm": "™", "ga": "`", "rs": "\\", "at": "@", "sh": "#", "Do": "$", "ba": "|", "lB": "[", "rB": "]"}
# One escape: `\fB`, `\f(CW`, `\f[B]`, `\(xx`, `\[name]`, `\*x`, `\*(xx`, `\s-1`, `\s+2`, `\N'..'`,
# `\h'..'`, any other `\x` (linear: no nested repeats).
_ESCAPE = re.compile(r"\\(?:f(?:\(..|\[[^\]\n]*\]|.)|\((..)|\[([^\]\n]*)\]|\*(?:\((..)|\[([^\]\n]*)\]|(.))"
                     r"|s[-+]?\d{1,2}|[NhvwlLDoxXbZ]'[^'\n]*'|\"(.*)$|(.))")
_PLAIN = {"-": "-", "e": "\\", "\\": "\\", " ": " ", "~": " ", "0": " ", "&": "", "|": "", "^": "", "%": "",
          "c": "", ":": "", "/": "", ",": "", "'": "'", "`": "`", ".": ".", "t": "\t", "!": "", "{": "", "}": ""}
_MAN_FONT = {"B": "**{}**", "I": "*{}*", "SB": "**{}**", "SM": "{}"}
_ALTERNATING = {"BR", "BI", "IB", "IR", "RB", "RI"}
_SILENT = {"PP", "P", "LP", "sp", "br", "RS", "RE", "ad", "na", "hy", "nh", "ne", "in", "ti", "ft", "ps", "vs",
           "fi", "nf", "EX", "EE", "TP", "TQ", "PD", "ds", "de", "nr", "so", "ie", "el", "if", "ig", "..", "ce",
           "UE", "ME", "YS", "SY", "ll", "ta", "fam", "mso", "tr", "Dd", "Os", "Pp", "Lp", "Bl", "El", "Bd",
           "Ed", "Sm", "Bf", "Ef", "Ek", "Bk", "Rs", "Re", "Ud", "An", ""}
# mdoc macros that give a fixed text, and those that wrap the rest of their line; any other
# macro (`Ar`, `Cm`, `Pa`, ...) only marks up its words, which are kept without it.
_MDOC_FIXED = {"Ux": "UNIX", "Bx": "BSD", "At": "AT&T UNIX", "Bsx": "BSD/OS", "St": ""}
_MDOC_QUOTES = {"Dq": ("“", "”"), "Sq": ("‘", "’"), "Pq": ("(", ")"), "Aq": ("<", ">"), "Bq": ("[", "]"),
                "Brq": ("{", "}"), "Qq": ('"', '"'), "Op": ("[", "]"), "Eq": ("[", "]")}
_MACRO_WORD = re.compile(r"[A-Z][a-z]{1,2}")
_PUNCTUATION = frozenset({".", ",", ":", ";", ")", "]", "?", "!"})
_OPENERS = ("[", "(", "“", "‘", "<", "{", '"')
_REQUEST = re.compile(r"^[.'][ \t]*[A-Za-z\\]", re.MULTILINE)
ROFF_START = re.compile(r"\A(?:[.'][^\n]*\n|\s*\n){0,80}?[.'][ \t]*(?:TH|Dd|Dt)[ \t]")


def looks_like_roff(text: str) -> bool:
    """Whether a file of no known suffix is a manual page (jq's `jq.1.prebuilt`): its first
    requests, past comments, name the page (`.TH`, `.Dd`, `.Dt`)."""
    return bool(ROFF_START.match(text[:20000]))


def unescape(text: str) -> str:
    """A line's text without roff's escapes: glyphs by name, fonts and spacing dropped."""
    def one(m: re.Match[str]) -> str:
        glyph = m.group(1) or m.group(2) or m.group(3) or m.group(4) or m.group(5)
        if glyph is not None:
            return _GLYPHS.get(glyph, "")
        if m.group(6) is not None:  # `\"` comment to the line's end
            return ""
        other = m.group(7)
        return _PLAIN.get(other, other) if other is not None else ""
    return _ESCAPE.sub(one, text) if "\\" in text else text


def _words(arguments: str) -> list[str]:
    """A macro's arguments as roff splits them: at spaces, a quoted one whole (`""` a quote
    in it), an escaped space (`\\ `) inside its word; each without its escapes."""
    words: list[str] = []
    current: list[str] = []
    quoted, i = False, 0
    while i < len(arguments):
        ch = arguments[i]
        if ch == "\\" and i + 1 < len(arguments):
            current.append(arguments[i : i + 2])
            i += 2
            continue
        if ch == '"' and quoted and arguments[i + 1 : i + 2] == '"':
            current.append('"')
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        elif ch in " \t" and not quoted:
            if current:
                words.append(unescape("".join(current)))
                current = []
        else:
            current.append(ch)
        i += 1
    if current:
        words.append(unescape("".join(current)))
    return words


def _mdoc(words: list[str], name: str, spaced: bool = True) -> str:
    """The text an mdoc line's words read as (`Op Fl b Ar bind_address` → `[-b bind_address]`);
    `spaced` False between `.Sm off` and `.Sm on`."""
    out: list[str] = []
    closing: list[str] = []
    glue = False

    def put(piece: str, opens: bool = False) -> None:
        nonlocal glue
        if out and spaced and not glue and piece not in _PUNCTUATION and not out[-1].endswith(_OPENERS):
            out.append(" ")
        out.append(piece)
        glue = opens

    i = 0
    while i < len(words):
        word, i = words[i], i + 1
        if word in _PUNCTUATION and closing and all(w in _PUNCTUATION for w in words[i:]):
            out.extend(reversed(closing))  # `Op : port .`: the stop after the bracket
            closing.clear()
        if not (_MACRO_WORD.fullmatch(word) or word in _MDOC_FIXED):
            put(word)
        elif word == "Fl":
            following = words[i] if i < len(words) and not _MACRO_WORD.fullmatch(words[i]) else ""
            put("-" + following)
            i += bool(following)
        elif word == "Nm":
            if not (i < len(words) and not _MACRO_WORD.fullmatch(words[i]) and words[i] not in _PUNCTUATION):
                put(name)
        elif word == "Ns":
            glue = True
        elif word == "Xr" and i + 1 < len(words):
            put(f"{words[i]}({words[i + 1]})")
            i += 2
        elif word in _MDOC_QUOTES:
            opening, close = _MDOC_QUOTES[word]
            put(opening, opens=True)
            closing.append(close)
        elif word == "Oo":
            put("[", opens=True)
        elif word == "Oc":
            glue = True
            put("]")
        elif word in _MDOC_FIXED:
            if _MDOC_FIXED[word]:
                put(_MDOC_FIXED[word])
        elif word == "Nd":
            put("—")
    return ("".join(out) + "".join(reversed(closing))).strip()


def parse_roff(text: str, path: str) -> ParsedDocument:
    """Parse a manual page: sections at `.SH`/`.Sh`, subsections at `.SS`/`.Ss`, the title
    from `.TH`/`.Dt`, every line as read."""
    if not _REQUEST.search(text):  # `NOTES.1` of plain text: no request, no escapes to read
        from mindex.parse.text import parse_text

        return parse_text(text, path)
    from mindex.parse.markdown import cut_sections  # (and YAML with it: not for a run that reads no page)

    lines = text.split("\n")
    out: list[str] = []
    starts: list[tuple[int, int, str]] = []
    title, name, pending, spaced = "", "", 0, True  # `pending`: a `.SH` without words names the next line
    for line in lines:
        at = len(out)
        if not line.startswith((".", "'")) or line.startswith(("\\&.", "\\&'")):
            shown = unescape(line)
            if pending and shown.strip():
                starts.append((at, pending, shown.strip()))
                shown, pending = ("#" * pending) + " " + shown.strip(), 0
            out.append(shown)
            continue
        request = line[1:].lstrip(" \t")
        macro, _, rest = request.partition(" ")
        macro, rest = macro.strip(), rest.strip()
        if macro.startswith('\\"') or macro == "\\}":
            out.append("")
            continue
        words = _words(rest) if rest else []
        if macro in ("TH", "Dt"):
            if words:
                title = f"{words[0]}({words[1]})" if len(words) > 1 else words[0]
                name = name or words[0].lower()
            out.append("")
        elif macro in ("SH", "Sh", "SS", "Ss"):
            level = 1 if macro in ("SH", "Sh") else 2
            heading = " ".join(words)
            if heading:
                starts.append((at, level, heading))
                out.append("#" * level + " " + heading)
            else:
                pending = level
                out.append("")
        elif macro in _MAN_FONT:
            out.append(_MAN_FONT[macro].format(" ".join(words)) if words else "")
        elif macro in _ALTERNATING:
            out.append("".join(words))
        elif macro == "IP":
            label = words[0] if words else ""
            out.append("- " if label in ("", "•", "-", "*", "o") else f"- {label}")
        elif macro in ("UR", "MT"):
            out.append(words[0] if words else "")
        elif macro == "Nm" and words and not name:
            name = words[0]
            out.append(_mdoc(["Nm", *words], name, spaced))
        elif macro == "Sm":
            spaced = words[:1] != ["off"]
            out.append("")
        elif macro in _SILENT:
            out.append("")
        elif macro == "It":
            out.append("- " + _mdoc(words, name, spaced))
        elif _MACRO_WORD.fullmatch(macro) or macro in _MDOC_FIXED:  # mdoc: the line's words, macros read
            out.append(_mdoc([macro, *words], name, spaced))
        else:  # a request this reader does not know: its words, if any
            out.append(" ".join(words))
    sections = cut_sections(out, starts, 1)
    title = title or next((s.heading_path[0] for s in sections if s.heading_path), "") or PurePosixPath(path).stem
    return ParsedDocument(title, tuple(sections), {"format": "man"})
