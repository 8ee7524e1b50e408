"""Self-test of check_architecture.py: tiny fixture crates in a temporary directory, each
proving one thing the check must catch (or must leave alone).

Run: scripts/check-architecture.sh --self-test (or python3 scripts/test_check_architecture.py).
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import textwrap
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import check_architecture as checker  # noqa: E402


def write_crate(root: str, crate: str, files: dict[str, str]) -> str:
    """Writes a crate `crate` under `root` with `files` (paths relative to its src/)."""
    base = os.path.join(root, crate)
    os.makedirs(os.path.join(base, "src"), exist_ok=True)
    with open(os.path.join(base, "Cargo.toml"), "w", encoding="utf-8") as handle:
        handle.write(f'[package]\nname = "{os.path.basename(crate)}"\nversion = "0.1.0"\n')
    for rel, text in files.items():
        path = os.path.join(base, "src", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(textwrap.dedent(text))
    return base


def long_body(lines: int) -> str:
    """Statements for a function body so that `fn` line to `}` spans exactly `lines` lines."""
    return "\n".join("    let _ = 1;" for _ in range(lines - 2))


class Fixture(unittest.TestCase):
    """A temporary workspace per test."""

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def crate(self, files: dict[str, str], name: str = "fixture") -> checker.CrateTree:
        base = write_crate(self.root, name, files)
        return checker.build_crate(self.root, name, os.path.join(base, "src", "lib.rs"))

    def cycles(self, files: dict[str, str]) -> list[tuple[str, list[str]]]:
        return [("::".join(c.parent), c.members) for c in checker.find_cycles(self.crate(files))]


class Cycles(Fixture):
    def test_two_cycle_through_use_and_an_expression_path(self) -> None:
        crate = self.crate(
            {
                "lib.rs": "mod a;\nmod b;\n",
                "a.rs": "use crate::b::B;\npub struct A;\n",
                "b.rs": "pub struct B;\nfn f() {\n    let _ = crate::a::A;\n}\n",
            }
        )
        [cycle] = checker.find_cycles(crate)
        self.assertEqual((cycle.parent, cycle.members), (("crate",), ["a", "b"]))
        where = {e: [(r.file, r.line, r.path) for r in refs] for e, refs in cycle.edges.items()}
        src = os.path.join("fixture", "src")
        self.assertEqual(where[("a", "b")], [(os.path.join(src, "a.rs"), 1, "use crate::b::B")])
        self.assertEqual(where[("b", "a")], [(os.path.join(src, "b.rs"), 3, "crate::a::A")])

    def test_three_cycle_through_nested_modules(self) -> None:
        found = self.cycles(
            {
                "lib.rs": "mod x;\nmod y;\nmod z;\n",
                "x/mod.rs": "mod inner;\n",
                "x/inner.rs": "pub struct I;\nfn f() -> crate::y::deep::D { todo!() }\n",
                "y/mod.rs": "pub mod deep;\n",
                "y/deep.rs": "pub struct D;\nfn g() { crate::z::h(); }\n",
                "z.rs": "pub fn h() {}\nfn k(_: crate::x::inner::I) {}\n",
            }
        )
        self.assertEqual(found, [("crate", ["x", "y", "z"])])

    def test_super_cycle_one_level_down(self) -> None:
        found = self.cycles(
            {
                "lib.rs": "mod p;\n",
                "p/mod.rs": "mod a;\nmod b;\n",
                "p/a.rs": "use super::b::g;\npub fn h() {}\n",
                "p/b.rs": "pub fn g() { super::a::h() }\n",
            }
        )
        self.assertEqual(found, [("crate::p", ["a", "b"])])

    def test_grouped_and_nested_use_cycle(self) -> None:
        found = self.cycles(
            {
                "lib.rs": "mod m;\nmod n;\nmod o;\n",
                "m.rs": "use crate::{o::Z, n::{inner::{self as i}}};\n",
                "n/mod.rs": "pub mod inner;\n",
                "n/inner.rs": "use crate::{m::*};\n",
                "o.rs": "pub struct Z;\n",
            }
        )
        self.assertEqual(found, [("crate", ["m", "n"])])

    def test_re_export_through_the_parent_is_an_edge_to_the_defining_sibling(self) -> None:
        found = self.cycles(
            {
                "lib.rs": "mod q;\n",
                "q/mod.rs": "mod a;\nmod b;\npub use b::Thing;\n",
                "q/a.rs": "pub struct A;\nfn f(_: super::Thing) {}\n",
                "q/b.rs": "pub struct Thing;\nuse super::a::A;\n",
            }
        )
        self.assertEqual(found, [("crate::q", ["a", "b"])])

    def test_glob_import_of_the_parent_reaches_a_sibling(self) -> None:
        found = self.cycles(
            {
                "lib.rs": "mod a;\nmod b;\n",
                "a.rs": "use super::*;\nfn f() { b::g() }\npub fn h() {}\n",
                "b.rs": "pub fn g() { crate::a::h() }\n",
            }
        )
        self.assertEqual(found, [("crate", ["a", "b"])])

    def test_path_attribute_and_macro_paths(self) -> None:
        found = self.cycles(
            {
                "lib.rs": '#[path = "elsewhere/c.rs"]\nmod c;\nmod d;\n',
                "elsewhere/c.rs": "pub fn f() { println!(\"{}\", crate::d::X); }\n",
                "d.rs": "pub const X: u8 = 1;\nmacro_rules! m { () => { $crate::c::f() }; }\n",
            }
        )
        self.assertEqual(found, [("crate", ["c", "d"])])

    def test_one_way_references_parents_and_children_are_no_cycle(self) -> None:
        found = self.cycles(
            {
                "lib.rs": "mod a;\nmod b;\npub fn top() { a::f(); }\n",
                "a.rs": "mod child;\npub fn f() { child::g(); crate::b::h(); super::top(); }\n",
                "a/child.rs": "pub fn g() { super::f(); crate::b::h(); }\n",
                "b.rs": "pub fn h() { crate::top(); }\n",
            }
        )
        self.assertEqual(found, [])


class LeftAlone(Fixture):
    def test_names_that_only_look_like_a_sibling_make_no_edge(self) -> None:
        found = self.cycles(
            {
                "lib.rs": "mod a;\nmod b;\n",
                "a.rs": "use super::*;\nfn f(v: V) { other::b::g(); v.b::<u8>() }\npub fn h() {}\n",
                "b.rs": "pub fn g() { crate::a::h() }\n",
            }
        )
        self.assertEqual(found, [])

    def test_test_modules_and_test_only_items_make_no_edge(self) -> None:
        found = self.cycles(
            {
                "lib.rs": "mod a;\nmod b;\n#[cfg(test)]\nmod test_support;\n",
                "a.rs": """\
                    use crate::b::B;
                    #[cfg(test)]
                    mod tests {
                        use crate::b::B;
                    }
                """,
                "b.rs": """\
                    pub struct B;
                    #[cfg(test)]
                    use crate::a::Nothing;
                    #[cfg(all(test, unix))]
                    fn helper() { crate::a::f(); }
                    #[test]
                    fn check() { crate::a::f(); }
                    mod tests;
                    #[cfg(test)]
                    #[path = "elsewhere.rs"]
                    mod other;
                    mod only_tests;
                """,
                "b/tests.rs": "use crate::a::A;\n",
                "b/only_tests.rs": "#![cfg(test)]\nuse crate::a::A;\n",
                "test_support.rs": "use crate::a::A;\nuse crate::b::B;\n",
            }
        )
        self.assertEqual(found, [])

    def test_references_in_strings_and_comments_make_no_edge(self) -> None:
        found = self.cycles(
            {
                "lib.rs": "mod a;\nmod b;\n",
                "a.rs": "use crate::b::B;\n",
                "b.rs": """\
                    //! crate::a::A in the module doc
                    pub struct B;
                    /// Calls crate::a::f() in a doc comment.
                    fn f() -> &'static str {
                        // crate::a::f();
                        /* crate::a::f(); /* nested */ crate::a::f(); */
                        let _ = 'a';
                        let _ = b"crate::a::f()";
                        let _ = r#"say "crate::a::f()" here"#;
                        "crate::a::f()"
                    }
                """,
            }
        )
        self.assertEqual(found, [])

    def test_a_cfg_any_test_item_still_counts(self) -> None:
        found = self.cycles(
            {
                "lib.rs": "mod a;\nmod b;\n",
                "a.rs": "use crate::b::B;\npub fn f() {}\n",
                "b.rs": "pub struct B;\n#[cfg(any(test, unix))]\nfn g() { crate::a::f() }\n",
            }
        )
        self.assertEqual(found, [("crate", ["a", "b"])])


class LongFunctions(Fixture):
    def test_a_function_over_the_limit_is_reported_with_its_length(self) -> None:
        tricky = '    let _ = "}"; let _ = \'}\'; let _ = r#"}"#; // }\n    /* { */\n'
        crate = self.crate(
            {
                "lib.rs": (
                    "fn fits() {\n" + long_body(checker.MAX_FN_LINES) + "\n}\n"
                    "\n/// Doc.\npub async fn too_long() {\n"
                    + tricky
                    + long_body(checker.MAX_FN_LINES - 1)
                    + "\n}\n"
                    "trait T {\n    fn declared(&self);\n}\n"
                ),
            }
        )
        lengths = {f.name: (f.line, f.length) for f in crate.functions}
        self.assertEqual(lengths["fits"], (1, checker.MAX_FN_LINES))
        self.assertEqual(lengths["too_long"], (checker.MAX_FN_LINES + 3, checker.MAX_FN_LINES + 1))
        self.assertNotIn("declared", lengths)

    def test_long_test_functions_are_not_counted(self) -> None:
        body = long_body(checker.MAX_FN_LINES + 10)
        crate = self.crate(
            {
                "lib.rs": (
                    "#[cfg(test)]\nmod tests {\n    fn helper() {\n" + body + "\n}\n}\n"
                    "#[test]\nfn a_test() {\n" + body + "\n}\n"
                    "#[tokio::test]\nasync fn an_async_test() {\n" + body + "\n}\n"
                    '#[tokio::test(flavor = "multi_thread")]\nasync fn more() {\n' + body + "\n}\n"
                ),
            }
        )
        self.assertEqual(crate.functions, [])


class Workspace(Fixture):
    def run_check(self) -> tuple[int, str]:
        out = io.StringIO()
        status = checker.check(self.root, checker.MAX_FN_LINES, 3, out)
        return status, out.getvalue()

    def write_workspace(self, members: str) -> None:
        with open(os.path.join(self.root, "Cargo.toml"), "w", encoding="utf-8") as handle:
            handle.write(f"[workspace]\nmembers = {members}\n")

    def test_members_and_new_crates_under_host_are_checked(self) -> None:
        self.write_workspace('["lib/one"]')
        write_crate(self.root, "lib/one", {"lib.rs": "pub fn f() {}\n"})
        write_crate(
            self.root,
            "host/two",
            {
                "main.rs": "mod a;\nmod b;\nfn main() {}\n",
                "a.rs": "use crate::b::g;\npub fn h() {}\n",
                "b.rs": "pub fn g() { crate::a::h() }\n",
            },
        )
        status, report = self.run_check()
        self.assertEqual(status, 1)
        self.assertIn("two (bin): cycle among the children of `crate`: a, b", report)
        self.assertIn(os.path.join("host", "two", "src", "a.rs") + ":1  use crate::b::g", report)

    def test_a_clean_workspace_prints_one_ok_line(self) -> None:
        self.write_workspace('["one"]')
        files = {"lib.rs": "mod a;\npub fn f() { a::g() }\n", "a.rs": "pub fn g() {}\n"}
        write_crate(self.root, "one", files)
        status, report = self.run_check()
        self.assertEqual(status, 0)
        self.assertEqual(report.count("\n"), 1)
        self.assertIn("OK: 1 crates, 2 modules, 2 functions", report)

    def test_a_long_function_fails_the_check(self) -> None:
        self.write_workspace('["one"]')
        source = "fn big() {\n" + long_body(checker.MAX_FN_LINES + 1) + "\n}\n"
        source += "fn fits() {\n" + long_body(checker.MAX_FN_LINES) + "\n}\n"
        write_crate(self.root, "one", {"lib.rs": source})
        status, report = self.run_check()
        self.assertEqual(status, 1)
        where = os.path.join("one", "src", "lib.rs")
        self.assertIn(f"{where}:1  fn big  {checker.MAX_FN_LINES + 1} lines", report)
        self.assertNotIn("fits", report)


if __name__ == "__main__":
    unittest.main(verbosity=1)
