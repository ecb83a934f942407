// How long each opponent of the page "Play in the browser" takes a move: `node tools/play_speed.js > FILE.csv`.
//
// Every opponent of docs/_static/awale-agents.js thinks once in each of the same positions: plies 0, 10, 20, ...
// of five seeded random games under the Abapa rules (the moves of the opponents' own games vary, these do not).
// For each opponent one CSV row gives the positions, and the mean and longest time a move measured two ways:
// the processor time of this process (process.cpuUsage: what the move costs, whatever else the machine runs)
// and the wall-clock time (what the reader waits on this machine, as loaded as it is).  The page's table
// (docs/_ext/play_online.py, `.. play-speed::`) reads data/play-online-speed.csv, made by this script.
"use strict";
const E = require("../docs/_static/awale-engine.js");
const A = require("../docs/_static/awale-agents.js");

const positions = [];
for (let seed = 1; seed <= 5; seed++) {
  const rng = new E.Random(seed);
  let game = E.Game.initial(E.ABAPA);
  for (let ply = 0; !game.finished; ply++) {
    if (ply % 10 === 0) positions.push(game);
    game = game.step(game.legal[rng.below(game.legal.length)]).game;
  }
}

const rows = ["opponent,positions,cpu_seconds_mean,cpu_seconds_max,wall_seconds_mean,wall_seconds_max"];
for (const opponent of A.OPPONENTS) {
  let cpuTotal = 0, cpuMax = 0, wallTotal = 0, wallMax = 0;
  positions.forEach((game, index) => {
    const agent = opponent.make(index);
    const cpu = process.cpuUsage(), wall = process.hrtime.bigint();
    agent.think(game);
    const used = process.cpuUsage(cpu), seconds = Number(process.hrtime.bigint() - wall) / 1e9;
    const cpuSeconds = (used.user + used.system) / 1e6;
    cpuTotal += cpuSeconds;
    cpuMax = Math.max(cpuMax, cpuSeconds);
    wallTotal += seconds;
    wallMax = Math.max(wallMax, seconds);
  });
  const n = positions.length, f = x => x.toFixed(4);
  rows.push([opponent.spec, n, f(cpuTotal / n), f(cpuMax), f(wallTotal / n), f(wallMax)].join(","));
}
process.stdout.write(rows.join("\n") + "\n");
