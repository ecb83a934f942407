// Seeded random games and αβ values from the page's engine (docs/_static/awale-engine.js, awale-agents.js), for
// tools/check_play.py to compare with the library ply by ply.  The same function runs under node (make test:
// `node tools/play_trace.js FIRST COUNT POSITIONS`, JSON on stdout) and inside the built page in Chromium (make
// check-site: check_play.py adds this file to the page and calls AwalePlayTrace(first, count, positions)).
//
// Game i (a seed of its own) is one of: Abapa rules from the initial position (six games in ten), Abapa from a
// random position with few seeds on the board, where repetitions and starved players are common (two in ten;
// such a position may be one the rules refuse, which is compared too), or other rules drawn at random (board
// size, seeds, feed rule, grand-slam variant, repetition, seeds left, ply limit) from their initial position.
// Moves are uniformly random, or in one game in three the biggest capture half of the time (grand slams and
// long capture chains come up more often).  In the first `positions` games played (a refused start is not one),
// a ply among the first 40 is drawn and the αβ value of each legal action there, 1 to 6 plies deep, is recorded.
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) {
    module.exports = factory(require("../docs/_static/awale-engine.js"), require("../docs/_static/awale-agents.js"));
  } else {
    root.AwalePlayTrace = factory(root.AwaleEngine, root.AwaleAgents);
  }
})(typeof self !== "undefined" ? self : this, function (E, A) {
  "use strict";

  const VARIANTS = ["no-capture", "forbidden", "capture-all"];

  function randomRules(rng) {
    const repetition = rng.below(2) === 0;
    return {
      pits_per_side: 2 + rng.below(5), seeds_per_pit: 1 + rng.below(5), feed: rng.below(2) === 0,
      grand_slam: VARIANTS[rng.below(3)], repetition: repetition, collect_remaining: rng.below(2) === 0,
      max_plies: !repetition || rng.below(4) === 0 ? 20 + rng.below(200) : null,
    };
  }

  // A random position of Abapa with 1 to 14 seeds on the board and the player to move drawn at random.
  function randomStart(rng) {
    const rules = E.ABAPA, pits = new Array(rules.size).fill(0);
    const onBoard = 1 + rng.below(14);
    for (let s = 0; s < onBoard; s++) pits[rng.below(rules.size)] += 1;
    // Captures within half the seeds each, so that the game goes on; one start in eight splits them anyhow.
    const rest = rules.total - onBoard, half = rules.total >> 1, low = Math.max(0, rest - half);
    const south = rng.below(8) === 0 ? rng.below(rest + 1) : low + rng.below(Math.min(rest, half) - low + 1);
    return {pits: pits, captures: [south, rest - south], player: rng.below(2)};
  }

  function board(game) {
    return [...game.state].join(",");
  }

  function trace(first, count, positions) {
    const games = [];
    let probed = 0;
    for (let index = first; index < first + count; index++) {
      const rng = new E.Random(index * 2654435761 + 12345);
      const kind = index % 10;
      let rulesFields = null, start = null, game;
      if (kind >= 8) rulesFields = randomRules(rng);
      const rules = rulesFields === null ? E.ABAPA : E.makeRules(rulesFields);
      if (kind === 6 || kind === 7) {
        start = randomStart(rng);
        try {
          game = E.Game.fromPosition(rules, start.pits, start.captures, start.player, 0);
        } catch (error) {
          games.push({index: index, rules: rulesFields, start: start, refused: error.message});
          continue;
        }
      } else {
        game = E.Game.initial(rules);
      }
      const greedy = rng.below(3) === 0;
      const plies = [], seen = [game];
      while (!game.finished) {
        let action = game.legal[rng.below(game.legal.length)];
        if (greedy && rng.below(2) === 0) {
          let most = -1;
          for (const a of game.legal) {
            const taken = game.step(a).captured;
            if (taken > most) { most = taken; action = a; }
          }
        }
        const legal = game.legal.join("");
        const done = game.step(action);
        const ply = done.ply;
        plies.push([legal, action, ply.captured, ply.capturedPits.join(","), ply.grandSlam ? 1 : 0, ply.ending,
                    board(done.game)]);
        game = done.game;
        seen.push(game);
      }
      // The αβ values at a random ply of the game (the games are immutable: any position of it can be searched).
      let values = null;
      if (probed < positions) {
        probed += 1;
        const at = rng.below(Math.min(40, seen.length - 1)), depth = 1 + rng.below(6), position = seen[at];
        const found = new A.AlphaBeta(rules).actionValues(position, depth);
        values = {ply: at, depth: depth, values: position.legal.map(a => found.values.get(a) || 0)};
      }
      games.push({index: index, rules: rulesFields, start: start, plies: plies, values: values});
    }
    return games;
  }

  if (typeof module === "object" && module.exports && require.main === module) {
    const [first, count, positions] = process.argv.slice(2).map(Number);
    process.stdout.write(JSON.stringify(trace(first, count, positions)));
  }
  return trace;
});
