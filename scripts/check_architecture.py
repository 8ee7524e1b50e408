"""Architecture check of every crate in the workspace (Python 3.11, standard library only).

Two rules, each reported with file:line:

* no module cycle inside a crate: at every level of each crate's module tree, the sibling
  modules must not depend on each other in a circle (a reference from anywhere in sibling
  A's subtree to anything in sibling B's subtree is an edge A -> B);
* no non-test function whose body is longer than 120 lines (the `fn` line to its closing
  brace).

Test code is left out: `#[cfg(test)]` items and modules, `mod tests`, `#[test]` functions
and files marked `#![cfg(test)]`. Comments and string literals are never read as code.

Usage: check_architecture.py [--root DIR] [--max-lines N] [--refs N]
Exit status: 0 when both rules hold, 1 when either is broken, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import tomllib
from dataclasses import dataclass, field

MAX_FN_LINES = 120


# ---------------------------------------------------------------------------------------------
# Lexer: Rust source to tokens, dropping comments and keeping literals opaque.


@dataclass(frozen=True)
class Token:
    """One token: `kind` is "ident", "lifetime", "lit" or "punct"."""

    kind: str
    text: str
    line: int


_DECIMAL_POINTS = {"." + digit for digit in "0123456789"}


def _is_ident_start(ch: str) -> bool:
    return ch == "_" or ch.isalpha()


def _is_ident_char(ch: str) -> bool:
    return ch == "_" or ch.isalnum()


def _skip_quoted(src: str, i: int, quote: str) -> int:
    """Index just past the literal whose opening `quote` is at `i` (backslash escapes)."""
    i += 1
    while i < len(src):
        ch = src[i]
        if ch == "\\":
            i += 2
            continue
        if ch == quote:
            return i + 1
        i += 1
    return i


def _raw_string_end(src: str, i: int) -> int | None:
    """Index past a raw string (`r"…"`, `r#"…"#`) whose `r` is at `i`, or None if not one."""
    j = i + 1
    hashes = 0
    while j < len(src) and src[j] == "#":
        hashes += 1
        j += 1
    if j >= len(src) or src[j] != '"':
        return None
    close = '"' + "#" * hashes
    end = src.find(close, j + 1)
    return len(src) if end < 0 else end + len(close)


def tokenize(src: str) -> list[Token]:
    """The tokens of `src`; `$crate` becomes `crate`, `r#name` becomes `name`, `::` is one token."""
    tokens: list[Token] = []
    i, line, n = 0, 1, len(src)

    def emit(kind: str, text: str, start_line: int) -> None:
        tokens.append(Token(kind, text, start_line))

    while i < n:
        ch = src[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch.isspace():
            i += 1
        elif src.startswith("//", i):
            end = src.find("\n", i)
            i = n if end < 0 else end
        elif src.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif src.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += src[i] == "\n"
                    i += 1
        elif ch in "bcr" and (end := _prefixed_literal_end(src, i)) is not None:
            emit("lit", src[i:end], line)
            line += src.count("\n", i, end)
            i = end
        elif ch == '"':
            end = _skip_quoted(src, i, '"')
            emit("lit", src[i:end], line)
            line += src.count("\n", i, end)
            i = end
        elif ch == "'":
            i = _char_or_lifetime(src, i, line, emit)
        elif ch.isdigit():
            j = i + 1
            while j < n and (_is_ident_char(src[j]) or src[j : j + 2] in _DECIMAL_POINTS):
                j += 1
            emit("lit", src[i:j], line)
            i = j
        elif _is_ident_start(ch) or (ch == "$" and src.startswith("$crate", i)):
            start = i + 1 if ch == "$" else i
            if src.startswith("r#", start) and start + 2 < n and _is_ident_start(src[start + 2]):
                start += 2
            j = start + 1
            while j < n and _is_ident_char(src[j]):
                j += 1
            emit("ident", src[start:j], line)
            i = j
        elif src.startswith("::", i):
            emit("punct", "::", line)
            i += 2
        else:
            emit("punct", ch, line)
            i += 1
    return tokens


def _prefixed_literal_end(src: str, i: int) -> int | None:
    """End of the byte, C or raw string (`b"…"`, `br#"…"#`, `c"…"`…) at `i`, or None."""
    if i > 0 and _is_ident_char(src[i - 1]):
        return None
    ch = src[i]
    nxt = src[i + 1] if i + 1 < len(src) else ""
    if ch == "r":
        return _raw_string_end(src, i)
    if nxt == "r":
        return _raw_string_end(src, i + 1)
    if nxt == '"':
        return _skip_quoted(src, i + 1, '"')
    if ch == "b" and nxt == "'":
        return _skip_quoted(src, i + 1, "'")
    return None


def _char_or_lifetime(src: str, i: int, line: int, emit) -> int:
    """Emits the char literal or lifetime starting at `i`; returns the index after it."""
    n = len(src)
    if i + 1 < n and src[i + 1] == "\\":
        end = _skip_quoted(src, i, "'")
        emit("lit", src[i:end], line)
        return end
    if i + 2 < n and src[i + 2] == "'":
        emit("lit", src[i : i + 3], line)
        return i + 3
    j = i + 1
    while j < n and _is_ident_char(src[j]):
        j += 1
    emit("lifetime", src[i:j], line)
    return j


def match_groups(tokens: list[Token]) -> dict[int, int]:
    """For each opening `(`, `[` or `{`, the index of its closing partner."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack: list[int] = []
    matches: dict[int, int] = {}
    for idx, tok in enumerate(tokens):
        if tok.kind != "punct":
            continue
        if tok.text in pairs:
            stack.append(idx)
        elif tok.text in (")", "]", "}") and stack and pairs[tokens[stack[-1]].text] == tok.text:
            matches[stack.pop()] = idx
    for idx in stack:
        matches[idx] = len(tokens) - 1
    return matches


# ---------------------------------------------------------------------------------------------
# Module tree and what each module says about other modules.


@dataclass
class UseEntry:
    """One leaf of a `use` tree: the name it binds (or "*") and its path as written."""

    name: str
    path: list[str]
    line: int


@dataclass
class RawRef:
    """A path in code that may name a module of the crate, before resolution."""

    path: list[str]
    line: int


@dataclass
class Function:
    """A non-test function with a body."""

    name: str
    file: str
    line: int
    length: int


@dataclass
class Module:
    """One module of a crate: its children, its `use` bindings and its references."""

    path: tuple[str, ...]
    file: str
    parent: Module | None = None
    children: dict[str, Module] = field(default_factory=dict)
    uses: list[UseEntry] = field(default_factory=list)
    refs: list[RawRef] = field(default_factory=list)

    def bindings(self, name: str) -> list[UseEntry]:
        """The `use` entries that bind `name` in this module."""
        return [u for u in self.uses if u.name == name]

    def walk(self):
        """This module and every module below it."""
        yield self
        for child in self.children.values():
            yield from child.walk()


@dataclass
class CrateTree:
    """The module tree of one crate target and the non-test functions it holds."""

    name: str
    workspace: str
    root_file: str
    root: Module
    functions: list[Function] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


ITEM_QUALIFIERS = {"async", "unsafe", "default", "extern", "const"}
BLOCK_ITEMS = {"mod", "impl", "trait", "enum", "union", "struct"}
SEMI_ITEMS = {"use", "const", "static", "type", "let"}


def cfg_is_test_only(tokens: list[Token], start: int, end: int) -> bool:
    """Whether the cfg predicate in tokens[start:end] can only hold when compiling tests."""
    toks = [t for t in tokens[start:end] if t.text != ","]

    def parse(pos: int) -> tuple[bool, int]:
        word = toks[pos].text
        if word in ("all", "any", "not") and pos + 1 < len(toks) and toks[pos + 1].text == "(":
            pos += 2
            results = []
            while pos < len(toks) and toks[pos].text != ")":
                value, pos = parse(pos)
                results.append(value)
            pos += 1
            if word == "all":
                return any(results), pos
            if word == "any":
                return bool(results) and all(results), pos
            return False, pos
        if pos + 2 < len(toks) and toks[pos + 1].text == "=":
            return False, pos + 3
        return word == "test", pos + 1

    return bool(toks) and parse(0)[0]


def _is_test_attribute(body: list[Token]) -> bool:
    """Whether an attribute's tokens are `test`, `tokio::test`, `tokio::test(…)` and the like."""
    path = []
    for tok in body:
        if tok.text == "(":
            break
        if tok.kind != "ident" and tok.text != "::":
            return False
        path.append(tok.text)
    return path[-1:] == ["test"]


class FileParser:
    """Reads one source file into its module (and the inline modules it holds)."""

    def __init__(self, crate: CrateTree, file: str, tokens: list[Token], rel: str):
        self.crate = crate
        self.file = file
        self.rel = rel
        self.toks = tokens
        self.match = match_groups(tokens)

    # -- attributes ----------------------------------------------------------------------------

    def attribute(self, i: int) -> tuple[int, bool, str | None, bool]:
        """Reads the attribute at `i` (`#[…]` or `#![…]`): (end, test-only, #[path], inner)."""
        inner = self.toks[i + 1].text == "!"
        open_idx = i + 2 if inner else i + 1
        close = self.match[open_idx]
        body = self.toks[open_idx + 1 : close]
        test = False
        path_value = None
        if body:
            head = body[0].text
            if head == "cfg" and len(body) > 1 and body[1].text == "(":
                test = cfg_is_test_only(self.toks, open_idx + 3, self.match[open_idx + 2])
            elif head == "path" and [t.text for t in body[1:2]] == ["="] and body[2:3]:
                path_value = body[2].text.strip('"')
            else:
                test = _is_test_attribute(body)
        return close + 1, test, path_value, inner

    def is_attr(self, i: int) -> bool:
        """Whether an attribute (`#[` or `#![`) starts at `i`."""
        after = [t.text for t in self.toks[i + 1 : i + 3]]
        return self.toks[i].text == "#" and (after[:1] == ["["] or after == ["!", "["])

    # -- item extents --------------------------------------------------------------------------

    def skip_visibility(self, i: int, end: int) -> int:
        """Steps past `pub`, `pub(crate)`, `pub(in path)`…"""
        t = self.toks
        if i < end and t[i].text == "pub":
            i += 1
            if i < end and t[i].text == "(":
                i = self.match[i] + 1
        return i

    def item_end(self, i: int, end: int) -> int:
        """Index just past the item, statement, field or arm that starts at `i`."""
        t = self.toks
        if i < end and t[i].text == "{":
            return self.match[i] + 1
        j = self.skip_qualifiers(self.skip_visibility(i, end), end)
        word = t[j].text if j < end else ""
        if word == "{":
            return self.match[j] + 1
        if word == "fn" or word in BLOCK_ITEMS:
            return self.scan_to(j, end, stop_at_brace=True, stop_at_comma=False)
        if word in SEMI_ITEMS or word == "extern":
            return self.scan_to(j, end, stop_at_brace=False, stop_at_comma=False)
        if j + 1 < end and t[j].kind == "ident" and t[j + 1].text == "!":
            k = j + 2 + (j + 2 < end and t[j + 2].kind == "ident")
            if k < end and t[k].text in "([{":
                close = self.match[k] + 1
                return close + (close < end and t[close].text == ";")
        return self.scan_to(j, end, stop_at_brace=False, stop_at_comma=True)

    def skip_qualifiers(self, j: int, end: int) -> int:
        """Steps past `async`, `unsafe`, `extern "C"`, `default` and `const` (of `const fn`)."""
        t = self.toks
        while j < end and t[j].text in ITEM_QUALIFIERS:
            nxt = t[j + 1] if j + 1 < end else None
            if t[j].text == "const" and (nxt is None or nxt.text not in ITEM_QUALIFIERS | {"fn"}):
                break
            j += 2 if t[j].text == "extern" and nxt is not None and nxt.kind == "lit" else 1
        return j

    def scan_to(self, j: int, end: int, stop_at_brace: bool, stop_at_comma: bool) -> int:
        """Index past the first `;` (or `,`, or `{…}` block) outside brackets, or of the
        bracket closing what encloses `j`."""
        t = self.toks
        while j < end:
            text = t[j].text
            if t[j].kind == "punct":
                if text == "{" and stop_at_brace:
                    return self.match[j] + 1
                if text in "([{":
                    j = self.match[j] + 1
                    continue
                if text == ";" or (text == "," and stop_at_comma):
                    return j + 1
                if text in ")]}":
                    return j
            j += 1
        return j

    # -- module bodies -------------------------------------------------------------------------

    def parse_module(self, module: Module, start: int, end: int, inline: list[str]) -> bool:
        """Reads tokens[start:end] as the body of `module`; False if the body is test-only."""
        i = start
        pending_path: str | None = None
        while i < end:
            if self.is_attr(i):
                after, test, path_value, inner = self.attribute(i)
                if test and inner:
                    return False
                if test:
                    i = self.skip_attributed(after, end)
                    continue
                pending_path = path_value or pending_path
                i = after
                continue
            j = self.skip_visibility(i, end)
            if j + 1 < end and self.toks[j].text == "mod" and self.toks[j + 1].kind == "ident":
                i = self.module_item(module, j, end, inline, pending_path)
                pending_path = None
                continue
            pending_path = None
            item_end = self.item_end(i, end)
            self.scan_code(module, i, max(item_end, i + 1))
            i = max(item_end, i + 1)
        return True

    def skip_attributed(self, i: int, end: int) -> int:
        """Skips the further attributes and the test-only item that follows them."""
        while i < end and self.is_attr(i):
            i = self.attribute(i)[0]
        return self.item_end(i, end)

    def module_item(
        self, module: Module, j: int, end: int, inline: list[str], path_attr: str | None
    ) -> int:
        """Reads `mod name;` or `mod name { … }` at `j` as a child (not `mod tests`)."""
        name = self.toks[j + 1].text
        after_name = j + 2
        if after_name < end and self.toks[after_name].text == "{":
            close = self.match[after_name]
            if name != "tests":
                child = Module(module.path + (name,), self.rel, module)
                if self.parse_module(child, after_name + 1, close, inline + [name]):
                    module.children[name] = child
            return close + 1
        if name != "tests":
            self.crate_module_file(module, name, inline, path_attr)
        return after_name + 1

    def crate_module_file(
        self, module: Module, name: str, inline: list[str], path_attr: str | None
    ) -> None:
        """Finds and reads the file of `mod name;` (`name.rs`, `name/mod.rs` or its `#[path]`)."""
        base = os.path.dirname(self.file)
        stem = os.path.splitext(os.path.basename(self.file))[0]
        owns_dir = stem == "mod" or self.file == self.crate.root_file
        if path_attr is not None:
            folder = base if owns_dir or not inline else os.path.join(base, stem)
            candidates = [os.path.join(folder, *inline, path_attr)]
        else:
            folder = base if owns_dir else os.path.join(base, stem)
            folder = os.path.join(folder, *inline)
            candidates = [os.path.join(folder, name + ".rs"), os.path.join(folder, name, "mod.rs")]
        for path in candidates:
            if os.path.isfile(path):
                child = Module(module.path + (name,), "", module)
                if load_file(self.crate, child, path):
                    module.children[name] = child
                return
        looked = ", ".join(os.path.relpath(c, self.crate.workspace) for c in candidates)
        self.crate.warnings.append(f"{self.rel}: no file for `mod {name}` (looked for {looked})")

    # -- code: uses, paths, functions ----------------------------------------------------------

    def scan_code(self, module: Module, start: int, end: int) -> None:
        """Collects `use` trees, module paths and functions in tokens[start:end]."""
        t = self.toks
        i = start
        while i < end:
            tok = t[i]
            if self.is_attr(i):
                after, test, _, _ = self.attribute(i)
                i = self.skip_attributed(after, end) if test else after
                continue
            if tok.text == "pub" and i + 2 < end and t[i + 1].text == "(" and t[i + 2].text == "in":
                i = self.match[i + 1] + 1
                continue
            if tok.kind == "ident" and tok.text == "use" and (i == start or t[i - 1].text != "::"):
                i = self.use_tree(module, i + 1, end, [])
                continue
            nxt = t[i + 1] if i + 1 < end else tok
            if tok.text == "fn" and nxt.kind == "ident":
                self.function(i, end)
            if tok.kind == "ident" and nxt.text == "::" and self.path_start(i):
                i = self.path(module, i, end)
                continue
            i += 1

    def path_start(self, i: int) -> bool:
        """Whether the identifier at `i` begins a path (rather than continuing one or a field)."""
        return i == 0 or self.toks[i - 1].text not in ("::", ".")

    def path(self, module: Module, i: int, end: int) -> int:
        """Records the path `a::b::c` starting at `i`; returns the index after it."""
        segments = []
        while i < end and self.toks[i].kind == "ident":
            segments.append(self.toks[i].text)
            if i + 2 < end and self.toks[i + 1].text == "::" and self.toks[i + 2].kind == "ident":
                i += 2
            else:
                i += 1
                break
        module.refs.append(RawRef(segments, self.toks[i - 1].line))
        return i

    def use_tree(self, module: Module, i: int, end: int, prefix: list[str]) -> int:
        """Reads the use tree at `i` (below `prefix`) into `module.uses`; returns where it ends."""
        t = self.toks
        path = list(prefix)
        line = t[i].line if i < end else 0
        if i < end and t[i].text == "::":
            path.append("::")
            i += 1
        while i < end:
            tok = t[i]
            if tok.text == "{":
                close = self.match[i]
                j = i + 1
                while j < close:
                    j = self.use_tree(module, j, close, path)
                    if j < close and t[j].text == ",":
                        j += 1
                return self.after_use(close + 1, end, prefix)
            if tok.text == "*":
                module.uses.append(UseEntry("*", path, tok.line))
                return self.after_use(i + 1, end, prefix)
            if tok.kind == "ident":
                name = tok.text
                if name == "self" and path and path != ["::"]:
                    name = path[-1]
                else:
                    path.append(name)
                i += 1
                if i < end and t[i].text == "::":
                    i += 1
                    continue
                if i + 1 < end and t[i].text == "as":
                    name = t[i + 1].text
                    i += 2
                module.uses.append(UseEntry(name, path, line))
                return self.after_use(i, end, prefix)
            i += 1
        return i

    def after_use(self, i: int, end: int, prefix: list[str]) -> int:
        """At the end of a top-level use tree, steps past its `;`."""
        if not prefix and i < end and self.toks[i].text == ";":
            return i + 1
        return i

    def function(self, i: int, end: int) -> None:
        """Records the function whose `fn` is at `i`, if it has a body."""
        t = self.toks
        j = i + 2
        while j < end:
            text = t[j].text
            if t[j].kind == "punct" and text in "([":
                j = self.match[j] + 1
                continue
            if text == ";":
                return
            if text == "{":
                close = self.match[j]
                length = t[close].line - t[i].line + 1
                self.crate.functions.append(Function(t[i + 1].text, self.rel, t[i].line, length))
                return
            j += 1


def load_file(crate: CrateTree, module: Module, path: str) -> bool:
    """Parses `path` as the body of `module`; False if the file is test-only."""
    module.file = os.path.relpath(path, crate.workspace)
    with open(path, encoding="utf-8") as handle:
        tokens = tokenize(handle.read())
    parser = FileParser(crate, path, tokens, module.file)
    return parser.parse_module(module, 0, len(tokens), [])


def build_crate(workspace: str, name: str, root_file: str) -> CrateTree:
    """The module tree of the crate target whose root is `root_file`."""
    crate = CrateTree(name, workspace, root_file, Module(("crate",), ""))
    load_file(crate, crate.root, root_file)
    return crate


# ---------------------------------------------------------------------------------------------
# Resolution: which module of the crate a path lands in.


class Resolver:
    """Resolves paths of one crate to the deepest module they name, through `use` re-exports."""

    def __init__(self, crate: CrateTree):
        self.crate = crate

    def absolute(self, module: Module, path: list[str]) -> tuple[Module, list[str]] | None:
        """The module a path starts from and its remaining segments, or None if not this crate's."""
        if not path or path[0] == "::":
            return None
        head = path[0]
        if head == "crate":
            return self.crate.root, path[1:]
        if head in ("self", "super"):
            start = module
            rest = path
            if rest[0] == "self":
                rest = rest[1:]
            while rest and rest[0] == "super":
                if start.parent is None:
                    return None
                start, rest = start.parent, rest[1:]
            return start, rest
        return module, path

    def resolve(
        self, module: Module, path: list[str], seen: frozenset = frozenset()
    ) -> tuple[Module, bool] | None:
        """(deepest module reached, whether every segment was a module), or None if external."""
        start = self.absolute(module, path)
        if start is None:
            return None
        current, rest = start
        relative = path[0] not in ("crate", "self", "super")
        for index, segment in enumerate(rest):
            step = self.step(current, segment, seen)
            if step is None:
                if relative and index == 0:
                    return None
                return current, False
            target, whole = step
            if not whole:
                return target, False
            current = target
        return current, True

    def step(self, module: Module, name: str, seen: frozenset) -> tuple[Module, bool] | None:
        """Where `name` in `module` leads: a child, a `use` binding or a glob import."""
        if name in module.children:
            return module.children[name], True
        key = (module.path, name)
        if key in seen:
            return None
        seen = seen | {key}
        for entry in module.bindings(name):
            found = self.resolve(module, entry.path, seen)
            if found is not None:
                return found
        for entry in module.bindings("*"):
            glob_target = self.resolve(module, entry.path, seen)
            if glob_target is None or not glob_target[1]:
                continue
            found = self.step(glob_target[0], name, seen)
            if found is not None:
                return found
        return None


@dataclass(frozen=True)
class Reference:
    """A concrete reference from one module to another: where it is and the path written."""

    file: str
    line: int
    path: str


def references(crate: CrateTree) -> list[tuple[Module, Module, Reference]]:
    """Every (from module, to module, reference) of the crate that names one of its modules."""
    resolver = Resolver(crate)
    found = []
    for module in crate.root.walk():
        for entry in module.uses:
            target = resolver.resolve(module, entry.path)
            if target is not None:
                text = "::".join(entry.path) + ("::*" if entry.name == "*" else "")
                found.append((module, target[0], Reference(module.file, entry.line, "use " + text)))
        for ref in module.refs:
            if not _names_crate_module(resolver, module, ref.path[0]):
                continue
            target = resolver.resolve(module, ref.path)
            if target is not None:
                reference = Reference(module.file, ref.line, "::".join(ref.path))
                found.append((module, target[0], reference))
    return found


def _names_crate_module(resolver: Resolver, module: Module, head: str) -> bool:
    """Whether a path in `module` starting with `head` is one to count: `crate`, `self` and
    `super` paths, and relative ones through a child module or a glob import (a name bound
    by an explicit `use` is counted at that `use`)."""
    if head in ("crate", "self", "super") or head in module.children:
        return True
    return not module.bindings(head) and resolver.step(module, head, frozenset()) is not None


# ---------------------------------------------------------------------------------------------
# Cycles between siblings.


Edges = dict[tuple[str, str], list[Reference]]


@dataclass
class Cycle:
    """A strongly connected set of sibling modules and the references behind each edge."""

    crate: str
    parent: tuple[str, ...]
    members: list[str]
    edges: Edges


def sibling_edges(crate: CrateTree) -> dict[tuple[str, ...], Edges]:
    """Per parent module: (sibling A, sibling B) -> references from A's subtree into B's."""
    levels: dict[tuple[str, ...], Edges] = {}
    for source, target, ref in references(crate):
        a, b = source.path, target.path
        common = 0
        while common < min(len(a), len(b)) and a[common] == b[common]:
            common += 1
        if common == len(a) or common == len(b):
            continue
        edges = levels.setdefault(a[:common], {})
        edges.setdefault((a[common], b[common]), []).append(ref)
    return levels


def strongly_connected(edges: Edges) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one node, members sorted."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph) + 1000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(components)


def find_cycles(crate: CrateTree) -> list[Cycle]:
    """Every cycle between siblings, at every level of the crate's module tree."""
    cycles = []
    for parent, edges in sorted(sibling_edges(crate).items()):
        for members in strongly_connected(edges):
            inside = {k: v for k, v in sorted(edges.items()) if k[0] in members and k[1] in members}
            cycles.append(Cycle(crate.name, parent, members, inside))
    return cycles


# ---------------------------------------------------------------------------------------------
# Workspace: which crates, which targets.


def workspace_crates(root: str) -> list[tuple[str, str]]:
    """(crate directory, package name) of every member in Cargo.toml and every crate under host/."""
    with open(os.path.join(root, "Cargo.toml"), "rb") as handle:
        manifest = tomllib.load(handle)
    workspace = manifest.get("workspace", {})
    patterns = list(workspace.get("members", [])) + ["host/*"]
    excluded = {os.path.normpath(os.path.join(root, p)) for p in workspace.get("exclude", [])}
    dirs: list[str] = []
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(root, pattern))):
            path = os.path.normpath(path)
            is_crate = os.path.isfile(os.path.join(path, "Cargo.toml"))
            if is_crate and path not in dirs and path not in excluded:
                dirs.append(path)
    crates = []
    for path in dirs:
        with open(os.path.join(path, "Cargo.toml"), "rb") as handle:
            package = tomllib.load(handle).get("package", {})
        crates.append((path, package.get("name", os.path.basename(path))))
    return crates


def crate_targets(path: str, package: str) -> list[tuple[str, str]]:
    """(target label, root file) of the crate's library, binaries and build script."""
    with open(os.path.join(path, "Cargo.toml"), "rb") as handle:
        manifest = tomllib.load(handle)
    targets: list[tuple[str, str]] = []

    def add(label: str, rel: str) -> None:
        file = os.path.normpath(os.path.join(path, rel))
        if os.path.isfile(file) and file not in [f for _, f in targets]:
            targets.append((label, file))

    add(package, manifest.get("lib", {}).get("path", "src/lib.rs"))
    for binary in manifest.get("bin", []):
        name = binary.get("name", package)
        add(f"{package} (bin {name})", binary.get("path", f"src/bin/{name}.rs"))
    add(f"{package} (bin)", "src/main.rs")
    for file in sorted(glob.glob(os.path.join(path, "src", "bin", "*.rs"))):
        add(f"{package} (bin {os.path.basename(file)[:-3]})", os.path.relpath(file, path))
    build = manifest.get("package", {}).get("build", "build.rs")
    if isinstance(build, str):
        add(f"{package} (build script)", build)
    return targets


# ---------------------------------------------------------------------------------------------
# Report.


def format_cycle(cycle: Cycle, refs_per_edge: int) -> list[str]:
    """The report lines of one cycle: its members, then each edge with its references."""
    level = "::".join(cycle.parent)
    lines = [f"{cycle.crate}: cycle among the children of `{level}`: {', '.join(cycle.members)}"]
    for (a, b), refs in cycle.edges.items():
        lines.append(f"    {a} -> {b}")
        shown = refs if refs_per_edge <= 0 else refs[:refs_per_edge]
        for ref in shown:
            lines.append(f"        {ref.file}:{ref.line}  {ref.path}")
        if len(refs) > len(shown):
            lines.append(f"        … and {len(refs) - len(shown)} more")
    return lines


def check(root: str, max_lines: int, refs_per_edge: int, out=sys.stdout) -> int:
    """Runs both checks over the workspace at `root`, prints the report; the exit status."""
    cycles: list[Cycle] = []
    long_fns: list[Function] = []
    modules = functions = crates = 0
    for path, package in workspace_crates(root):
        crates += 1
        for label, file in crate_targets(path, package):
            crate = build_crate(root, label, file)
            for warning in crate.warnings:
                print(f"warning: {warning}", file=sys.stderr)
            modules += sum(1 for _ in crate.root.walk())
            functions += len(crate.functions)
            cycles.extend(find_cycles(crate))
            long_fns.extend(f for f in crate.functions if f.length > max_lines)
    if not cycles and not long_fns:
        print(
            f"check-architecture: OK: {crates} crates, {modules} modules, {functions} functions; "
            f"no module cycle, no non-test function over {max_lines} lines",
            file=out,
        )
        return 0
    if cycles:
        print(f"Module cycles ({len(cycles)}): siblings that reach each other", file=out)
        for cycle in cycles:
            for line in format_cycle(cycle, refs_per_edge):
                print("  " + line, file=out)
    if long_fns:
        print(f"Non-test functions over {max_lines} lines ({len(long_fns)}):", file=out)
        for fn in sorted(long_fns, key=lambda f: (f.file, f.line)):
            print(f"  {fn.file}:{fn.line}  fn {fn.name}  {fn.length} lines", file=out)
    print(
        f"check-architecture: FAILED: {len(cycles)} module cycles, {len(long_fns)} long functions "
        f"({crates} crates, {modules} modules, {functions} functions checked)",
        file=out,
    )
    return 1


def main(argv: list[str]) -> int:
    """Command line: runs the check over the workspace."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    repository = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    parser.add_argument("--root", default=repository, help="workspace root (default: this one)")
    parser.add_argument(
        "--max-lines", type=int, default=MAX_FN_LINES, help="longest function allowed (default 120)"
    )
    parser.add_argument(
        "--refs", type=int, default=3, help="references shown per edge, 0: all (default 3)"
    )
    args = parser.parse_args(argv)
    return check(os.path.abspath(args.root), args.max_lines, args.refs)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
