// The page's opponents (appendix "Play in the browser"): random, greedy, αβ minimax and UCT, written over the rules
// of awale-engine.js (every move is made by its `advance`: no rule is written twice).  Each agent's `think(game)`
// returns the move it plays and what it thought: the αβ value of every legal move, or the visits and win rate of
// UCT's root children.  tools/check_play.py compares the αβ values with the library's `minimax` (awale.search.
// alphabeta.AlphaBeta.action_values) on seeded positions.
//
// Loaded by a <script> element after awale-engine.js it defines the global AwaleAgents; under node, require().
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory(require("./awale-engine.js"));
  else root.AwaleAgents = factory(root.AwaleEngine);
})(typeof self !== "undefined" ? self : this, function (E) {
  "use strict";

  // Scores, as awale.search.alphabeta: a position at the depth limit scores its capture difference for the
  // player to move; a finished game WIN + |difference| for the winner, the negation for the loser, 0 for a draw.
  const WIN = 1000;
  const BIG = 1 << 24;

  function score(state, size) {
    const mover = state[size + 2];
    const difference = state[size + mover] - state[size + 1 - mover];
    const outcome = state[size + 4];
    if (outcome === E.ONGOING) return difference;
    if (outcome === E.DRAW) return 0;
    const margin = WIN + Math.abs(difference);
    return outcome === mover ? margin : -margin;
  }

  // ------------------------------------------------------------------------------------------------ random, greedy

  function randomAgent(options) {
    const rng = new E.Random(options.seed || 0);
    return {
      think(game) { return {action: game.legal[rng.below(game.legal.length)], kind: "random"}; },
    };
  }

  // The move that wins at once if there is one, else the one capturing the most seeds; ties at random
  // (the library's greedy(eps=0)).
  function greedyAgent(options) {
    const rng = new E.Random(options.seed || 0);
    return {
      think(game) {
        const me = game.player;
        let best = [], bestKey = -1;
        const values = {};
        for (const action of game.legal) {
          const done = game.step(action);
          const key = (done.game.finished && done.game.winner === me ? 1000 : 0) + done.captured;
          values[action] = done.captured;
          if (key > bestKey) { best = [action]; bestKey = key; } else if (key === bestKey) best.push(action);
        }
        return {action: best[rng.below(best.length)], kind: "greedy", captures: values};
      },
    };
  }

  // ------------------------------------------------------------------------------------------------ αβ

  // Negamax αβ (Knuth & Moore 1975) in its fail-soft form over the engine's `advance`, with the library's bounds
  // from the seeds still on the board and move ordering: the move a table remembers as best in this position
  // first, then captures by size.  The table only orders moves, it never answers for a value, so a search to a
  // depth returns exactly the depth-limited minimax value whatever the table holds (the repetition rule makes
  // values depend on the history, which the table's key leaves out).  The root searches every move with the
  // open window: every value it reports is exact.
  class AlphaBeta {
    constructor(rules, tableBits) {
      this.rules = rules;
      const bits = tableBits || 18;
      this.mask = (1 << bits) - 1;
      this.tableKeys = new Int32Array(1 << bits);
      this.tableMoves = new Int8Array(1 << bits).fill(-1);
      this.weights = new Int32Array(rules.size + 4);
      const rng = new E.Random(0x5eed);
      for (let i = 0; i < this.weights.length; i++) this.weights[i] = rng.next() | 1;
      this.buffers = [];
      this.nodes = 0;
      this.budget = Infinity;
      this.stopped = false;
      this.horizon = 0;
    }

    key(state) {
      const size = this.rules.size, w = this.weights;
      let key = Math.imul(state[size + 2] + 1, w[size]) ^ Math.imul(state[size] + 1, w[size + 1]);
      for (let i = 0; i < size; i++) key = Math.imul(key ^ (state[i] + 1), w[i]) ^ (key >>> 15);
      return key | 0;
    }

    buffer(ply) {
      while (this.buffers.length <= ply) {
        const n = this.rules.n, width = this.rules.size + 5;
        this.buffers.push({states: Array.from({length: n}, () => new Int32Array(width)),
                           captured: new Int32Array(n), order: new Int32Array(n)});
      }
      return this.buffers[ply];
    }

    // The value of `state` (not finished), whose legal actions are `legal`, searched `depth` plies deep.
    negamax(state, legal, history, ply, depth, alpha, beta) {
      const rules = this.rules, size = rules.size;
      this.nodes += 1;
      if (this.nodes > this.budget) { this.stopped = true; return 0; }
      const mover = state[size + 2];
      const ceiling = WIN + rules.total - 2 * state[size + 1 - mover];
      if (ceiling <= alpha) return ceiling;
      const bottom = 2 * state[size + mover] - WIN - rules.total;
      if (bottom >= beta) return bottom;
      const key = this.key(state), slot = key & this.mask;
      const remembered = this.tableKeys[slot] === key ? this.tableMoves[slot] : -1;
      // Order the moves: the remembered one first, then larger captures, then lower actions.
      const buffer = this.buffer(ply), count = legal.length, base = history.base, length = history.length;
      for (let j = 0; j < count; j++) {
        const child = buffer.states[j];
        child.set(state);
        const rank = legal[j] === remembered ? BIG : E.advance(child, rules, legal[j], history)[0];
        history.base = base;
        history.length = length;
        let k = j;
        while (k > 0 && buffer.captured[k - 1] < rank) {
          buffer.captured[k] = buffer.captured[k - 1];
          buffer.order[k] = buffer.order[k - 1];
          k -= 1;
        }
        buffer.captured[k] = rank;
        buffer.order[k] = j;
      }
      let best = -BIG, bestMove = -1;
      for (let k = 0; k < count; k++) {
        const j = buffer.order[k], child = buffer.states[j];
        child.set(state);
        const childLegal = E.advance(child, rules, legal[j], history)[2];
        let value;
        if (childLegal.length === 0) {
          this.nodes += 1;
          value = -score(child, size);
        } else if (depth === 1) {
          this.nodes += 1;
          this.horizon += 1;
          value = -score(child, size);
        } else {
          value = -this.negamax(child, childLegal, history, ply + 1, depth - 1, -beta, -alpha);
        }
        history.base = base;
        history.length = length;
        if (this.stopped) return 0;
        if (value > best) {
          best = value;
          bestMove = legal[j];
          if (value > alpha) {
            alpha = value;
            if (alpha >= beta) break;
          }
        }
      }
      this.tableKeys[slot] = key;
      this.tableMoves[slot] = bestMove;
      return best;
    }

    // The exact value of each legal action of `game`, `depth` plies deep counting the action itself, as
    // AlphaBeta.action_values in the library: {values: Map action -> value, exact, nodes}; null if the node
    // budget ran out first.
    actionValues(game, depth, budget) {
      const rules = this.rules, size = rules.size;
      const history = game.history.copy();
      this.stopped = false;
      this.horizon = 0;
      this.budget = budget === undefined ? Infinity : this.nodes + budget;
      const values = new Map();
      // The root's moves in the order of the last search's values (best first), the others after.
      const order = game.legal.slice();
      if (this.lastRoot && this.lastRoot.key === this.key(game.state)) {
        const previous = this.lastRoot.values;
        order.sort((a, b) => (previous.get(b) ?? -BIG) - (previous.get(a) ?? -BIG) || a - b);
      }
      for (const action of order) {
        const child = game.state.slice();
        const base = history.base, length = history.length;
        const childLegal = E.advance(child, rules, action, history)[2];
        let value;
        if (childLegal.length === 0 || depth === 1) {
          this.nodes += 1;
          if (childLegal.length > 0) this.horizon += 1;
          value = -score(child, size);
        } else {
          value = -this.negamax(child, childLegal, history, 1, depth - 1, -BIG, BIG);
        }
        history.base = base;
        history.length = length;
        if (this.stopped) return null;
        values.set(action, value);
      }
      this.lastRoot = {key: this.key(game.state), values: values};
      return {values: values, exact: this.horizon === 0};
    }

    // Iterative deepening to `depth` plies, or within `nodes` positions: no iteration starts that is predicted
    // (from the growth of the last two) to overrun the positions left, and one that overruns is abandoned.  The
    // result is that of the last completed iteration (the first always completes): {value, best, values,
    // depth, exact, nodes}.
    search(game, depth, nodes) {
      if (game.finished) throw new Error("the game is over: there is nothing to search");
      this.nodes = 0;
      this.lastRoot = null;
      let found = null, spent = 0, spentBefore = 0;
      const limit = depth || 200;
      for (let iteration = 1; iteration <= limit; iteration++) {
        let budget;
        if (found !== null && nodes !== undefined) {
          const left = nodes - this.nodes;
          const growth = Math.min(Math.max(spentBefore > 0 ? spent / spentBefore : 4, 1), 8);
          if (left <= spent * growth) break;
          budget = left;
        }
        const before = this.nodes;
        const done = this.actionValues(game, iteration, budget);
        if (done === null) break;
        spentBefore = spent;
        spent = this.nodes - before;
        let value = -BIG;
        for (const v of done.values.values()) value = Math.max(value, v);
        const best = game.legal.filter(a => done.values.get(a) === value);
        found = {value: value, best: best, values: done.values, depth: iteration, exact: done.exact};
        if (done.exact) break;
      }
      found.nodes = this.nodes;
      return found;
    }
  }

  function minimaxAgent(options) {
    const rng = new E.Random(options.seed || 0);
    let searcher = null;
    return {
      think(game) {
        if (searcher === null || searcher.rules !== game.rules) searcher = new AlphaBeta(game.rules);
        const found = searcher.search(game, options.depth, options.nodes);
        return {action: found.best[rng.below(found.best.length)], kind: "minimax", values: found.values,
                depth: found.depth, exact: found.exact, nodes: found.nodes};
      },
    };
  }

  // ------------------------------------------------------------------------------------------------ UCT

  // UCT (Kocsis & Szepesvári 2006) with random playouts to the end of the game, as the library's uct: UCB1 on
  // the win rate of the player who moved into a node (draws worth ½), one node added per iteration, the most
  // visited move played.
  function uctSearch(game, iterations, c, rng) {
    const rules = game.rules, size = rules.size;
    const rootNode = {action: -1, parent: null, children: [], untried: game.legal.slice(), visits: 0, wins: 0,
                      mover: -1};
    const state = new Int32Array(size + 5);
    for (let iteration = 0; iteration < iterations; iteration++) {
      state.set(game.state);
      const history = game.history.copy();
      let node = rootNode, legal = game.legal;
      // Selection: down the tree while every move of the node has a child.
      while (node.untried.length === 0 && node.children.length > 0) {
        const logVisits = Math.log(node.visits);
        let best = null, bestValue = -Infinity;
        for (const child of node.children) {
          const value = child.wins / child.visits + c * Math.sqrt(logVisits / child.visits);
          if (value > bestValue) { bestValue = value; best = child; }
        }
        const mover = state[size + 2];
        legal = E.advance(state, rules, best.action, history)[2];
        best.mover = mover;
        node = best;
      }
      // Expansion: one untried move, at random.
      if (node.untried.length > 0) {
        const index = rng.below(node.untried.length);
        const action = node.untried[index];
        node.untried.splice(index, 1);
        const mover = state[size + 2];
        legal = E.advance(state, rules, action, history)[2];
        const child = {action: action, parent: node, children: [], untried: legal.slice(), visits: 0, wins: 0,
                       mover: mover};
        node.children.push(child);
        node = child;
      }
      // Playout: random moves to the end.
      while (legal.length > 0) legal = E.advance(state, rules, legal[rng.below(legal.length)], history)[2];
      const outcome = state[size + 4];
      // Backpropagation: a win for the player who moved into the node counts 1, a draw ½.
      for (let up = node; up !== null; up = up.parent) {
        up.visits += 1;
        if (up.mover >= 0) up.wins += outcome === E.DRAW ? 0.5 : outcome === up.mover ? 1 : 0;
      }
    }
    return rootNode;
  }

  function uctAgent(options) {
    const rng = new E.Random(options.seed || 0);
    const c = options.c === undefined ? 0.707 : options.c;
    return {
      think(game) {
        const rootNode = uctSearch(game, options.iterations, c, rng);
        let best = null;
        for (const child of rootNode.children) {
          if (best === null || child.visits > best.visits) best = child;
        }
        const stats = new Map();
        for (const child of rootNode.children) {
          stats.set(child.action, {visits: child.visits, winRate: child.visits ? child.wins / child.visits : 0});
        }
        return {action: best.action, kind: "uct", stats: stats, iterations: options.iterations};
      },
    };
  }

  // ------------------------------------------------------------------------------------------------ the list

  // The opponents the page offers, weakest first.  `spec` names each in game files ("browser-" marks the page's
  // own agents: they are not the library's, though the same algorithms); `make(seed)` builds one.
  const OPPONENTS = [
    {spec: "browser-random", label: "random", make: seed => randomAgent({seed: seed})},
    {spec: "browser-greedy", label: "greedy (biggest capture)", make: seed => greedyAgent({seed: seed})},
    {spec: "browser-minimax(depth=2)", label: "αβ, 2 plies", make: seed => minimaxAgent({seed: seed, depth: 2})},
    {spec: "browser-minimax(depth=4)", label: "αβ, 4 plies", make: seed => minimaxAgent({seed: seed, depth: 4})},
    {spec: "browser-minimax(depth=6)", label: "αβ, 6 plies", make: seed => minimaxAgent({seed: seed, depth: 6})},
    {spec: "browser-uct(iterations=1000)", label: "UCT, 1,000 playouts", make: seed => uctAgent({seed: seed, iterations: 1000})},
    {spec: "browser-uct(iterations=5000)", label: "UCT, 5,000 playouts", make: seed => uctAgent({seed: seed, iterations: 5000})},
    {spec: "browser-uct(iterations=10000)", label: "UCT, 10,000 playouts", make: seed => uctAgent({seed: seed, iterations: 10000})},
    {spec: "browser-minimax(nodes=500000)", label: "αβ, ½ million positions",
     make: seed => minimaxAgent({seed: seed, nodes: 500000})},
  ];

  return {WIN, score, AlphaBeta, randomAgent, greedyAgent, minimaxAgent, uctAgent, uctSearch, OPPONENTS};
});
