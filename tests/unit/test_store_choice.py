"""Choosing a store (`indexing.store_choice`) and naming one in messages: no server needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.postgres.team_vectors import dataset_dir
from indexing.store_choice import safe_url
from kebab_lsp.cli import main


def test_store_and_repo_go_together() -> None:
    with pytest.raises(SystemExit, match="--store postgresql"):
        main(["search", "x", "--repo", "app"])
    with pytest.raises(SystemExit, match="--repo NAME"):
        main(["search", "x", "--store", "postgresql:///db"])
    with pytest.raises(SystemExit, match="sqlite or a postgresql:// URL"):
        main(["search", "x", "--store", "mysql://db", "--repo", "app"])
    for typo, shown in (("postgress://ci:s3cret@db/code", "'postgress://ci:***@db/code'"),
                        ("Postgresql://ci:s3cret@db/code", "'Postgresql://ci:***@db/code'"),
                        ("ci:s3cret@db/code", "'***@db/code'"), ("sqlit", "'sqlit'")):
        with pytest.raises(SystemExit) as stop:
            main(["search", "x", "--store", typo, "--repo", "app"])
        assert str(stop.value).endswith(f"URL, got {shown}"), stop.value
    with pytest.raises(SystemExit, match="invalid repository name"):
        main(["search", "x", "--store", "postgresql:///db", "--repo", "../etc"])
    nested = "/".join(["ab"] * 66) + "/x"  # 199 characters, 66 of them "/"
    assert len(dataset_dir(Path("/v"), nested).name) == 331
    with pytest.raises(SystemExit, match="named with 331 characters; a file system allows 255"):
        main(["search", "x", "--store", "postgresql:///db", "--repo", nested])


@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://ci:s3cret@db:5432/code", "postgresql://ci:***@db:5432/code"),
    ("postgresql:///code?host=/run/pg&user=ci&password=s3cret",
     "postgresql:///code?host=/run/pg&user=ci&password=***"),
    ("postgresql://ci@db/code?sslmode=require", "postgresql://ci@db/code?sslmode=require"),
])
def test_messages_never_show_a_password(url: str, shown: str) -> None:
    assert safe_url(url) == shown


def test_an_unreachable_team_index_is_one_line_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"postgresql:///code?host={tmp_path}&user=ci&password=s3cret"
    assert main(["search", "x", "--store", url, "--repo", "app"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("kebab: cannot connect to the team index at ")
    assert "s3cret" not in err and "Traceback" not in err
