// The image picker of the event, venue and organizer forms: the "Choose
// from the library" button of an image field opens the dialog over the
// media library (its grid, pages, search and upload are htmx partials of
// /admin/media/picker); choosing an image writes its URL into the field
// and previews it. The dialog is modal (showModal keeps focus inside),
// closes with Escape or its Close button, and gives focus back to the
// button that opened it. A URL typed or pasted is previewed too (the only
// way for contributors, who may not use the library). Without this script
// the field is a URL field.
(function () {
  "use strict";
  var dialog = document.querySelector("[data-image-picker]");
  if (dialog && (typeof dialog.showModal !== "function" || !window.htmx)) {
    dialog = null; // the URL field alone
  }
  var grid = dialog && dialog.querySelector("[data-picker-grid]");
  var upload = dialog && dialog.querySelector("[data-picker-upload]");
  var bar = dialog && dialog.querySelector("[data-picker-progress]");
  var field = null;
  var editor = null; // the rich-text field an image goes into (editor.js)
  var opener = null;
  var loaded = false;

  function preview(f) {
    var input = f.querySelector("[data-image-input]");
    var fig = f.querySelector("[data-image-preview]");
    var img = fig.querySelector("img");
    var alt = fig.querySelector("[data-image-alt]");
    var url = input.value.trim();
    // Only this site's images: the admin's CSP loads no other.
    var local = url.charAt(0) === "/" && url.charAt(1) !== "/" && url.charAt(1) !== "\\";
    fig.hidden = !local;
    if (!local) {
      img.removeAttribute("src");
      return;
    }
    if (img.getAttribute("src") !== url) {
      img.setAttribute("src", url);
    }
    var a = input.getAttribute("data-alt");
    if (a === null) {
      alt.textContent = "";
    } else if (a === "") {
      alt.textContent = alt.getAttribute("data-no-alt");
    } else {
      alt.textContent = alt.getAttribute("data-alt-label") + " " + a;
    }
  }

  function changed(input) {
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function open(f, button) {
    field = f;
    editor = null;
    opener = button;
    dialog.showModal();
    if (!loaded) {
      loaded = true;
      window.htmx.trigger(grid, "picker-open");
    }
    dialog.querySelector("#picker-search").focus();
  }

  function choose(item) {
    if (editor) {
      // An image for a description: editor.js inserts it at the caret.
      var target = editor;
      editor = null;
      dialog.close();
      target.dispatchEvent(new CustomEvent("kalends:insert-image", {
        detail: { src: item.getAttribute("data-pick-url"), alt: item.getAttribute("data-pick-alt") || "" },
      }));
      return;
    }
    if (!field) {
      return;
    }
    var input = field.querySelector("[data-image-input]");
    input.value = item.getAttribute("data-pick-url");
    input.setAttribute("data-alt", item.getAttribute("data-pick-alt") || "");
    changed(input);
    preview(field);
    dialog.close();
  }

  document.querySelectorAll("[data-image-field]").forEach(function (f) {
    var input = f.querySelector("[data-image-input]");
    var button = f.querySelector("[data-image-pick]");
    if (button && dialog) {
      button.hidden = false;
      button.addEventListener("click", function () { open(f, button); });
    }
    input.addEventListener("change", function () {
      input.removeAttribute("data-alt"); // a pasted URL: its alt text is not known
      preview(f);
    });
    f.querySelector("[data-image-remove]").addEventListener("click", function () {
      input.value = "";
      input.removeAttribute("data-alt");
      changed(input);
      preview(f);
      input.focus();
    });
  });

  if (!dialog) {
    return;
  }
  // The editor's "Image" button asks for a picture from the library
  // (editor.js dispatches kalends:pick-image; without a picker it asks for
  // an address instead).
  document.addEventListener("kalends:pick-image", function (e) {
    if (e.defaultPrevented || !e.detail || !e.detail.textarea) {
      return;
    }
    e.preventDefault();
    var button = document.activeElement;
    open(null, button);
    editor = e.detail.textarea;
  });
  dialog.addEventListener("close", function () {
    editor = null;
    if (opener) {
      opener.focus();
    }
    opener = null;
  });
  dialog.querySelector("[data-picker-close]").addEventListener("click", function () { dialog.close(); });
  grid.addEventListener("click", function (e) {
    var item = e.target.closest("[data-pick-url]");
    if (item) {
      choose(item);
    }
  });
  // Arrows move between the images, as in a grid.
  grid.addEventListener("keydown", function (e) {
    var keys = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    var item = e.target.closest("[data-pick-url]");
    if (!item || !keys[e.key]) {
      return;
    }
    var all = Array.prototype.slice.call(grid.querySelectorAll("[data-pick-url]"));
    var next = all[all.indexOf(item) + keys[e.key]];
    if (next) {
      e.preventDefault();
      next.focus();
    }
  });

  // After a swap: an image just uploaded is chosen at once; after a page,
  // focus goes to its first image (the button pressed is gone).
  dialog.addEventListener("htmx:afterSwap", function (e) {
    if (e.detail.target !== grid) {
      return;
    }
    bar.hidden = true;
    var chosen = grid.querySelector("[data-picker-chosen]");
    if (chosen) {
      upload.reset();
      choose(chosen);
      return;
    }
    if (!dialog.contains(document.activeElement) || document.activeElement === document.body) {
      var first = grid.querySelector("[data-pick-url], [role=alert]");
      (first || dialog.querySelector("#picker-search")).focus();
    }
  });
  upload.addEventListener("htmx:xhr:loadstart", function () {
    bar.value = 0;
    bar.hidden = false;
  });
  upload.addEventListener("htmx:xhr:progress", function (e) {
    if (e.detail.lengthComputable) {
      bar.value = Math.round((e.detail.loaded / e.detail.total) * 100);
    }
  });
})();
