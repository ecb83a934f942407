// The page "Play in the browser" (docs/_ext/play_online.py writes its HTML): a game against one of the page's
// opponents (awale-agents.js) on the rules of awale-engine.js, drawn by awale-board.js.  Everything runs in the
// page: no request leaves it, and it works from a copy on disk.
//
// For tools/check_play.py the container carries the state it shows: data-mode ("play" or "watch"), data-moves
// (the moves so far, one digit each), data-ply (the ply shown) and data-busy ("1" while the opponent thinks).
(function () {
  "use strict";
  const NARROW = 520;  // px: a column narrower than this gets the board's narrow layout
  const E = window.AwaleEngine, A = window.AwaleAgents, B = window.AwaleBoard;
  const PLAYERS = E.PLAYERS;
  const HUMAN = "human";

  function marginText(game) {
    const [south, north] = game.captures;
    // Each number beside its side, the winner's first (awale.play.match.score_text).
    if (game.winner === null) return `a draw: South ${south}, North ${north}`;
    const [mine, theirs] = game.winner === 0 ? [south, north] : [north, south];
    const margin = Math.abs(south - north);
    return `${PLAYERS[game.winner]} wins by ${margin} seed${margin === 1 ? "" : "s"}: ` +
      `${PLAYERS[game.winner]} ${mine}, ${PLAYERS[1 - game.winner]} ${theirs}`;
  }

  function plyText(ply, n) {
    let text = `${PLAYERS[ply.player]} played ${ply.label}`;
    if (ply.captured) text += `, capturing ${ply.captured} (${ply.capturedPits.map(p => B.label(p, n)).join(" ")})`;
    else if (ply.grandSlam) text += ", a grand slam, which captures nothing";
    return text;
  }

  // An αβ value in a few characters: the capture difference the mover can expect, or a forced result.
  function valueText(value) {
    if (value >= A.WIN) return `W+${value - A.WIN}`;
    if (value <= -A.WIN) return `L−${-value - A.WIN}`;
    return value > 0 ? `+${value}` : value < 0 ? `−${-value}` : "0";
  }

  function setup(root) {
    const $ = selector => root.querySelector(selector);
    const place = $(".awale-play-board"), status = $(".awale-play-status"), thought = $(".awale-play-thought");
    const narrow = () => place.clientWidth > 0 && place.clientWidth < NARROW;
    const opponentMenu = $(".awale-play-opponent"), sideMenu = $(".awale-play-side"), thinking = $(".awale-play-thinking");
    const movesList = $(".awale-play-moves"), out = $(".awale-play-out"), pasted = $(".awale-play-in");
    const error = $(".awale-play-error"), watchControls = $(".awale-play-watch");
    A.OPPONENTS.forEach((opponent, index) => {
      const option = document.createElement("option");
      option.value = opponent.spec;
      option.textContent = opponent.label;
      if (index === A.OPPONENTS.length - 1) option.selected = true;
      opponentMenu.appendChild(option);
    });

    // The game: plies[0] is {ply: null, game: the initial position}, then one entry per move with what the
    // opponent thought before its own moves.
    let plies, human, opponent, agent, south, north, shown, mode = "play", busy = 0, gamesStarted = 0;

    function moves() { return plies.slice(1).map(entry => entry.ply.action); }
    function current() { return plies[plies.length - 1].game; }

    function newGame() {
      mode = "play";
      busy += 1;  // a reply not yet begun for the old game is dropped
      root.dataset.busy = "0";
      human = Number(sideMenu.value);
      opponent = A.OPPONENTS.find(o => o.spec === opponentMenu.value) || A.OPPONENTS[A.OPPONENTS.length - 1];
      gamesStarted += 1;
      agent = opponent.make((Date.now() + 7919 * gamesStarted) >>> 0);
      [south, north] = human === 0 ? [HUMAN, opponent.spec] : [opponent.spec, HUMAN];
      plies = [{ply: null, game: E.Game.initial(E.ABAPA)}];
      error.textContent = "";
      render();
      reply();
    }

    function play(action) {
      const done = current().step(action);
      plies.push({ply: done.ply, game: done.game, thought: null});
    }

    // The opponent's move, after the board has been drawn (its search takes up to about a second).
    function reply() {
      const game = current();
      if (mode !== "play" || game.finished || game.player === human) return;
      const token = ++busy;
      root.dataset.busy = "1";
      status.textContent = `${PLAYERS[game.player]} (${opponent.label}) is thinking…`;
      setTimeout(() => {
        if (token !== busy) return;
        const started = performance.now();
        const result = agent.think(game);
        result.seconds = (performance.now() - started) / 1000;
        play(result.action);
        plies[plies.length - 1].thought = result;
        root.dataset.busy = "0";
        render();
      }, 30);
    }

    function humanMove(action) {
      const game = current();
      if (mode !== "play" || game.finished || game.player !== human || root.dataset.busy === "1") return;
      play(action);
      render();
      reply();
    }

    function undo() {
      if (mode !== "play") return;
      busy += 1;
      root.dataset.busy = "0";
      // Back to the position before the reader's last move (their move and the reply to it are taken back).
      let index = plies.length - 1;
      while (index > 0 && plies[index].ply.player !== human) index -= 1;
      if (index === 0) return render();
      plies = plies.slice(0, index);
      render();
      reply();
    }

    // What the opponent thought before its last move, as notes by its pits and a sentence.
    function lastThought() {
      for (let index = plies.length - 1; index > 0; index -= 1) {
        if (plies[index].thought) return {entry: plies[index], before: plies[index - 1].game};
      }
      return null;
    }

    function describeThought(found, n) {
      const t = found.entry.thought, mover = found.entry.ply.player, notes = {}, parts = [];
      const pit = action => mover * n + action;
      const ms = `${Math.round(1000 * t.seconds)} ms`;
      if (t.kind === "minimax") {
        for (const [action, value] of t.values) notes[pit(action)] = valueText(value);
        const list = found.before.legal.map(a => `${B.label(pit(a), n)} ${valueText(t.values.get(a))}`).join(", ");
        parts.push(`αβ searched ${t.nodes.toLocaleString("en")} positions, ${t.exact ? "to the end of the game" :
          `${t.depth} plies deep`}, in ${ms}. The value of each move (${list}) is the capture difference ` +
          `${PLAYERS[mover]} can expect after the best replies; W+n is a forced win by n seeds, L−n a forced loss.`);
      } else if (t.kind === "uct") {
        const list = [];
        for (const action of found.before.legal) {
          const s = t.stats.get(action);
          if (s === undefined) continue;
          notes[pit(action)] = `${Math.round(100 * s.winRate)}%`;
          list.push(`${B.label(pit(action), n)} ${s.visits.toLocaleString("en")} visits, ${(100 * s.winRate).toFixed(1)} %`);
        }
        parts.push(`UCT ran ${t.iterations.toLocaleString("en")} playouts in ${ms}: ${list.join("; ")}. The win rate ` +
          `is ${PLAYERS[mover]}'s over the playouts through each move (a draw counts half); the most visited is played.`);
      } else if (t.kind === "greedy") {
        for (const [action, taken] of Object.entries(t.captures)) notes[pit(Number(action))] = `×${taken}`;
        parts.push("Greedy looks one move ahead: the seeds each move captures at once (×n); it plays the biggest " +
          "capture, a winning move first.");
      } else {
        parts.push("Random does not think: it picks a legal move uniformly at random.");
      }
      return {notes: notes, text: parts.join(" ")};
    }

    function render() {
      const entry = mode === "watch" ? plies[shown] : plies[plies.length - 1];
      const game = entry.game, ply = entry.ply, n = game.rules.n;
      const playable = mode === "play" && !game.finished && game.player === human && root.dataset.busy !== "1"
        ? game.legal.map(action => human * n + action) : [];
      let notes = {}, note = "";
      const found = mode === "play" && thinking.checked ? lastThought() : null;
      if (found) ({notes, text: note} = describeThought(found, n));
      const board = B.draw(n, [...game.pits, ...game.captures], {
        title: `the position after ply ${game.plies}`, sown: ply ? ply.pit : -1, taken: ply ? ply.capturedPits : [],
        playable: playable, notes: notes, compact: narrow(),
      });
      board.querySelectorAll(".legal").forEach(pit => {
        const action = Number(pit.dataset.action);
        pit.addEventListener("click", () => humanMove(action));
        pit.addEventListener("keydown", event => {
          if (event.key === "Enter" || event.key === " ") { event.preventDefault(); humanMove(action); }
        });
      });
      place.replaceChildren(board);
      thought.textContent = note;
      thought.hidden = !note;
      // The status line.
      let text = ply ? `${plyText(ply, n)}. ` : "";
      if (game.finished) text += `The game is over (${ply.ending}): ${marginText(game)}.`;
      else if (mode === "watch") text += `${PLAYERS[game.player]} to move.`;
      else if (game.player === human) text += `Your move (${PLAYERS[human]}): click a pit ringed in green.`;
      if (mode === "watch") text = `Ply ${shown} of ${plies.length - 1}. ${text}`;
      if (mode === "watch" || game.finished || root.dataset.busy !== "1") status.textContent = text;
      // The moves, the game file.
      movesList.replaceChildren(...plies.slice(1).map((entry, index) => {
        const item = document.createElement("li");
        item.textContent = entry.ply.label + (entry.ply.captured ? ` ×${entry.ply.captured}` : "");
        item.title = `ply ${index + 1}: ${PLAYERS[entry.ply.player]}`;
        if (mode === "watch" && index + 1 === shown) item.className = "current";
        return item;
      }));
      out.value = E.gameFile(south, north, plies[0].game.rules, moves());
      watchControls.hidden = mode !== "watch";
      root.dataset.mode = mode;
      root.dataset.moves = E.encodeMoves(moves());
      root.dataset.ply = mode === "watch" ? shown : plies.length - 1;
    }

    function watch() {
      let read;
      try {
        read = E.readGameFile(pasted.value);
      } catch (problem) {
        error.textContent = `This is not a game file the page can show: ${problem.message}.`;
        return;
      }
      busy += 1;
      root.dataset.busy = "0";
      mode = "watch";
      error.textContent = "";
      plies = read.plies;
      south = read.south;
      north = read.north;
      shown = 0;
      render();
      status.textContent = `${read.south} (South) against ${read.north} (North), ${read.moves.length} plies. ` +
        status.textContent;
    }

    function go(target) {
      if (mode !== "watch") return;
      shown = Math.max(0, Math.min(plies.length - 1, target));
      render();
    }

    // Copy the game file: the clipboard API where the browser allows it, else the older command; the text stays
    // selected either way, for the reader to copy by hand if both are refused.
    function copy() {
      out.select();
      const say = text => { $(".awale-play-copied").textContent = text; };
      const older = () => {
        let done = false;
        try { done = document.execCommand("copy"); } catch (refused) { done = false; }
        say(done ? "copied" : "the browser refused: the text is selected, copy it by hand");
      };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(out.value).then(() => say("copied"), older);
      else older();
    }

    const actions = {
      new: newGame, undo: undo, copy: copy, watch: watch, start: () => go(0), back: () => go(shown - 1),
      step: () => go(shown + 1), end: () => go(plies.length - 1),
    };
    root.querySelectorAll("button[data-action]").forEach(button => {
      button.addEventListener("click", () => actions[button.dataset.action]());
    });
    thinking.addEventListener("change", render);
    // A phone's column gets the narrow board (awale-board.js), drawn again when the width crosses the limit.
    let wasNarrow = narrow();
    window.addEventListener("resize", () => {
      if (narrow() !== wasNarrow) { wasNarrow = narrow(); render(); }
    });
    root.dataset.busy = "0";
    newGame();
  }

  function start() { document.querySelectorAll(".awale-play").forEach(setup); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
