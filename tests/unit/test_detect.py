"""Which language a file is in: extensions, well-known file names, shebangs of scripts without
an extension, and the user's `languages` globs; one canonical name per language, aliases
accepted wherever a language is named."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from indexing.detect import detect_language, language_by_name, shebang_language
from indexing.languages import canonical
from indexing.settings import Settings, add_arguments, from_arguments, parse
from kebab_lsp.workspace import Workspace
from search.request import build


@pytest.mark.parametrize(
    ("path", "lang"),
    [
        ("a/b.py", "python"),
        ("x.PYI", "python"),
        ("x.jsx", "javascript"),
        ("x.tsx", "tsx"),
        ("x.h", "c"),
        ("x.hh", "cpp"),
        ("lib/x.rb", "ruby"),
        ("infra/main.tf", "terraform"),
        ("schema.graphqls", "graphql"),
        ("notes.txt", None),
        ("data.bin", None),
        (".py", None),  # a hidden file's name, not an extension
        ("Makefile", "make"),
        ("src/GNUmakefile", "make"),
        ("Dockerfile", "dockerfile"),
        ("docker/Dockerfile.dev", "dockerfile"),
        ("web.Dockerfile", "dockerfile"),
        ("CMakeLists.txt", "cmake"),
        ("Jenkinsfile", "groovy"),
        ("Gemfile", "ruby"),
        ("Rakefile", "ruby"),
        ("home/.bashrc", "bash"),
        (".zshrc", "bash"),
        ("BUILD.bazel", "starlark"),
        ("requirements-dev.txt", "requirements"),
        (".gitignore", "gitignore"),
        ("meson.build", "meson"),
    ],
)
def test_by_name_and_extension(path: str, lang: str | None) -> None:
    assert detect_language(path) == lang


@pytest.mark.parametrize(
    ("head", "lang"),
    [
        ("#!/usr/bin/env python3\nimport sys\n", "python"),
        ("#!/usr/bin/python3.11 -u\n", "python"),
        ("#!/bin/bash\nset -e\n", "bash"),
        ("#!/bin/sh\n", "bash"),
        ("#!/usr/bin/env -S node --no-warnings\n", "javascript"),
        ("#!/usr/bin/env ruby\n", "ruby"),
        ("#!/usr/bin/env perl -w\n", "perl"),
        ("#!/usr/bin/env Rscript\n", "r"),
        ("#!/usr/bin/env escript\n", "erlang"),
        ("#!/usr/bin/env somethingelse\n", None),
        ("#!\n", None),
        ("print('no shebang')\n", None),
    ],
)
def test_shebang_of_a_script_without_extension(head: str, lang: str | None) -> None:
    assert shebang_language(head) == lang
    assert detect_language("bin/tool", head) == lang


def test_a_name_beats_a_shebang() -> None:
    assert detect_language("tool.sh", "#!/usr/bin/env python3\n") == "bash"
    assert detect_language("Rakefile", "#!/usr/bin/env python\n") == "ruby"


def test_the_users_globs_come_first_in_order() -> None:
    overrides = (("*.inc", "php"), ("legacy/*.h", "cpp"), ("*.h", "objc"))
    assert detect_language("lib/config.inc", "", overrides) == "php"
    assert detect_language("legacy/old.h", "", overrides) == "cpp"
    assert detect_language("src/new.h", "", overrides) == "objc"
    assert detect_language("src/new.c", "", overrides) == "c"
    assert language_by_name("bin/tool", (("bin/*", "bash"),)) == "bash"


@pytest.mark.parametrize(
    ("name", "lang"),
    [("js", "javascript"), ("TS", "typescript"), ("c#", "csharp"), ("cs", "csharp"),
     ("rb", "ruby"), ("sh", "bash"), ("zsh", "bash"), ("C++", "cpp"), ("py", "python"),
     ("golang", "go"), ("yml", "yaml"), ("proto", "protobuf"), ("tf", "terraform"),
     ("objective-c", "objc"), ("md", "markdown"), ("python", "python"), ("cobol", None)],
)
def test_one_canonical_name_many_aliases(name: str, lang: str | None) -> None:
    assert canonical(name) == lang


def test_the_languages_setting_in_every_shape() -> None:
    settings, warnings = parse({"kebab": {"languages": {"*.inc": "PHP", "*.tpl": "c#"}}},
                               Settings())
    assert warnings == []
    assert settings.languages == (("*.inc", "php"), ("*.tpl", "csharp"))
    kept, warnings = parse({"languages": {"*.inc": "cobol"}}, settings)
    assert kept.languages == settings.languages
    assert warnings and "unknown language 'cobol'" in warnings[0]
    _, warnings = parse({"languages": ["*.inc"]}, settings)
    assert warnings  # no language named
    parser = argparse.ArgumentParser()
    add_arguments(parser, ["languages"])
    args = parser.parse_args(["--languages", "*.inc=php", "--languages", "*.m=objc"])
    flagged, warnings = from_arguments(args, Settings(), ["languages"])
    assert warnings == [] and flagged.languages == (("*.inc", "php"), ("*.m", "objc"))


def test_a_lang_filter_takes_aliases() -> None:
    req = build("x", Settings(), langs=("js", "C#", "txt"))
    assert req.filters.langs == ("javascript", "csharp", "txt")


def test_files_are_read_again_when_the_setting_changes(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "config.inc").write_text("<?php\nfunction load_config() { return []; }\n")
    (root / "run").write_text("#!/usr/bin/env python3\ndef main():\n    pass\n")
    index_dir = str(tmp_path / "index")
    ws = Workspace(root, Settings(index_dir=index_dir, workers=1))
    ws.indexer.index()
    assert ws.store.stats().langs == {"inc": 1, "python": 1}
    ws.close()
    ws = Workspace(root, Settings(index_dir=index_dir, workers=1, languages=(("*.inc", "php"),)))
    try:
        summary = ws.indexer.index()
        assert summary.changed == 2  # every file, though none changed on disk
        assert ws.store.stats().langs == {"php": 1, "python": 1}
        names = {r.symbol.name for r in ws.store.all_symbols()}
        assert names == {"load_config", "main"}
        assert ws.indexer.index().changed == 0  # and once is enough
    finally:
        ws.close()
