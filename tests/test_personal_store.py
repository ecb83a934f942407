"""A personal store by default (issue 44): sprt and tournament write awale-games.sqlite in the working folder (or
$AWALE_STORE), the thesis's store only when named; sprt's header names the specs as given; a missing ledger folder
is refused before any game."""

from __future__ import annotations

from conftest import awale

NO_STORE = {"AWALE_STORE": ""}


def test_sprt_writes_a_personal_store_by_default(tmp_path):
    done = awale("sprt", "random", "greedy", "--elo0", "0", "--elo1", "50", "--workers", "0", "--max-pairs", "2",
                 "--check-every", "2", cwd=tmp_path, env=NO_STORE)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "awale-games.sqlite").is_file() and "awale-games.sqlite" in done.stderr
    assert not (tmp_path / "data").exists()


def test_a_tournament_without_store_writes_the_personal_one(tmp_path):
    done = awale("tournament", "random", "greedy", "--games", "2", "--workers", "0", cwd=tmp_path, env=NO_STORE)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "awale-games.sqlite").is_file()


def test_sprt_names_the_specs_as_given(tmp_path):
    done = awale("sprt", "random", "greedy(eps=0.0)", "--elo0", "0", "--elo1", "50", "--workers", "0",
                 "--max-pairs", "2", "--check-every", "2", "--store", "s.sqlite", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "vs greedy (given as greedy(eps=0.0))" in done.stderr.splitlines()[0]


def test_a_ledger_file_in_a_missing_folder_is_refused_first(tmp_path):
    done = awale("sprt", "random", "greedy", "--elo0", "0", "--elo1", "50", "--ledger", "an idea",
                 "--ledger-file", "nowhere/ledger.csv", "--store", "s.sqlite", cwd=tmp_path)
    assert done.returncode == 2 and "nowhere" in done.stderr and "does not exist" in done.stderr
    assert not (tmp_path / "s.sqlite").exists() and not (tmp_path / "nowhere").exists()
