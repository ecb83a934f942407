// The SVG board of the site's scripts, laid out as awale.core.render.svg_board: South's row at the bottom, North's on
// top as seen from South's seat, each player's store at their right hand.  Shared by the game viewer
// (game-viewer.js) and the page "Play in the browser" (play-online.js); its colours are in awale-board.css.
(function (root) {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
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

  // The board of one position.  `position` is the pits, then South's and North's captures; `options`:
  //   title: the SVG's title;  sown: the pit sown last (or -1);  taken: the pits it captured;
  //   playable: pits to draw as clickable (class "legal", data-action their action);
  //   notes: {pit: text}, a short text beside each such pit (outside the board, by its label).
  //   compact: the narrow layout, for a column under about 520 px (a phone): the pits fill the width (no stores at
  //   the ends; each player's captures are by their name, above and below the board), so that at 390 px every
  //   pit is a target of at least 44 px with 8 px between, and every text at least 12 px.
  function draw(n, position, options) {
    options = options || {};
    if (options.compact) return drawCompact(n, position, options);
    const taken = options.taken || [], playable = options.playable || [], notes = options.notes || {};
    const width = (n + 2) * CELL + 2 * MARGIN, height = 2 * CELL + 2 * MARGIN + 44, top = MARGIN + 22;
    const root = svg("svg", {xmlns: NS, width: width, height: height, viewBox: `0 0 ${width} ${height}`,
                             role: "img", class: "awale-board awale-drawn"});
    svg("title", {}, root, options.title || "an Awale board");
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
      if (options.sown === pit) css += " sown";
      else if (taken.includes(pit)) css += " taken";
      const group = playable.includes(pit)
        ? svg("g", {class: "legal", "data-action": action, tabindex: 0, role: "button",
                    "aria-label": `play pit ${label(pit, n)}, ${position[pit]} seeds`}, root)
        : root;
      svg("circle", {cx: cx, cy: cy, r: RADIUS, class: css}, group);
      svg("text", {x: cx, y: cy + 6, "text-anchor": "middle", class: "num", "data-pit": pit}, group, position[pit]);
      svg("text", {x: cx, y: player === 0 ? top + 2 * CELL + 16 : top - 6, "text-anchor": "middle", class: "lbl"},
          root, label(pit, n));
      if (notes[pit] !== undefined) {
        svg("text", {x: cx, y: player === 0 ? height - 8 : MARGIN - 6, "text-anchor": "middle", class: "note",
                     "data-note": pit}, root, notes[pit]);
      }
    }
    svg("text", {x: MARGIN, y: MARGIN - 6, class: "who"}, root, "North");
    svg("text", {x: MARGIN, y: height - 8, class: "who"}, root, "South");
    return root;
  }

  // The narrow layout: six cells of 64 units across (the pits' circles 54 units wide, 10 apart), and text of 16
  // units and more, so that a board 330 px wide or more keeps targets of 44 px, 8 px apart, and text of 13 px.
  function drawCompact(n, position, options) {
    const taken = options.taken || [], playable = options.playable || [], notes = options.notes || {};
    const side = 8, width = n * CELL + 2 * side, top = 84, height = top + 2 * CELL + 86;
    const root = svg("svg", {xmlns: NS, width: width, height: height, viewBox: `0 0 ${width} ${height}`,
                             role: "img", class: "awale-board awale-drawn compact"});
    svg("title", {}, root, options.title || "an Awale board");
    // Each player's name and captures: North's above the board, South's below it.
    [[1, 4], [0, height - 36]].forEach(([player, y]) => {
      svg("text", {x: side, y: y + 23, class: "who"}, root, `${player ? "North" : "South"} has captured`);
      svg("rect", {x: width - side - 56, y: y, width: 56, height: 32, rx: 10, class: "pit"}, root);
      svg("text", {x: width - side - 28, y: y + 23, "text-anchor": "middle", class: "cap", "data-store": player},
          root, position[2 * n + player]);
    });
    svg("rect", {x: side, y: top, width: n * CELL, height: 2 * CELL, rx: 24, class: "wood"}, root);
    for (let pit = 0; pit < 2 * n; pit++) {
      const player = pit < n ? 0 : 1, action = pit % n;
      const column = player === 0 ? action : n - 1 - action;
      const cx = side + column * CELL + CELL / 2, cy = top + (player === 0 ? 1.5 : 0.5) * CELL;
      let css = "pit";
      if (options.sown === pit) css += " sown";
      else if (taken.includes(pit)) css += " taken";
      const group = playable.includes(pit)
        ? svg("g", {class: "legal", "data-action": action, tabindex: 0, role: "button",
                    "aria-label": `play pit ${label(pit, n)}, ${position[pit]} seeds`}, root)
        : root;
      svg("circle", {cx: cx, cy: cy, r: RADIUS, class: css}, group);
      svg("text", {x: cx, y: cy + 7, "text-anchor": "middle", class: "num", "data-pit": pit}, group, position[pit]);
      // The pit's letter next to the row, and the opponent's note (when shown) beyond the letter.
      const near = player === 0 ? top + 2 * CELL + 20 : top - 8, far = player === 0 ? near + 22 : near - 22;
      svg("text", {x: cx, y: near, "text-anchor": "middle", class: "lbl"}, root, label(pit, n));
      if (notes[pit] !== undefined) {
        svg("text", {x: cx, y: far, "text-anchor": "middle", class: "note", "data-note": pit}, root, notes[pit]);
      }
    }
    return root;
  }

  root.AwaleBoard = {draw: draw, label: label};
})(typeof self !== "undefined" ? self : this);
