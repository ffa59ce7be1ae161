// Kalends embed: include this script (<script src="https://calendar.example/embed.js" defer>)
// and mark where the calendar goes with
//   <div data-kalends-events="categories=music&view=month&lang=ja"></div>
// The attribute holds the filters of the public list as a query string;
// view (list or month) and lang (en, ja, ko, zh-hans) pick the page. Each
// div gets an <iframe> of that embed, resized to its content from the
// height the frame posts. A message is taken only from this script's own
// origin and from that very frame (event.origin and event.source).
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script) return;
  var origin = new URL(script.src, document.baseURI).origin;
  var frames = [];

  function frameFor(div) {
    var params = new URLSearchParams(div.getAttribute("data-kalends-events") || "");
    var view = params.get("view");
    var lang = params.get("lang");
    params.delete("view");
    params.delete("lang");
    var path = (lang && /^[a-z]{2}(-[a-z]+)?$/i.test(lang) ? "/" + lang.toLowerCase() : "") +
      (view === "month" ? "/embed/events/month/" : "/embed/events/");
    var query = params.toString();
    var iframe = document.createElement("iframe");
    iframe.src = origin + path + (query ? "?" + query : "");
    iframe.title = div.getAttribute("data-kalends-title") || "Events";
    iframe.loading = "lazy";
    iframe.setAttribute("referrerpolicy", "strict-origin-when-cross-origin");
    iframe.style.width = "100%";
    iframe.style.border = "0";
    iframe.style.height = "480px";
    div.replaceChildren(iframe);
    return iframe;
  }

  function start() {
    var divs = document.querySelectorAll("div[data-kalends-events]");
    for (var i = 0; i < divs.length; i++) {
      if (!divs[i].hasAttribute("data-kalends-ready")) {
        divs[i].setAttribute("data-kalends-ready", "");
        frames.push(frameFor(divs[i]));
      }
    }
  }

  window.addEventListener("message", function (event) {
    if (event.origin !== origin) return;
    var data = event.data;
    if (!data || data.type !== "kalends:height" || typeof data.height !== "number") return;
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === event.source) {
        var h = Math.max(100, Math.min(Math.ceil(data.height), 20000));
        frames[i].style.height = h + "px";
        frames[i].setAttribute("data-kalends-height", String(h));
      }
    }
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
