// The game viewer of docs/_ext/game_viewer.py: draws the positions the library computed (the JSON in each
// viewer) as an SVG board (awale-board.js), and moves through them with the buttons, the move list and the arrow keys.
(function () {
  "use strict";
  const PLAYERS = ["South", "North"];
  const label = AwaleBoard.label;

  // The board of one position, drawn by awale-board.js.
  // `compact`: the narrow layout, for a phone's column (awale-board.js).
  function board(data, ply, compact) {
    const last = ply > 0 ? data.plies[ply - 1] : null;
    return AwaleBoard.draw(data.pits, data.positions[ply], {
      title: `position after ply ${ply}`, sown: last ? last.pit : -1, taken: last ? last.captured : [],
      compact: compact,
    });
  }

  function describe(data, ply, viewer) {
    if (ply === 0) return `The initial position; ${data.plies.length} plies follow.`;
    const last = data.plies[ply - 1];
    let text = `Ply ${ply} of ${data.plies.length}: ${PLAYERS[last.player]} plays ${last.label}`;
    if (last.took) text += `, capturing ${last.took} (${last.captured.map(p => label(p, data.pits)).join(" ")})`;
    else if (last.slam) text += ", a grand slam, which captures nothing";
    text += ".";
    if (ply === data.plies.length && viewer.dataset.result) text += ` ${viewer.dataset.result}.`;
    return text;
  }

  function setup(viewer) {
    const data = JSON.parse(viewer.querySelector(".awale-viewer-data").textContent);
    const place = viewer.querySelector(".awale-viewer-board");
    const status = viewer.querySelector(".awale-viewer-status");
    const moves = [...viewer.querySelectorAll(".awale-viewer-moves button")];
    const playButton = viewer.querySelector('[data-action="play"]');
    const end = data.positions.length - 1;
    let ply = 0, timer = null;
    const narrow = () => place.clientWidth > 0 && place.clientWidth < 520;
    let wasNarrow = narrow();
    window.addEventListener("resize", () => {
      if (narrow() !== wasNarrow) { wasNarrow = narrow(); show(ply); }
    });

    function show(target) {
      ply = Math.max(0, Math.min(end, target));
      place.replaceChildren(board(data, ply, narrow()));
      status.textContent = describe(data, ply, viewer);
      viewer.dataset.ply = ply;
      moves.forEach((button, index) => button.classList.toggle("current", index + 1 === ply));
    }
    function stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      playButton.textContent = "▶ play";
    }
    function play() {
      if (timer !== null) return stop();
      if (ply === end) show(0);
      playButton.textContent = "❚❚ pause";
      timer = setInterval(() => { show(ply + 1); if (ply === end) stop(); }, 600);
    }
    const actions = {start: () => show(0), back: () => show(ply - 1), step: () => show(ply + 1),
                     end: () => show(end)};
    viewer.querySelectorAll(".awale-viewer-controls button").forEach(button => {
      button.addEventListener("click", () => {
        if (button.dataset.action === "play") return play();
        stop();
        actions[button.dataset.action]();
      });
    });
    moves.forEach(button => button.addEventListener("click", () => { stop(); show(Number(button.dataset.ply)); }));
    viewer.tabIndex = 0;
    viewer.addEventListener("keydown", event => {
      if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
        stop();
        show(ply + (event.key === "ArrowRight" ? 1 : -1));
        event.preventDefault();
      }
    });
    show(0);
  }

  function start() { document.querySelectorAll(".awale-viewer").forEach(setup); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
