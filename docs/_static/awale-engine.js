// The rules of Awale and the page's opponents, in plain JavaScript: the engine of the appendix "Play in the
// browser" (docs/play-online.rst).  It follows lib/awale/core/rules.py line for line (the same board layout, order of
// tests and end reasons), so that a game played here is the game the library would play; tools/check_play.py
// proves it on seeded random games and αβ values, under node (make test) and in Chromium (make check-site).
//
// Board (OpenSpiel's oware, as the library): with n pits a side, pits[0:n] are South's, left to right from
// South's seat, pits[n:2n] North's from North's seat; sowing goes to the next index modulo 2n; an action 0..n-1
// is relative to the player to move.  A state is an Int32Array of 2n + 5 numbers: the pits, South's and North's
// captures, the player to move, the plies played and the outcome (ONGOING, SOUTH, NORTH or DRAW).
//
// Loaded by a <script> element it defines the global AwaleEngine; under node, require() returns the same object.
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.AwaleEngine = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  const ONGOING = -1, SOUTH = 0, NORTH = 1, DRAW = 2;
  const PLAYERS = ["South", "North"];
  const GRAND_SLAM_VARIANTS = ["no-capture", "forbidden", "capture-all"];
  const MAX_SEEDS = 32767;
  // How a game ended, in the words of awale.core.record.ending.
  const ENDINGS = ["", "more than half the seeds", "half the seeds each", "repetition", "no legal move", "ply limit"];
  const END_NONE = 0, END_HALF_PLUS = 1, END_HALF_EACH = 2, END_REPETITION = 3, END_NO_MOVE = 4, END_PLY_LIMIT = 5;
  const RULE_FIELDS = ["collect_remaining", "feed", "grand_slam", "max_plies", "pits_per_side", "repetition",
                       "seeds_per_pit"];

  // ------------------------------------------------------------------------------------------------ rules

  function isInteger(value) { return typeof value === "number" && Number.isInteger(value); }

  // A rules object from the fields of awale.Rules (missing fields take the library's defaults, the Abapa rules).
  // Throws an Error naming the field that is wrong, as Rules.__post_init__ does.
  function makeRules(fields) {
    if (fields === null || typeof fields !== "object" || Array.isArray(fields)) {
      throw new Error("the rules must be an object of Rules fields");
    }
    const unknown = Object.keys(fields).filter(key => !RULE_FIELDS.includes(key)).sort();
    if (unknown.length) throw new Error(`the rules have unknown field(s) ${unknown.join(", ")}`);
    const rules = {pits_per_side: 6, seeds_per_pit: 4, feed: true, grand_slam: "no-capture", repetition: true,
                   collect_remaining: true, max_plies: null, ...fields};
    for (const name of ["pits_per_side", "seeds_per_pit"]) {
      if (!isInteger(rules[name])) throw new Error(`Rules.${name} must be an integer, got ${JSON.stringify(rules[name])}`);
    }
    if (rules.pits_per_side < 2 || rules.pits_per_side > 6) {
      throw new Error(`Rules.pits_per_side must be between 2 and 6, got ${rules.pits_per_side}`);
    }
    if (rules.seeds_per_pit < 1) throw new Error(`Rules.seeds_per_pit must be at least 1, got ${rules.seeds_per_pit}`);
    if (2 * rules.pits_per_side * rules.seeds_per_pit > MAX_SEEDS) {
      throw new Error(`Rules: at most ${MAX_SEEDS} seeds in all (2 x pits_per_side x seeds_per_pit)`);
    }
    for (const name of ["feed", "repetition", "collect_remaining"]) {
      if (typeof rules[name] !== "boolean") throw new Error(`Rules.${name} must be true or false, got ${JSON.stringify(rules[name])}`);
    }
    if (!GRAND_SLAM_VARIANTS.includes(rules.grand_slam)) {
      throw new Error(`Rules.grand_slam must be one of ${GRAND_SLAM_VARIANTS.join(", ")}, got ${JSON.stringify(rules.grand_slam)}`);
    }
    if (rules.max_plies !== null) {
      if (!isInteger(rules.max_plies)) throw new Error(`Rules.max_plies must be null or an integer, got ${JSON.stringify(rules.max_plies)}`);
      if (rules.max_plies < 1) throw new Error(`Rules.max_plies must be at least 1, got ${rules.max_plies}`);
      if (rules.max_plies > Number.MAX_SAFE_INTEGER) throw new Error("Rules.max_plies is too large for this page");
    }
    if (!rules.repetition && rules.max_plies === null) {
      throw new Error("Rules with repetition false need max_plies: nothing else stops a game that cycles");
    }
    const n = rules.pits_per_side;
    return Object.freeze({
      ...rules,
      n: n,
      size: 2 * n,
      total: 2 * n * rules.seeds_per_pit,
      slam: GRAND_SLAM_VARIANTS.indexOf(rules.grand_slam),
    });
  }

  // The fields of a rules object, keys sorted: what awale.experiments.store.rules_to_text writes.
  function rulesFields(rules) {
    const fields = {};
    for (const name of RULE_FIELDS) fields[name] = rules[name];
    return fields;
  }

  const ABAPA = makeRules({});
  const NONE = Object.freeze([]);

  // ------------------------------------------------------------------------------------------------ kernels

  // Sow the seeds of state[origin], skipping the origin on every lap; return the last pit sown.
  function sow(state, origin, size) {
    let seeds = state[origin], pit = origin;
    state[origin] = 0;
    while (seeds > 0) {
      pit = pit + 1 === size ? 0 : pit + 1;
      if (pit === origin) continue;
      state[pit] += 1;
      seeds -= 1;
    }
    return pit;
  }

  // The capture chain of a sow by `player` that ended in state[last]: [taken, first, grand], as rules._chain.
  function chain(state, last, player, n) {
    const low = (1 - player) * n;
    if (last < low || last >= low + n) return [0, last + 1, false];
    let taken = 0, index = last;
    while (index >= low && (state[index] === 2 || state[index] === 3)) {
      taken += state[index];
      index -= 1;
    }
    if (taken === 0) return [0, last + 1, false];
    let remaining = 0;
    for (let i = low; i < low + n; i++) remaining += state[i];
    return [taken, index + 1, remaining === taken];
  }

  // Capture after a sow ending in state[last]; return the seeds taken (a grand slam takes nothing unless the
  // variant is capture-all).
  function capture(state, last, player, n, slam) {
    const [taken, first, grand] = chain(state, last, player, n);
    if (taken === 0 || (grand && slam !== 2)) return 0;
    for (let i = first; i <= last; i++) state[i] = 0;
    return taken;
  }

  // Would `action` capture every seed of the opponent?  `state` is left as it was.
  function isGrandSlam(state, rules, action) {
    const work = state.slice(0, rules.size);
    const player = state[rules.size + 2];
    const last = sow(work, player * rules.n + action, rules.size);
    return chain(work, last, player, rules.n)[2];
  }

  // The legal actions of `state`, ascending (none once the game is over), as rules.legal_actions.
  function legalActions(state, rules) {
    const n = rules.n, size = rules.size, actions = [];
    if (state[size + 4] !== ONGOING) return actions;
    const own = state[size + 2] * n, opponent = n - own;
    let mustFeed = false;
    if (rules.feed) {
      let seeds = 0;
      for (let i = opponent; i < opponent + n; i++) seeds += state[i];
      mustFeed = seeds === 0;
    }
    for (let action = 0; action < n; action++) {
      if (mustFeed ? state[own + action] > n - 1 - action : state[own + action] > 0) actions.push(action);
    }
    if (rules.slam === 1 && actions.length > 1) {
      const kept = actions.filter(action => !isGrandSlam(state, rules, action));
      if (kept.length > 0 && kept.length < actions.length) return kept;
    }
    return actions;
  }

  // End the game on the board as it stands: the seeds left go to their owners if the rules say so.
  function finish(state, rules) {
    const n = rules.n, size = rules.size;
    if (rules.collect_remaining) {
      for (let i = 0; i < size; i++) {
        state[size + (i < n ? 0 : 1)] += state[i];
        state[i] = 0;
      }
    }
    state[size + 4] = state[size] > state[size + 1] ? SOUTH : state[size] < state[size + 1] ? NORTH : DRAW;
  }

  // The positions seen since the last capture: rows base..length-1 of the pits then the player to move.  A
  // capture empties it by moving `base` up to `length`, so that a search can take a move back by restoring the
  // two numbers (the rows below stay as they were).
  class History {
    constructor(size, capacity) {
      this.width = size + 1;
      this.rows = new Int32Array(Math.max(capacity, 4) * this.width);
      this.base = 0;
      this.length = 0;
    }
    copy() {
      const other = new History(this.width - 1, this.length - this.base + 8);
      other.rows.set(this.rows.subarray(this.base * this.width, this.length * this.width));
      other.length = this.length - this.base;
      return other;
    }
    push(state, size) {
      if ((this.length + 1) * this.width > this.rows.length) {
        const rows = new Int32Array(this.rows.length * 2);
        rows.set(this.rows);
        this.rows = rows;
      }
      const offset = this.length * this.width;
      for (let i = 0; i < size; i++) this.rows[offset + i] = state[i];
      this.rows[offset + size] = state[size + 2];
      this.length += 1;
    }
    // Whether row j holds the board and the player to move of `state`.
    same(j, state, size) {
      const offset = j * this.width;
      if (this.rows[offset + size] !== state[size + 2]) return false;
      for (let i = 0; i < size; i++) if (this.rows[offset + i] !== state[i]) return false;
      return true;
    }
  }

  // Play the legal `action` in `state` (in place), updating `history`; return [captured, ending, legal], where
  // `ending` is one of the END_* codes (END_NONE while the game goes on) and `legal` the legal actions after the
  // move (none once the game is over).  The order of the tests is that of
  // rules.advance: captures, then repetition, then a lack of legal moves, then the ply limit.
  function advance(state, rules, action, history) {
    const n = rules.n, size = rules.size;
    const player = state[size + 2];
    const last = sow(state, player * n + action, size);
    const captured = capture(state, last, player, n, rules.slam);
    state[size + player] += captured;
    state[size + 2] = 1 - player;
    state[size + 3] += 1;
    if (captured > 0) {
      history.base = history.length;
      const half = rules.total >> 1, south = state[size], north = state[size + 1];
      if (south > half || north > half || (south === half && north === half)) {
        state[size + 4] = south > north ? SOUTH : north > south ? NORTH : DRAW;
        return [captured, south === half && north === half ? END_HALF_EACH : END_HALF_PLUS, NONE];
      }
    }
    if (rules.repetition) {
      for (let j = history.length - 2; j >= history.base; j -= 2) {
        if (history.same(j, state, size)) {
          finish(state, rules);
          return [captured, END_REPETITION, NONE];
        }
      }
      history.push(state, size);
    }
    const legal = legalActions(state, rules);
    if (legal.length === 0) {
      finish(state, rules);
      return [captured, END_NO_MOVE, NONE];
    }
    if (rules.max_plies !== null && state[size + 3] >= rules.max_plies) {
      state[size + 4] = DRAW;
      return [captured, END_PLY_LIMIT, NONE];
    }
    return [captured, END_NONE, legal];
  }

  // ------------------------------------------------------------------------------------------------ games

  function pitLabel(pit, n) {
    return pit < n ? String.fromCharCode(65 + pit) : String.fromCharCode(97 + pit - n);
  }

  // An immutable game: a state, its history since the last capture and its legal actions, as awale.Game.
  class Game {
    constructor(rules, state, history, legal) {
      this.rules = rules;
      this.state = state;
      this.history = history;
      this.legal = legal === undefined ? legalActions(state, rules) : legal;
    }
    static initial(rules) {
      rules = rules || ABAPA;
      const state = new Int32Array(rules.size + 5).fill(0);
      state.fill(rules.seeds_per_pit, 0, rules.size);
      state[rules.size + 4] = ONGOING;
      return Game._fresh(rules, state);
    }
    // Any live position, checked as Game.from_position checks it; throws an Error saying what is wrong.
    static fromPosition(rules, pits, captures, player, plies) {
      const size = rules.size;
      captures = captures || [0, 0];
      player = player || 0;
      plies = plies || 0;
      if (!Array.isArray(pits) || pits.length !== size || !pits.every(p => isInteger(p) && p >= 0)) {
        throw new Error(`a position needs ${size} non-negative integer pits`);
      }
      if (!captures.every(c => isInteger(c) && c >= 0) || (player !== 0 && player !== 1)) {
        throw new Error("captures must be non-negative integers and the player 0 or 1");
      }
      const seeds = pits.reduce((a, b) => a + b, 0) + captures[0] + captures[1];
      if (seeds !== rules.total) throw new Error(`the position holds ${seeds} seeds, the rules ${rules.total}`);
      const half = rules.total >> 1;
      if (captures[0] > half || captures[1] > half || (captures[0] === half && captures[1] === half)) {
        throw new Error("these captures end the game");
      }
      if (rules.max_plies !== null && plies >= rules.max_plies) throw new Error("the ply limit is reached");
      const state = new Int32Array(size + 5);
      state.set(pits);
      state[size] = captures[0];
      state[size + 1] = captures[1];
      state[size + 2] = player;
      state[size + 3] = plies;
      state[size + 4] = ONGOING;
      const game = Game._fresh(rules, state);
      if (game.legal.length === 0) throw new Error(`${PLAYERS[player]} has no legal move in this position`);
      return game;
    }
    static _fresh(rules, state) {
      const history = new History(rules.size, 16);
      if (rules.repetition) history.push(state, rules.size);
      return new Game(rules, state, history);
    }
    get pits() { return Array.from(this.state.subarray(0, this.rules.size)); }
    get captures() { return [this.state[this.rules.size], this.state[this.rules.size + 1]]; }
    get player() { return this.state[this.rules.size + 2]; }
    get plies() { return this.state[this.rules.size + 3]; }
    get outcome() { return this.state[this.rules.size + 4]; }
    get finished() { return this.outcome !== ONGOING; }
    // 0 or 1 for the winner, null for a draw or a game not over.
    get winner() { return this.outcome === SOUTH || this.outcome === NORTH ? this.outcome : null; }

    // Play `action`: {game, captured, ending, ply}, where `ply` describes the move as awale.core.record.Ply does.
    // Throws an Error for an illegal action, saying why.
    step(action) {
      const rules = this.rules, n = rules.n, size = rules.size;
      if (this.finished) throw new Error("the game is over: no action can be played");
      if (!this.legal.includes(action)) {
        if (!isInteger(action) || action < 0 || action >= n) throw new Error(`action ${action} is out of range: actions are 0 to ${n - 1}`);
        const pit = this.player * n + action;
        if (this.state[pit] === 0) throw new Error(`action ${action} is illegal: ${PLAYERS[this.player]}'s pit ${pitLabel(pit, n)} is empty`);
        throw new Error(`action ${action} is illegal here (${PLAYERS[this.player]} must give the opponent seeds, or it is a forbidden grand slam)`);
      }
      const player = this.player, pit = player * n + action;
      const sown = this.state.slice(0, size);
      const last = sow(sown, pit, size);
      const [taken, first, grand] = chain(sown, last, player, n);
      const state = this.state.slice();
      const history = this.history.copy();
      const [captured, ending, legal] = advance(state, rules, action, history);
      const game = new Game(rules, state, history, legal);
      // The reason in awale.core.record.ending's words, which name a game ended by a capture after its final count
      // (seeds left on the board included): more than half the seeds, or half each.
      let reason = ENDINGS[ending];
      if (ending !== END_NONE && captured > 0) {
        const [south, north] = game.captures, half = rules.total >> 1;
        if (south > half || north > half) reason = ENDINGS[END_HALF_PLUS];
        else if (south === half && north === half) reason = ENDINGS[END_HALF_EACH];
      }
      const capturedPits = [];
      if (captured) for (let i = first; i <= last; i++) capturedPits.push(i);
      return {
        game: game, captured: captured, ending: reason,
        ply: {player: player, action: action, pit: pit, label: pitLabel(pit, n), captured: captured,
              capturedPits: capturedPits, grandSlam: taken > 0 && grand && !captured, ending: reason},
      };
    }
  }

  // Every ply of the game that plays `moves` from the initial position of `rules`: [{ply, game}], with the
  // initial game first as {ply: null, game}.  Throws an Error naming the first ply that is not legal.
  function replay(moves, rules) {
    let game = Game.initial(rules || ABAPA);
    const plies = [{ply: null, game: game}];
    moves.forEach((action, index) => {
      let done;
      try {
        done = game.step(action);
      } catch (error) {
        throw new Error(`ply ${index + 1}: ${error.message}`);
      }
      game = done.game;
      plies.push({ply: done.ply, game: game});
    });
    return plies;
  }

  // ------------------------------------------------------------------------------------------------ game files

  // The game file of `python -m awale play --save` (awale.play.terminal.save_game): the same JSON, byte for byte.
  const FORMAT = "awale-game/1";

  function encodeMoves(moves) { return moves.map(String).join(""); }

  function gameFile(south, north, rules, moves) {
    const data = {format: FORMAT, south: south, north: north, rules: rulesFields(rules), moves: encodeMoves(moves)};
    return JSON.stringify(data, null, 1) + "\n";
  }

  // Read a game file as awale.play.terminal.load_game does: {south, north, rules, moves, plies}.  Throws an Error with a
  // one-line message for anything that is not a legal game file.
  function readGameFile(text) {
    if (typeof text !== "string" || text.trim() === "") throw new Error("the game file is empty");
    if (text.length > 1000000) throw new Error("the game file is longer than a million characters");
    let data;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new Error("not a game file (not JSON)");
    }
    if (data === null || typeof data !== "object" || Array.isArray(data) || data.format !== FORMAT) {
      throw new Error(`not a game file (it needs "format": "${FORMAT}")`);
    }
    for (const key of ["south", "north", "moves"]) {
      if (typeof data[key] !== "string") throw new Error(`'${key}' must be a string`);
    }
    if (data.rules === null || typeof data.rules !== "object" || Array.isArray(data.rules)) {
      throw new Error("'rules' must be an object of Rules fields");
    }
    const rules = makeRules(data.rules);
    if (!/^[0-9]*$/.test(data.moves)) throw new Error("'moves' must be digits, one per action");
    const moves = Array.from(data.moves, Number);
    const plies = replay(moves, rules);
    return {south: data.south, north: data.north, rules: rules, moves: moves, plies: plies};
  }

  // ------------------------------------------------------------------------------------------------ randomness

  // A small seeded generator (xorshift128 on four 32-bit words seeded by SplitMix32), for the agents and tests.
  class Random {
    constructor(seed) {
      let x = (seed >>> 0) ^ 0x9e3779b9;
      this.words = new Uint32Array(4);
      for (let i = 0; i < 4; i++) {
        x = (x + 0x9e3779b9) >>> 0;
        let z = x;
        z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
        z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
        this.words[i] = (z ^ (z >>> 16)) >>> 0;
      }
      if (!this.words.some(w => w !== 0)) this.words[0] = 1;
    }
    next() {
      const w = this.words;
      let t = w[0];
      t ^= t << 11;
      t ^= t >>> 8;
      w[0] = w[1]; w[1] = w[2]; w[2] = w[3];
      let s = w[3];
      s ^= s >>> 19;
      s ^= t;
      w[3] = s >>> 0;
      return w[3];
    }
    // A uniform integer in [0, k).
    below(k) { return Math.floor((this.next() / 4294967296) * k); }
    // A uniform number in [0, 1).
    uniform() { return this.next() / 4294967296; }
  }

  return {
    ONGOING, SOUTH, NORTH, DRAW, PLAYERS, ENDINGS, FORMAT, ABAPA,
    makeRules, rulesFields, legalActions, advance, sow, chain, History, Game, replay, pitLabel,
    gameFile, readGameFile, encodeMoves, Random,
  };
});
