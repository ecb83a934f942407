// The game viewer of docs/_ext/game_viewer.py: draws the positions the library computed (the JSON in each
// viewer) as an SVG board, and moves through them with the buttons, the move list and the arrow keys.
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  const PLAYERS = ["South", "North"];
  const CELL = 64, MARGIN = 24, RADIUS = 27;

  function svg(name, attributes, parent, text) {
    const node = document.createElementNS(NS, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function label(pit, n) {
    return pit < n ? String.fromCharCode(65 + pit) : String.fromCharCode(97 + pit - n);
  }

  // The board of one position, South's row at the bottom, as awale.render.svg_board lays it out.
  function board(data, ply) {
    const n = data.pits, position = data.positions[ply], last = ply > 0 ? data.plies[ply - 1] : null;
    const width = (n + 2) * CELL + 2 * MARGIN, height = 2 * CELL + 2 * MARGIN + 44, top = MARGIN + 22;
    const root = svg("svg", {xmlns: NS, width: width, height: height, viewBox: `0 0 ${width} ${height}`,
                             role: "img", class: "awale-board"});
    svg("title", {}, root, `position after ply ${ply}`);
    svg("rect", {x: MARGIN, y: top, width: (n + 2) * CELL, height: 2 * CELL, rx: 28, class: "wood"}, root);
    [[1, 0], [0, n + 1]].forEach(([player, column]) => {
      const x = MARGIN + column * CELL + CELL / 2;
      svg("ellipse", {cx: x, cy: top + CELL, rx: CELL / 2 - 6, ry: CELL - 10, class: "pit"}, root);
      svg("text", {x: x, y: top + CELL + 6, "text-anchor": "middle", class: "cap", "data-store": player},
          root, position[2 * n + player]);
    });
    for (let pit = 0; pit < 2 * n; pit++) {
      const player = pit < n ? 0 : 1, action = pit % n;
      const column = 1 + (player === 0 ? action : n - 1 - action);
      const cx = MARGIN + column * CELL + CELL / 2, cy = top + (player === 0 ? 1.5 : 0.5) * CELL;
      let css = "pit";
      if (last && last.pit === pit) css += " sown";
      else if (last && last.captured.includes(pit)) css += " taken";
      svg("circle", {cx: cx, cy: cy, r: RADIUS, class: css}, root);
      svg("text", {x: cx, y: cy + 6, "text-anchor": "middle", class: "num", "data-pit": pit}, root, position[pit]);
      svg("text", {x: cx, y: player === 0 ? top + 2 * CELL + 16 : top - 6, "text-anchor": "middle", class: "lbl"},
          root, label(pit, n));
    }
    svg("text", {x: MARGIN, y: MARGIN - 6, class: "who"}, root, "North");
    svg("text", {x: MARGIN, y: height - 8, class: "who"}, root, "South");
    return root;
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

    function show(target) {
      ply = Math.max(0, Math.min(end, target));
      place.replaceChildren(board(data, ply));
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
