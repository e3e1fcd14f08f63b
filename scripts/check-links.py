#!/usr/bin/env python3
"""Checks that the repository's documentation links resolve, so a clone stands alone.

  python3 scripts/check-links.py [REPO]     # exit 1, naming each broken link

Checked: every relative Markdown link [text](path) and image in README.md and docs/
(the file must exist; #anchors are not checked), and every docs/... path that a comment
in core/, app/, tests/, shaders/ or scripts/ cites. External links (http:, https:,
mailto:) are left alone. Nothing may cite ../shared or its design notes by name
(lsrl.md, recurrences.md, ...): a clone lacks them; docs/spec/ holds what they said.
"""
import pathlib
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
# The design notes the project was started from, cited without a path: a clone lacks them.
DESIGN_NOTE = re.compile(
    r"(?<![/\w-])(?:lsrl|recurrences|looped-transformer|ua-programs)\.md|(?<![/\w-])architectures\.md §"
)
CITED = re.compile(r"\bdocs/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(?:md|png|svg|json|csv)")
SOURCE_DIRS = ("core", "app", "tests", "shaders", "scripts")
SOURCE_SUFFIXES = {".h", ".cpp", ".in", ".py", ".sh", ".comp", ".glsl", ".txt", ".cmake", ".qml"}


def markdown_files(repo):
    yield repo / "README.md"
    yield from sorted((repo / "docs").rglob("*.md"))


def broken_markdown_links(repo):
    for md in markdown_files(repo):
        text = md.read_text(encoding="utf-8")
        # Links inside code spans and fenced blocks are examples, not links.
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            if path and not (md.parent / path).exists():
                yield f"{md.relative_to(repo)}: link to {target} (no such file)"


def broken_citations(repo):
    for top in SOURCE_DIRS:
        for f in sorted((repo / top).rglob("*")):
            if not f.is_file() or (f.suffix not in SOURCE_SUFFIXES and f.name != "CMakeLists.txt"):
                continue
            try:
                text = f.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            for n, line in enumerate(text.splitlines(), 1):
                if f.name == "check-links.py":
                    continue
                if "shared/design" in line:
                    yield f"{f.relative_to(repo)}:{n}: cites ../shared/design (cite docs/)"
                elif DESIGN_NOTE.search(line):
                    yield f"{f.relative_to(repo)}:{n}: cites a design note (cite docs/spec/)"
                for cited in CITED.findall(line):
                    if not (repo / cited).exists():
                        yield f"{f.relative_to(repo)}:{n}: cites {cited} (no such file)"


def main():
    repo = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    problems = list(broken_markdown_links(repo)) + list(broken_citations(repo))
    for p in problems:
        print(p)
    count = sum(1 for _ in markdown_files(repo))
    print(f"check-links: {count} Markdown files and the sources' docs/ citations, "
          f"{len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
