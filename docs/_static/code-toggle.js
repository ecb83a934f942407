/* Show or hide the code cells of the notebooks (the button comes from docs/_templates/code-toggle.html).
 * The choice is kept in localStorage and applied here, in <head>, before the page is drawn; docs/_static/thesis.css
 * hides div.nbinput under html[data-awale-code="hidden"]. */
(function () {
  "use strict";
  var KEY = "awale-thesis-code";
  var root = document.documentElement;

  function read() {
    try {
      return window.localStorage.getItem(KEY);
    } catch (error) {
      return null; // storage disabled: the code is shown, and a choice lasts until the page is left
    }
  }

  function write(value) {
    try {
      window.localStorage.setItem(KEY, value);
    } catch (error) {
      /* storage disabled: nothing to remember */
    }
  }

  function isHidden() {
    return root.getAttribute("data-awale-code") === "hidden";
  }

  function label(button) {
    var hidden = isHidden();
    button.setAttribute("aria-pressed", hidden ? "true" : "false");
    var text = button.querySelector(".awale-code-toggle-label");
    if (text) {
      text.textContent = hidden ? "Show code" : "Hide code";
    }
  }

  if (read() === "hidden") {
    root.setAttribute("data-awale-code", "hidden");
  }

  // A long chapter (more than LONG lines of code) starts with its code folded, unless the reader chose otherwise:
  // its prose, boards and plots then read without scrolling past every cell.  tools/check_site.py checks it.
  var LONG = 300;

  function codeLines() {
    var lines = 0;
    document.querySelectorAll("div.nbinput pre").forEach(function (pre) {
      lines += pre.textContent.replace(/\n+$/, "").split("\n").length;
    });
    return lines;
  }

  document.addEventListener("DOMContentLoaded", function () {
    if (read() === null && codeLines() > LONG) {
      root.setAttribute("data-awale-code", "hidden");
    }
    var buttons = document.querySelectorAll(".awale-code-toggle");
    buttons.forEach(function (button) {
      label(button);
      button.addEventListener("click", function () {
        if (isHidden()) {
          root.removeAttribute("data-awale-code");
          write("shown");
        } else {
          root.setAttribute("data-awale-code", "hidden");
          write("hidden");
        }
        buttons.forEach(label);
      });
    });
  });
})();
