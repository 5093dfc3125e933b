"""The table of the poker-dice agents, registered with the toolkit's agent registry (``gamut.solvers.bots``).

- ``optimal``: plays the exact solitaire DP policy of its own scorecard (table lookup,
  :mod:`gamut.solvers.poker_dice.table_bot`);
- ``greedy``: the same tables with every future value zero (best immediate score);
- ``mcts``: OpenSpiel's Python MCTS with random roll-outs (:mod:`gamut.solvers.search.mcts_bot`);
- ``ppo_turn``: the shipped PPO run's value network between turns, exact
  planning inside each turn (:mod:`gamut.solvers.poker_dice.planner`);
- ``imitation``: a policy network alone, taught by the exact solution's option
  values at the states its own play reaches (:mod:`gamut.solvers.poker_dice.imitation`).

``optimal``, ``greedy`` and ``ppo_turn`` play the scorecard variants, not the
ranking game; ``ppo_turn`` plays one-player games with shipped PPO weights (or
a user's own, ``weights=PATH``). Factories are ``"module:function"``
references, imported when an agent is first made: reading the table solves
no variant and imports no network.
"""

from __future__ import annotations

from gamut.solvers.bots import MAX_ITERATIONS_PER_MOVE, Option, register_bot
from gamut.solvers.rl.checkpoint import holds_value_network
from gamut.solvers.rl.shipped import shipped_path, shipped_refusal, shipped_weights


def _scorecard_only(game) -> str | None:
    return "it plays scorecard variants, not the ranking game" if game.variant is None else None


def _planner_refusal(game) -> str | None:
    if game.variant is None:
        return "it plays scorecard variants, not the ranking game"
    if game.num_players() != 1:
        return "it plans one player's card: load the variant with players=1"
    shipped = shipped_weights().get("ppo", {})
    if str(game) not in shipped:
        return (f"no ppo weights ship for this variant (they ship for {', '.join(shipped) or 'none'}); train them "
                "with gamut train --set score_rewards=true and load them with "
                "gamut.solvers.poker_dice.planner.TurnPlanner(game, 0, PATH)")
    if not holds_value_network(shipped_path("ppo", game)):
        return ("the shipped ppo weights of this variant hold no value network; play a score-reward run's with "
                "gamut.solvers.poker_dice.planner.TurnPlanner(game, 0, PATH)")
    return None


register_bot(
    "optimal",
    "poker_dice",
    "gamut.solvers.poker_dice.table_bot:make_optimal_bot",
    "exact optimal solitaire policy of its own scorecard (DP tables, cached on disk)",
    supports=_scorecard_only,
)

register_bot(
    "greedy",
    "poker_dice",
    "gamut.solvers.poker_dice.table_bot:make_greedy_bot",
    "best immediate score: the DP tables with every future value zero",
    supports=_scorecard_only,
)

register_bot(
    "mcts",
    "poker_dice",
    "gamut.solvers.search.mcts_bot:make_mcts_bot",
    "OpenSpiel's Python MCTS (UCT constant 2, one random roll-out per leaf)",
    {"simulations": Option(int, 200, "simulations per move", maximum=MAX_ITERATIONS_PER_MOVE)},
)

register_bot(
    "ppo_turn",
    "poker_dice",
    "gamut.solvers.poker_dice.planner:make_turn_planner",
    "PPO's value network judges the card between turns; exact expectimax plans each turn (NumPy forward pass)",
    {"weights": Option(str, "", "PPO weights file trained with score_rewards (default: the shipped weights)")},
    supports=_planner_refusal,
)


def _imitation_refusal(game) -> str | None:
    if game.variant is None:
        return "it plays scorecard variants, not the ranking game"
    return shipped_refusal("imitation", game)


register_bot(
    "imitation",
    "poker_dice",
    "gamut.solvers.poker_dice.imitation:make_imitation_bot",
    "policy network alone, trained on the exact solution's option values at its own states (not RL); "
    "NumPy forward pass",
    {"weights": Option(str, "", "weights file from gamut dice imitate (default: the shipped weights)")},
    supports=_imitation_refusal,
    lifted_by="weights",
)
