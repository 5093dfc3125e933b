"""Paired matches of ``nn_ismcts`` against ``ismcts`` at the same wall time per move, resumable.

    python -m gamut.experiments.studies.nn_ismcts_match poke --seconds 0.1 --pairs 60 --seed 1 \\
        --a-option c_puct=1.0 --out results/nn_ismcts/poke_final
    python -m gamut.experiments.studies.nn_ismcts_match palace_poker --seconds 0.1 --pairs 150 --seed 1 \\
        --out results/nn_ismcts/palace_final
    python -m gamut.experiments.studies.nn_ismcts_match poke --speed --seconds 0.1 --pairs 40 \\
        --out results/nn_ismcts/poke_speed
    python -m gamut.experiments.studies.nn_ismcts_match collect results/nn_ismcts     # matches.csv and matches.png

The match is the one the game's declaration names (``GAME.paired_match``,
``gamut.solvers.paired_match``): for ``poke``, pairs of full rubbers
(``poke(mode=rubber)``), the same deals with the seats swapped, a pair's
sample being A's mean above-the-line margin over its two rubbers; for
``palace_poker``, four-player deals each played in all four seat rotations of
the lineup A, B, A, B, a deal's sample being A's mean chips per hand minus
B's. The report is the mean with a 95% t interval over the samples (``n`` =
pairs or deals). ``--game-string`` plays the same samples on another variant
of the game (for Poke, ``poke(mode=deal,trick_value=34.0)``: pairs of single
deals valued as the search values them, a sample spread far narrower than a
rubber's, for tuning). With ``--iterations``, ``--a-iterations`` gives A a
count of its own (a search of another size against the same opponent).

Each finished sample is appended to ``<out>.jsonl`` at once, so an
interrupted run resumes where it stopped; ``<out>.json`` holds the summary
and the provenance (toolkit and game versions, git commit, seeds, options,
machine). Its ``git_commit`` is the checkout's when the summary was
written; each row records the commit its run started from (``commit``), and
the summary counts the rows of each (``sample_commits``), so a run resumed
or left going across commits says which code played which samples.
``--workers N`` plays the samples in N processes of one thread each (a
sample depends only on the seed and its index, so at a fixed iteration
count the rows are the same with any N). ``--speed`` measures instead the iterations a second of both
searches on the same positions. Both sides search for ``--seconds`` of wall time a move on one
thread: time-budgeted play depends on the machine's load and is not
reproducible move for move; the deals and the bots' seeds are.

Two matches of one seed play the same samples, so one configuration can be
compared with another pair by pair (``paired``)::

    python -m gamut.experiments.studies.nn_ismcts_match paired FIRST SECOND
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

def _options(items: list[str]) -> dict:
    from gamut.experiments.validate import parse_options

    return parse_options(items, "--a-option")


def _done(path: Path) -> dict[int, dict]:
    if not path.is_file():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {row["index"]: row for row in rows}


def _side_options(a_name: str, b_name: str, a_options: dict, b_options: dict, budget: dict) -> dict:
    """Each agent's options with the budget, keyed by agent name; ValueError if one name would need two sets."""
    if a_name == b_name and a_options != b_options:
        raise ValueError(f"--a and --b are both {a_name!r} with different options ({a_options} and {b_options}): "
                         f"a match keeps one set of options per agent name, so play two different agents, or "
                         f"the same agent with the same options (the seeds still differ)")
    return {a_name: {**a_options, **budget}, b_name: {**b_options, **budget}}


def _warm_up(game, opts: dict) -> None:
    """One search by each agent on a fresh deal's first choice: loads the compiled kernels before any timed move."""
    from gamut.solvers.bots import make_bot

    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    while state.is_chance_node() or len(state.legal_actions()) < 2:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            state.apply_action(state.legal_actions()[0])
    for name, options in opts.items():
        make_bot(game, name, state.current_player(), 0, **options).step(state)


# One worker process's match: set by ``_start_worker``, read by ``_play_sample``.
_WORKER: dict = {}


def _start_pool_worker(parent: int, *init) -> None:
    """Initializer of a pool's worker: end with the run (a killed run leaves no worker playing on), then start."""
    from gamut.solvers.backends import die_with_parent

    die_with_parent(parent)
    _start_worker(*init)


def _start_worker(game_string: str, game_key: str, opts: dict, a_name: str, b_name: str, seed: int) -> None:
    """Initializer of a worker process: one BLAS thread, the game, and a warm-up search per agent."""
    from threadpoolctl import threadpool_limits

    import gamut.envs  # noqa: F401  (registers the games)
    from gamut.envs.loading import load_game
    from gamut.solvers.paired_match import paired_match

    threadpool_limits(1)
    game = load_game(game_string)
    _warm_up(game, opts)
    _WORKER.update(game=game, match=paired_match(game_key), opts=opts, a_name=a_name, b_name=b_name, seed=seed)


def _play_sample(i: int) -> dict:
    """Sample ``i`` of the worker's match, as the row written to ``<out>.jsonl``."""
    from gamut.solvers.bots import make_bot

    w = _WORKER
    game, opts = w["game"], w["opts"]
    t = time.perf_counter()
    row = w["match"].play_sample(game, lambda name, seat, q: make_bot(game, name, seat, q, **opts[name]),
                                 w["a_name"], w["b_name"], w["seed"], i)
    return {"index": i, **row, "seconds": time.perf_counter() - t}


def run(game_key: str, seconds: float, pairs: int, seed: int, a_options: dict, b_options: dict,
        out: Path, a_name: str = "nn_ismcts", b_name: str = "ismcts", iterations: int = 0,
        game_string: str = "", workers: int = 1, a_iterations: int = 0) -> dict:
    """Play (or resume) the match; returns the summary written to ``<out>.json``.

    Both sides search ``seconds`` a move, or, with ``seconds`` 0, ``iterations`` a move; ``a_iterations``
    (above 0, with an iteration budget only) gives A a count of its own, B keeping ``iterations``.
    ``game_string`` (empty: the declared match's game) plays the samples on another variant.
    ``workers`` processes play the samples (rows are appended as they finish, in any order).
    """
    import gamut.envs  # noqa: F401  (registers the games)
    from gamut.envs.loading import load_game
    from gamut.experiments.provenance import command_record, git_commit
    from gamut.solvers.stats import mean_ci

    from gamut.solvers.paired_match import paired_match

    match = paired_match(game_key)
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if (seconds > 0) == (iterations > 0):
        raise ValueError(f"give one budget a move, --seconds > 0 or --iterations > 0; got {seconds} and {iterations}")
    game = load_game(game_string or match.game)
    if game.get_type().short_name != load_game(match.game).get_type().short_name:
        raise ValueError(f"--game-string {game_string!r} is not a variant of {match.game}")
    if a_iterations < 0 or (a_iterations > 0 and seconds > 0):
        raise ValueError(f"A's own iteration count needs an iteration budget and must be > 0; got "
                         f"a_iterations={a_iterations} with seconds={seconds}")
    budget = {"seconds": seconds} if seconds > 0 else {"seconds": 0.0, "iterations": iterations}
    opts = _side_options(a_name, b_name, a_options, b_options, budget)
    if a_iterations:
        if a_name == b_name:
            raise ValueError(f"--a and --b are both {a_name!r}: one agent name cannot search two iteration counts")
        opts[a_name]["iterations"] = a_iterations
    out.parent.mkdir(parents=True, exist_ok=True)
    # Appended, not swapped: an out path like "palace_c0.5" has a dot of its own.
    log = Path(f"{out}.jsonl")
    done = _done(log)
    todo = [i for i in range(pairs) if i not in done]
    start = time.perf_counter()
    init = (str(game), game_key, opts, a_name, b_name, seed)
    if workers == 1:
        _start_worker(*init)
        rows = map(_play_sample, todo)
    else:
        import multiprocessing

        pool = multiprocessing.get_context("fork").Pool(workers, _start_pool_worker, (os.getpid(), *init))
        rows = pool.imap_unordered(_play_sample, todo)
    commit = git_commit()
    for row in rows:
        row["commit"] = commit
        done[row["index"]] = row
        with log.open("a") as handle:
            handle.write(json.dumps(row) + "\n")
    if workers > 1:
        pool.close()
        pool.join()
    samples = np.array([done[i]["sample"] for i in range(pairs)])
    est = mean_ci(samples)
    from gamut.solvers.bots import bot_specs

    specs = bot_specs(game)
    # Every option in effect, defaults included: the defaults may change in later commits.
    resolved = {name: {key: opt.default for key, opt in specs[name].options.items()} | options
                for name, options in opts.items()}
    summary = {"game": str(game), "agent_a": a_name, "agent_b": b_name, "options": opts,
               "resolved_options": resolved, "seconds_per_move": seconds, "iterations_per_move": iterations,
               "a_iterations_per_move": a_iterations or iterations,
               "seed": seed, "n": est.n,
               "unit": match.unit if str(game) == str(load_game(match.game)) else f"{match.unit}; played on {game}",
               "mean_diff": est.value, "ci95_low": est.ci95_low, "ci95_high": est.ci95_high,
               "play_seconds": sum(done[i]["seconds"] for i in range(pairs)),
               "this_run_seconds": time.perf_counter() - start, "threads": 1, "workers": workers,
               "reproducible": "deals and bot seeds are; time-budgeted moves are not",
               "sample_commits": dict(Counter(str(done[i].get("commit", "not recorded")) for i in range(pairs))),
               **command_record(sys.argv[1:], program="python -m gamut.experiments.studies.nn_ismcts_match")}
    Path(f"{out}.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def speed(game_key: str, seconds: float, positions: int, seed: int, a_options: dict, b_options: dict, out: Path,
          a_name: str = "nn_ismcts", b_name: str = "ismcts") -> dict:
    """Iterations a second of A's and B's searches on the same ``positions`` decisions; writes ``<out>.json``.

    The positions are the decisions with more than one legal action met while
    the heuristic plays every seat from ``seed``'s deals; each agent searches
    each of them for ``seconds``.
    """
    import gamut.envs  # noqa: F401  (registers the games)
    from gamut.envs.loading import load_game
    from gamut.experiments.provenance import command_record
    from gamut.solvers.bots import make_bot
    from gamut.solvers.paired_match import paired_match

    game = load_game(paired_match(game_key).game)
    opts = _side_options(a_name, b_name, a_options, b_options, {"seconds": seconds})
    _warm_up(game, opts)
    rng = np.random.default_rng(seed)
    totals = {a_name: [0, 0.0], b_name: [0, 0.0]}
    found = 0
    while found < positions:
        state = game.new_initial_state()
        while not state.is_terminal() and found < positions:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            player = state.current_player()
            if len(state.legal_actions()) > 1:
                for name, total in totals.items():
                    bot = make_bot(game, name, player, found, **opts[name])
                    bot.step(state)
                    if bot.last_search is not None:
                        total[0] += bot.last_search.iterations
                        total[1] += bot.last_search.seconds
                found += 1
            state.apply_action(make_bot(game, "heuristic", player, found).step(state))
    summary = {"game": str(game), "options": opts, "positions": positions, "seed": seed,
               "iterations_per_second": {name: it / sec for name, (it, sec) in totals.items()},
               "search_seconds": {name: sec for name, (_, sec) in totals.items()},
               **command_record(sys.argv[1:], program="python -m gamut.experiments.studies.nn_ismcts_match")}
    Path(f"{out}.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def collect(folder: Path) -> list[dict]:
    """Gather every match summary (``*.json`` with a ``mean_diff``) under ``folder`` into ``folder/matches.csv``,
    and draw ``folder/matches.png``: A's mean margin with its 95% CI for each game and configuration."""
    import csv

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = []
    for path in sorted(folder.rglob("*.json")):
        summary = json.loads(path.read_text())
        if "mean_diff" not in summary:
            continue
        a_opts = {k: v for k, v in summary["options"][summary["agent_a"]].items() if k not in ("seconds", "iterations")}
        iterations = summary.get("iterations_per_move", 0)
        a_iterations = summary.get("a_iterations_per_move", iterations)
        budget = (f"{summary['seconds_per_move']} s/move" if not iterations else f"{iterations} it/move"
                  if a_iterations == iterations else f"A {a_iterations}, B {iterations} it/move")
        rows.append({"file": str(path.relative_to(folder)), "game": summary["game"].split("(")[0],
                     "game_string": summary["game"], "unit": summary.get("unit", ""),
                     "agent_a": summary["agent_a"], "agent_b": summary["agent_b"],
                     "a_options": " ".join(f"{k}={v}" for k, v in sorted(a_opts.items())),
                     "budget": budget, "seed": summary["seed"], "n": summary["n"],
                     "mean_diff": summary["mean_diff"], "ci95_low": summary["ci95_low"],
                     "ci95_high": summary["ci95_high"], "git_commit": summary["git_commit"]})
    if not rows:
        raise ValueError(f"no match summaries under {folder}")
    with (folder / "matches.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    games = sorted({r["game_string"] for r in rows})
    fig, axes = plt.subplots(len(games), 1, figsize=(11, 1.2 + 0.45 * len(rows)), squeeze=False)
    for ax, game in zip(axes[:, 0], games):
        mine = [r for r in rows if r["game_string"] == game]
        y = np.arange(len(mine))
        ax.hlines(y, [r["ci95_low"] for r in mine], [r["ci95_high"] for r in mine], color="tab:blue", lw=3)
        ax.plot([r["mean_diff"] for r in mine], y, "o", color="black", ms=4)
        ax.axvline(0.0, color="grey", lw=0.8)
        # A row whose sides are not nn_ismcts and ismcts (a noise check, say) names them.
        ax.set_yticks(y, [("" if (r["agent_a"], r["agent_b"]) == ("nn_ismcts", "ismcts")
                           else f"{r['agent_a']} vs {r['agent_b']}: ")
                          + f"{r['a_options'] or 'defaults'}, {r['budget']}, n={r['n']}" for r in mine], fontsize=7)
        ax.set_title(f"{game}: nn_ismcts minus ismcts (unless a row names its sides), same budget per move",
                     fontsize=8)
        ax.set_xlabel(f"mean difference with 95% CI; {mine[0]['unit']}", fontsize=7)
    fig.tight_layout()
    fig.savefig(folder / "matches.png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return rows


def paired(first: Path, second: Path) -> dict:
    """The paired difference of two matches on the same samples: ``first``'s sample minus ``second``'s.

    ``first`` and ``second`` are match paths without suffix (their ``.jsonl``
    rows are read); samples are paired by their ``index`` (same seed, same
    deals and bot seeds), and only indices both hold count. Returns the mean
    difference with its 95% t interval (``gamut.solvers.stats.mean_ci``) and
    ``n``; ValueError when the two share no sample or were played with other
    seeds' deals (their summaries' ``seed`` differ).
    """
    from gamut.solvers.stats import mean_ci

    def samples(path: Path) -> dict[int, float]:
        return {int(i): float(row["sample"]) for i, row in _done(Path(f"{path}.jsonl")).items()}

    seeds = [json.loads(Path(f"{path}.json").read_text()).get("seed") for path in (first, second)
             if Path(f"{path}.json").is_file()]
    if len(set(seeds)) > 1:
        raise ValueError(f"{first} and {second} were played with seeds {seeds[0]} and {seeds[1]}: "
                         "their samples are not the same deals")
    a, b = samples(first), samples(second)
    common = sorted(set(a) & set(b))
    if not common:
        raise ValueError(f"{first}.jsonl and {second}.jsonl share no sample index")
    est = mean_ci(np.array([a[i] - b[i] for i in common]))
    return {"first": str(first), "second": str(second), "n": len(common), "mean_diff": est.value,
            "ci95_low": est.ci95_low, "ci95_high": est.ci95_high}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["paired"]:
        if len(argv) != 3:
            raise SystemExit("usage: python -m gamut.experiments.studies.nn_ismcts_match paired FIRST SECOND "
                             "(match paths without suffix; prints FIRST minus SECOND, paired by sample)")
        print(json.dumps(paired(Path(argv[1]), Path(argv[2]))))
        return 0
    if argv[:1] == ["collect"]:
        if len(argv) != 2:
            raise SystemExit("usage: python -m gamut.experiments.studies.nn_ismcts_match collect FOLDER")
        print(f"{len(collect(Path(argv[1])))} summaries -> {argv[1]}/matches.csv, matches.png")
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help="a game whose declaration names a paired match (poke, palace_poker)")
    parser.add_argument("--seconds", type=float, default=0.0, help="wall seconds per move, both sides")
    parser.add_argument("--iterations", type=int, default=0,
                        help="search iterations per move, both sides (instead of --seconds)")
    parser.add_argument("--a-iterations", type=int, default=0,
                        help="agent A's own iterations per move, with --iterations (B keeps --iterations)")
    parser.add_argument("--pairs", type=int, required=True, help="samples: Poke pairs of rubbers, Palace Poker deals")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--a-option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--b-option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--game-string", default="",
                        help="play the declared match's samples on this variant of the game instead")
    parser.add_argument("--a", default="nn_ismcts", help="agent A (default: %(default)s)")
    parser.add_argument("--b", default="ismcts", help="agent B (default: %(default)s)")
    parser.add_argument("--out", type=Path, required=True, help="path without suffix: writes .jsonl and .json")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes playing samples, one thread each (default: %(default)s)")
    parser.add_argument("--speed", action="store_true",
                        help="measure iterations a second on --pairs positions instead of playing")
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error(f"--pairs must be >= 1, got {args.pairs}")
    if args.workers < 1:
        parser.error(f"--workers must be >= 1, got {args.workers}")
    if args.a_iterations < 0 or (args.a_iterations and args.iterations < 1):
        parser.error(f"--a-iterations must be >= 1 and goes with --iterations, got --a-iterations "
                     f"{args.a_iterations} with --iterations {args.iterations}")
    if args.speed:
        summary = speed(args.game, args.seconds, args.pairs, args.seed, _options(args.a_option),
                        _options(args.b_option), args.out, args.a, args.b)
        print(json.dumps(summary["iterations_per_second"]))
        return 0
    summary = run(args.game, args.seconds, args.pairs, args.seed, _options(args.a_option), _options(args.b_option),
                  args.out, args.a, args.b, args.iterations, args.game_string, args.workers, args.a_iterations)
    print(json.dumps({k: summary[k] for k in ("agent_a", "agent_b", "options", "n", "mean_diff", "ci95_low",
                                             "ci95_high", "play_seconds")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
