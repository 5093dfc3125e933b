"""``gamut dice solve`` and ``gamut dice advise``."""

import json

import pytest

from gamut.experiments.cli import main


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMUT_CACHE_DIR", str(tmp_path))


def _last_json(capsys):
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_solve_prints_expected_score_as_json(capsys):
    assert main(["dice", "solve", "--variant", "yacht12", "--json"]) == 0
    result = _last_json(capsys)
    assert result["variant"] == "yacht12" and result["seconds"] >= 0
    assert result["expected_score"] == pytest.approx(185.9716927, abs=1e-6)
    assert main(["dice", "solve", "--variant", "yacht12", "--json"]) == 0
    assert _last_json(capsys)["from_cache"] is True


def test_advise_last_roll_with_two_boxes_open(capsys):
    args = ["dice", "advise", "--variant", "yacht12", "--dice", "2,3,4,5,5", "--rolls-left", "0",
            "--open", "large_straight,small-straight", "--json"]
    assert main(args) == 0
    result = _last_json(capsys)
    # 2,3,4,5,5 is only a small straight: 25 now, and the large straight is left open.
    assert result["best"] == "box small straight"
    assert [o["choice"] for o in result["options"]] == ["box small straight", "box large straight"]


def test_advise_offers_keeps_with_rolls_left(capsys):
    assert main(["dice", "advise", "--variant", "classic", "--dice", "6,6,6,6,2", "--json"]) == 0
    result = _last_json(capsys)
    choices = [o["choice"] for o in result["options"]]
    assert "keep 6,6,6,6" in choices and "box sixes" in choices
    assert result["best_value"] == max(o["value"] for o in result["options"])


@pytest.mark.parametrize("args, message", [
    (["--variant", "yacht12", "--dice", "1,2,3,4,7"], "--dice '1,2,3,4,7': expected five faces 1..6"),
    (["--variant", "yacht12", "--dice", "1,2,3,4,5", "--open", "sevens"], "unknown box 'sevens'"),
    (["--variant", "classic", "--dice", "1,2,3,4,5", "--open", "ones,pair"], "impossible"),
    (["--variant", "yacht12", "--dice", "1,2,3,4,5", "--bank", "2"], "classic_banked only"),
])
def test_advise_rejects_bad_input(args, message, capsys):
    assert main(["dice", "advise", *args]) == 2
    assert message in capsys.readouterr().err


def test_ranking_prints_win_shares(capsys):
    assert main(["dice", "ranking", "--players", "3", "--json"]) == 0
    result = _last_json(capsys)
    assert len(result["win_share"]) == 3 and sum(result["win_share"]) == pytest.approx(1.0)
    assert main(["dice", "ranking", "--players", "9"]) == 2
    assert "argument --players: expected a whole number in 2..8" in capsys.readouterr().err


def _play_args(**overrides):
    import argparse

    values = {"variant": "yacht12", "joker": "free", "players": 1, "seat": 0, "opponent": "optimal",
              "hint": "optimal", "seed": 1}
    return argparse.Namespace(**{**values, **overrides})


def test_play_explains_bad_moves_and_leaves_on_quit():
    from gamut.experiments.commands.dice import run_play

    script = iter(["hint", "box sevens", "keep 9", "quit"])
    out = []
    assert run_play(_play_args(), read=lambda prompt: next(script), write=out.append) == 0
    text = "\n".join(out)
    assert "hint: " in text and "(optimal; expected points to come: " in text
    assert "'box sevens' is not a legal action here" in text
    assert "'9' is not a die face" in text and "bye: the game was left unfinished" in text


def test_play_a_whole_game_always_taking_the_advice():
    from gamut.experiments.commands.dice import run_play

    answers, out = [], []

    def read(prompt):
        assert len(answers) < 200, answers[-6:]  # a wrong hint parse would loop
        # Ask for a hint, then type what the advisor said.
        if not answers or answers[-1] != "hint":
            answers.append("hint")
            return "hint"
        hint = [x for x in out if x.startswith("hint: ")][-1].removeprefix("hint: ").split("   (")[0]
        answers.append(hint)
        return hint

    assert run_play(_play_args(seed=4), read=read, write=out.append) == 0
    assert out[-1].startswith("game over: you +")
    assert sum(a.startswith("box") for a in answers) == 12
    # The final sheet's total is the score the game returns.
    total = next(line for line in out[-2].splitlines() if line.strip().startswith("total"))
    assert f"+{total.split()[-1]}" == out[-1].split()[-1]


def test_solve_without_a_writable_cache_still_answers_and_writes_nothing(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder\n")
    monkeypatch.setenv("GAMUT_CACHE_DIR", str(blocker / "cache"))
    assert main(["dice", "solve", "--variant", "yacht12", "--json"]) == 0
    result = _last_json(capsys)
    assert result["from_cache"] is False and result["expected_score"] == pytest.approx(185.9716927, abs=1e-6)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]
