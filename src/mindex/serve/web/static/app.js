// Draws the graph a page hands over as JSON (#graph-data) with the vendored Cytoscape.js.
// Labels are set as text by Cytoscape (canvas), never as HTML.
(function () {
  "use strict";
  var drawn = null;
  function draw() {
    var box = document.getElementById("graph");
    var data = document.getElementById("graph-data");
    if (!box || !data || typeof cytoscape !== "function") { return; }
    var graph = JSON.parse(data.textContent);
    var kind = box.getAttribute("data-kind");
    var colours = { target: "#b3261e", caller: "#2458c6", learning: "#1e6b2f", pattern: "#2458c6",
                    mistake: "#b3261e", topic: "#7a4fbf", CodeArea: "#8a6d00", File: "#6a6f78", Issue: "#c26a00" };
    var styles = window.getComputedStyle(document.documentElement);
    var ink = styles.getPropertyValue("--fg").trim() || "#1d1f23";
    var faint = styles.getPropertyValue("--muted").trim() || "#6a6f78";
    if (drawn) { drawn.destroy(); }
    var cy = drawn = cytoscape({
      container: box,
      elements: graph.elements,
      minZoom: 0.05,
      maxZoom: 2.5,
      style: [
        { selector: "node", style: { "label": "data(label)", "font-size": 10, "text-valign": "bottom",
            "text-wrap": "ellipsis", "text-max-width": 160, "width": 14, "height": 14, "color": ink,
            "background-color": function (n) { return colours[n.data("type")] || "#888"; } } },
        { selector: "node[type = 'file']", style: { "background-opacity": 0.06, "border-width": 1,
            "border-color": faint, "text-valign": "top", "font-size": 9, "color": faint } },
        { selector: "node[center = 'yes']", style: { "width": 24, "height": 24, "border-width": 3, "border-color": ink } },
        { selector: "edge", style: { "curve-style": "bezier", "target-arrow-shape": "triangle", "width": 1.5,
            "line-color": "#9aa3b2", "target-arrow-color": "#9aa3b2", "label": "data(label)", "font-size": 8,
            "text-rotation": "autorotate", "color": faint } },
        { selector: "edge[confidence < 0.5]", style: { "line-style": "dashed" } }
      ],
      // A force layout is quadratic: past 150 nodes, rings by degree draw at once.
      layout: graph.nodes > 150
        ? { name: "concentric", concentric: function (n) { return n.degree(); },
            levelWidth: function () { return 4; }, padding: 20, animate: false }
        : { name: kind === "impact" ? "breadthfirst" : "cose", directed: true, padding: 20, animate: false }
    });
    cy.on("tap", "node", function (event) {
      var node = event.target.data();
      if (kind === "impact" && node.chunk) { window.location.href = "/chunk/" + encodeURIComponent(node.chunk); }
      if (kind === "knowledge") { window.location.href = "/knowledge/" + encodeURIComponent(node.id); }
    });
    box.setAttribute("data-drawn", String(cy.nodes().length));
  }
  // A chunk's page opens at the chunk, not at the top of the lines shown around it.
  function toChunk() {
    var marked = document.querySelector("div.file .hll");
    if (marked && !window.location.hash) { marked.scrollIntoView({ block: "center" }); }
  }
  // The header's theme button: flips between light and dark and remembers the choice.
  function theme() {
    var button = document.getElementById("theme");
    if (!button) { return; }
    var root = document.documentElement;
    function dark() {
      var chosen = root.getAttribute("data-theme");
      return chosen ? chosen === "dark" : window.matchMedia("(prefers-color-scheme: dark)").matches;
    }
    function show() {
      button.textContent = dark() ? "Light theme" : "Dark theme";
      button.setAttribute("aria-pressed", String(dark()));
    }
    button.addEventListener("click", function () {
      var next = dark() ? "light" : "dark";
      root.setAttribute("data-theme", next);
      try { window.localStorage.setItem("mindex-theme", next); } catch (e) { /* not remembered */ }
      show();
      draw();
    });
    show();
  }
  // The section the page belongs to is marked in the header (for screen readers too).
  function current() {
    var links = document.querySelectorAll("header nav a");
    for (var i = 0; i < links.length; i++) {
      var href = links[i].getAttribute("href");
      if (window.location.pathname === href || window.location.pathname.indexOf(href + "/") === 0) {
        links[i].setAttribute("aria-current", "page");
      }
    }
  }
  function ready() { theme(); current(); draw(); toChunk(); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", ready); } else { ready(); }
}());
