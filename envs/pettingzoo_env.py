"""Any toolkit game (or any OpenSpiel game with observation tensors) as a PettingZoo AEC environment.

The environment plays a pyspiel state (``env.game_state``) from the start to the
end of the game: chance nodes are sampled from the environment's seeded
generator with the game's exact probabilities, so an episode ends exactly when
the game does, never truncated. Every game of the toolkit pays at the end, and
the rewards an agent reads from ``env.last()`` over its turns (its last read
after the game ends included) sum to that player's ``state.returns()``.

Spaces, as in PettingZoo's classic environments: an observation is a dict
``{"observation": float32 (obs_size,), "action_mask": int8 (num_actions,)}``
with the pyspiel ``observation_tensor`` of that player (bounded by the game's
declared range, ``gamut.envs.vector.observation_bounds``, for the toolkit's
games) and a mask of the legal actions (all zero when it is not that agent's
turn); actions are ``Discrete(num_distinct_actions)``.

    >>> import gamut
    >>> env = gamut.pettingzoo_env("poke(mode=rubber)")
    >>> env.reset(seed=3)
    >>> for agent in env.agent_iter():
    ...     observation, reward, termination, truncation, info = env.last()
    ...     if termination or truncation:
    ...         action = None
    ...     else:
    ...         action = int(observation["action_mask"].nonzero()[0][0])
    ...     env.step(action)

This replaces the Shimmy wrapper (``OpenSpielCompatibilityV0``) that the
toolkit used before: Shimmy 2.0.1 counts chance nodes against
``max_game_length()`` (which excludes them), so it truncated most of our games
part-way with reward 0, and the rewards read from ``env.last()`` came out
multiplied by the seat.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.envs.loading import load_game
from gamut.envs.registry import declaration_of


def _require_pettingzoo():
    try:
        import gymnasium
        import pettingzoo
    except ImportError:
        raise ValueError("PettingZoo environments need PettingZoo: pip install 'gamut[pettingzoo]'") from None
    return gymnasium, pettingzoo


def _observation_bounds(game: pyspiel.Game) -> tuple[float, float]:
    declaration = declaration_of(game)
    if declaration is None:
        return -np.inf, np.inf  # another OpenSpiel game: no declared range
    low, high = declaration.observation_bounds
    return float(low), float(high)


def _checked_action(action, state: pyspiel.State, player: int) -> int:
    """``action`` as an int after checking it is an integer (Python or NumPy, not bool) and legal for ``player``."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action is an integer action id (int or numpy integer), got {type(action).__name__} "
                        f"{action!r}")
    action, legal = int(action), state.legal_actions(player)
    if action not in legal:
        # Worded as every game's own check words it (gamut.envs.legality); an id out of range has no name.
        in_range = 0 <= action < state.get_game().num_distinct_actions()
        named = f"{action} ({state.action_to_string(player, action)})" if in_range else f"{action}"
        names = ", ".join(f"{a} ({state.action_to_string(player, a)})" for a in legal)
        raise ValueError(f"action {named} is not legal here; legal actions: {names}")
    return action


def pettingzoo_env(game: str | pyspiel.Game, render_mode: str | None = None):
    """A PettingZoo AEC environment for ``game`` (a game string or a loaded game).

    The game's parameters are kept across every ``reset()``. ``render_mode`` is
    ``None``, ``"ansi"`` (``render()`` returns the state as text) or ``"human"``
    (``render()`` prints it).
    """
    gymnasium, pettingzoo = _require_pettingzoo()
    loaded = load_game(game)
    if not loaded.get_type().provides_observation_tensor:
        raise ValueError(f"{loaded} has no observation tensor, which the PettingZoo spaces need")
    if loaded.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(f"{loaded} is not a sequential game; the AEC environment plays sequential games")
    if render_mode not in (None, "ansi", "human"):
        raise ValueError(f"render_mode={render_mode!r} is not one of None, 'ansi', 'human'")
    return _make_class(gymnasium, pettingzoo)(loaded, render_mode)


def _make_class(gymnasium, pettingzoo):
    spaces = gymnasium.spaces

    class GamutAECEnv(pettingzoo.AECEnv):
        """PettingZoo AEC environment over one pyspiel game (see the module docstring)."""

        metadata = {"render_modes": ["ansi", "human"], "name": "gamut_openspiel_v0", "is_parallelizable": False}

        def __init__(self, game: pyspiel.Game, render_mode: str | None):
            super().__init__()
            self.game = game
            self.render_mode = render_mode
            self.possible_agents = [f"player_{p}" for p in range(game.num_players())]
            low, high = _observation_bounds(game)
            size = game.observation_tensor_size()
            self.observation_spaces = {
                agent: spaces.Dict({
                    "observation": spaces.Box(low, high, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (game.num_distinct_actions(),), np.int8),
                }) for agent in self.possible_agents
            }
            self.action_spaces = {agent: spaces.Discrete(game.num_distinct_actions()) for agent in self.possible_agents}
            self.game_state = None
            self._rng = np.random.default_rng()

        def observation_space(self, agent):
            return self.observation_spaces[agent]

        def action_space(self, agent):
            return self.action_spaces[agent]

        def reset(self, seed=None, options=None):
            if seed is not None:
                self._rng = np.random.default_rng(seed)
            self.game_state = self.game.new_initial_state()
            self.agents = list(self.possible_agents)
            self.rewards = {agent: 0.0 for agent in self.agents}
            self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
            self.terminations = {agent: False for agent in self.agents}
            self.truncations = {agent: False for agent in self.agents}
            self.infos = {agent: {} for agent in self.agents}
            self._settle()

        def observe(self, agent):
            player = self.possible_agents.index(agent)
            observation = np.asarray(self.game_state.observation_tensor(player), np.float32)
            mask = np.zeros(self.game.num_distinct_actions(), np.int8)
            if not self.game_state.is_terminal() and self.game_state.current_player() == player:
                mask[self.game_state.legal_actions(player)] = 1
            return {"observation": observation, "action_mask": mask}

        def step(self, action):
            if not self.agents:
                raise ValueError("the game is over and every agent has stepped out: call reset() to play again")
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                # PettingZoo's convention: a finished agent steps out with the action None, and only with it.
                self._was_dead_step(action)
                return
            if action is None:
                raise ValueError(f"{agent} must act (the game is not over); got action None")
            action = _checked_action(action, self.game_state, self.possible_agents.index(agent))
            # The agent's reward since its last turn has been read by last(): start afresh.
            self._cumulative_rewards[agent] = 0.0
            self.game_state.apply_action(action)
            self._settle()
            if self.render_mode == "human":
                self.render()

        def _settle(self):
            """Sample chance to the next decision node or the end, then set rewards and the next agent."""
            state = self.game_state
            while state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(self._rng.choice(outcomes, p=np.asarray(probs) / np.sum(probs))))
            for agent in self.agents:
                self.rewards[agent] = 0.0
            if state.is_terminal():
                for agent, value in zip(self.possible_agents, state.returns()):
                    if agent in self.agents:
                        self.rewards[agent] = float(value)
                        self.terminations[agent] = True
                self._accumulate_rewards()
                # Every agent reads its final reward once, in seat order, then steps out.
                self.agent_selection = self.agents[0]
                return
            self._accumulate_rewards()
            self.agent_selection = self.possible_agents[state.current_player()]
            for agent in self.agents:
                self.infos[agent] = {"legal_moves": state.legal_actions() if agent == self.agent_selection else []}

        def render(self):
            if self.render_mode is None:
                gymnasium.logger.warn("render() was called without a render_mode")
                return None
            text = str(self.game_state)
            if self.render_mode == "human":
                print(text)
                return None
            return text

        def close(self):
            pass

    return GamutAECEnv
