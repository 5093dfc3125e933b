"""Toy Nim: a fifth game declared from outside the toolkit, for the test that a new game needs no edit elsewhere.

Two players take turns removing 1, 2 or 3 tokens from one pile; whoever takes
the last token wins (+1, the other -1). Chance first draws the starting pile:
``max_pile``, ``max_pile - 1`` or ``max_pile - 2``, each with probability 1/3.
Only this package knows the game; the toolkit finds it through
``GAMUT_GAMES=toy_nim`` with this folder's parent on ``sys.path``.
"""

from gamut.envs.declaration import GameDeclaration

GAME = GameDeclaration(
    name="toy_nim",
    version=1,
    variants=("toy_nim()", "toy_nim(max_pile=7)"),
    game="toy_nim.game",
    vector="toy_nim.vector:ToyNimVector",
    agents=("toy_nim.agents",),
    view="toy_nim.view:VIEW",
    bench_variant="toy_nim",
    bench_steps_per_s=1_000_000,
)
