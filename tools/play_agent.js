// One of the page's opponents (docs/_static/awale-agents.js) as a process that answers moves, for
// tools/play_strength.py.  Each line read is a JSON request {"game": id, "spec": spec, "seed": s, "moves": [...]}:
// the agent of the page's list named `spec` (made once per game id, seeded with `s`, and kept for the game's
// later moves) plays in the Abapa game reached by `moves` from the initial position.  Each answer is one line,
// {"action": a, "seconds": t} (t the time it thought), or {"error": message}.
"use strict";
const readline = require("readline");
const E = require("../docs/_static/awale-engine.js");
const A = require("../docs/_static/awale-agents.js");

const agents = new Map();
const lines = readline.createInterface({input: process.stdin});
lines.on("line", line => {
  let answer;
  try {
    const request = JSON.parse(line);
    const opponent = A.OPPONENTS.find(o => o.spec === request.spec);
    if (opponent === undefined) throw new Error(`no opponent ${request.spec} on the page`);
    if (!agents.has(request.game)) {
      agents.clear();
      agents.set(request.game, opponent.make(request.seed));
    }
    const game = E.replay(request.moves, E.ABAPA).pop().game;
    const started = process.hrtime.bigint();
    const thought = agents.get(request.game).think(game);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    answer = {action: thought.action, seconds: seconds};
  } catch (error) {
    answer = {error: error.message};
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
