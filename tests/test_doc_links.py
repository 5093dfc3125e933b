"""Every relative link of the repository's Markdown resolves inside the repository.

A clone or an install holds only the repository, so a relative link (in any
Markdown file, or in a notebook's Markdown cells) must name a file of it, and
an anchor (``page.md#section``) a heading of that file. Links with a scheme
may only be ``http``, ``https`` or ``mailto`` (public projects such as
OpenSpiel or PettingZoo); absolute paths and other schemes leave the
repository. Links inside code (fenced blocks, inline code) are text, not links.
"""

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ALLOWED_SCHEMES = ("http", "https", "mailto")
# Written in two pieces so that this file does not mention them itself.
OUTSIDE_PATHS = ("../" + "shared", "/work/" + "shared")
SKIPPED_DIRS = {".git", ".venv", "venv", "__pycache__", "node_modules", "build", "dist"}

FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.S | re.M)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)", re.M)
HTML_LINK = re.compile(r"\b(?:href|src)\s*=\s*[\"']([^\"']+)[\"']", re.I)
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.M)
SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


def repository_files(root: Path) -> list[Path]:
    """The repository's files: tracked or not ignored, when ``root`` is a git checkout; else every file."""
    try:
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                                cwd=root, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return [path for path in sorted(root.rglob("*"))
                if path.is_file() and not SKIPPED_DIRS & set(path.relative_to(root).parts[:-1])
                and not any(part.endswith(".egg-info") for part in path.relative_to(root).parts)]
    names = sorted({name for name in listed.decode().split("\0") if name})
    return [root / name for name in names if (root / name).is_file()]


def without_code(markdown: str) -> str:
    """``markdown`` with fenced code blocks and inline code spans blanked out."""
    return CODE_SPAN.sub("", FENCE.sub("", markdown))


def markdown_of(path: Path) -> str:
    """The Markdown text of a ``.md`` file, or the Markdown cells of a notebook joined."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        return "\n\n".join("".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                           for cell in cells if cell["cell_type"] == "markdown")
    return path.read_text()


def links_of(markdown: str) -> list[str]:
    """Targets of the inline links, images, reference definitions and HTML links of ``markdown``."""
    text = without_code(markdown)
    found = [m.group(1) for pattern in (INLINE_LINK, REFERENCE_DEF, HTML_LINK) for m in pattern.finditer(text)]
    return [target[1:-1] if target.startswith("<") else target for target in found]


def heading_anchor(heading: str) -> str:
    """GitHub's anchor of a heading: its text lowercased, punctuation dropped, spaces as hyphens.

    >>> heading_anchor("Observation and information-state tensors")
    'observation-and-information-state-tensors'
    >>> heading_anchor("`gamut-facts` blocks")
    'gamut-facts-blocks'
    """
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors_of(markdown: str) -> set[str]:
    """Anchors of every heading of ``markdown``; repeated headings get ``-1``, ``-2``, ... as on GitHub."""
    anchors, seen = set(), {}
    for heading in HEADING.findall(FENCE.sub("", markdown)):
        base = heading_anchor(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        anchors.add(base if count == 0 else f"{base}-{count}")
    return anchors


def broken_links(path: Path, root: Path) -> list[str]:
    """Each link of ``path`` that leaves ``root`` or names no file or heading of it, with the reason."""
    problems = []
    for target in links_of(markdown_of(path)):
        scheme = SCHEME.match(target)
        if scheme:
            if scheme.group(1).lower() not in ALLOWED_SCHEMES:
                problems.append(f"{target}: the scheme {scheme.group(1)}: leaves the repository")
            continue
        if target.startswith("/"):
            problems.append(f"{target}: an absolute path leaves the repository (link relative to the page)")
            continue
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path.resolve()
        if not resolved.is_relative_to(root.resolve()):
            problems.append(f"{target}: points outside the repository")
        elif not resolved.exists():
            problems.append(f"{target}: no such file in the repository")
        elif anchor and resolved.suffix in (".md", ".ipynb") and anchor not in anchors_of(markdown_of(resolved)):
            problems.append(f"{target}: {resolved.name} has no heading with the anchor #{anchor}")
    return problems


def markdown_files(root: Path) -> list[Path]:
    return [path for path in repository_files(root) if path.suffix in (".md", ".ipynb")]


PAGES = markdown_files(ROOT)


def test_the_repository_has_its_pages():
    names = {str(path.relative_to(ROOT)) for path in PAGES}
    assert {"README.md", "docs/games/poke.md", "docs/games/poker_squares.md",
            "results/poker_squares/README.md"} <= names


@pytest.mark.parametrize("path", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_resolves_inside_the_repository(path):
    problems = broken_links(path, ROOT)
    assert not problems, f"{path.relative_to(ROOT)}:\n" + "\n".join(problems)


def test_no_file_mentions_a_folder_outside_the_repository():
    mentions = []
    for path in repository_files(ROOT):
        data = path.read_bytes()
        mentions += [f"{path.relative_to(ROOT)} mentions {text}" for text in OUTSIDE_PATHS if text.encode() in data]
    assert not mentions, "\n".join(mentions)


def test_the_checker_finds_each_kind_of_broken_link(tmp_path):
    """The checks above can fail: a small repository with one link of each kind."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# Page\n\n## Action encoding\n\n## Notes\n\n## Notes\n")
    (tmp_path / "README.md").write_text(
        "# Top\n"
        "[good](docs/page.md) [good anchor](docs/page.md#action-encoding) [repeat](docs/page.md#notes-1)\n"
        "[self](#top) ![image](docs/page.md) [web](https://github.com/google-deepmind/open_spiel)\n"
        "[missing](docs/absent.md) [bad anchor](docs/page.md#nothing) [out](../elsewhere/rules.md)\n"
        "[absolute](/etc/hosts) [file scheme](file:///etc/hosts) [bad self](#nowhere)\n"
        "`[code span](docs/absent.md)`\n\n```\n[fenced](docs/absent.md)\n```\n"
        "[ref]: docs/missing_ref.md\n"
        "<a href=\"docs/absent.html\">html</a>\n")
    problems = broken_links(tmp_path / "README.md", tmp_path)
    named = sorted(problem.split(":")[0] for problem in problems)
    assert named == sorted(["docs/absent.md", "docs/page.md#nothing", "../elsewhere/rules.md", "/etc/hosts",
                            "file", "#nowhere", "docs/missing_ref.md", "docs/absent.html"]), problems
    notebook = tmp_path / "analysis.ipynb"
    notebook.write_text(json.dumps({"cells": [
        {"cell_type": "markdown", "source": ["See [the page](docs/page.md#page) and ", "[gone](gone.md)."]},
        {"cell_type": "code", "source": ["# [not a link](gone.md)"]}]}))
    assert [p.split(":")[0] for p in broken_links(notebook, tmp_path)] == ["gone.md"]
    assert [p.relative_to(tmp_path) for p in markdown_files(tmp_path)] == [
        Path("README.md"), Path("analysis.ipynb"), Path("docs/page.md")]
