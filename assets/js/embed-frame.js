// Inside an embed (/embed/…): tell the parent window the page's height
// whenever it changes, so /embed.js can size the frame. The height is not
// a secret, so any parent may read it; the parent checks who sent it.
(function () {
  "use strict";
  if (window.parent === window) return;
  var last = 0;
  function post() {
    var h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (h !== last) {
      last = h;
      window.parent.postMessage({ type: "kalends:height", height: h }, "*");
    }
  }
  if (typeof ResizeObserver === "function") {
    new ResizeObserver(post).observe(document.documentElement);
  }
  window.addEventListener("load", post);
  post();
})();
