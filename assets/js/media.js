// The media library's upload: drag and drop onto the form and a progress
// bar. Without this script the form posts as a plain file upload.
(function () {
  "use strict";
  var form = document.querySelector("[data-media-upload]");
  if (!form || !window.XMLHttpRequest || !window.FormData) {
    return;
  }
  var input = form.querySelector("input[type=file]");
  var drop = form.querySelector("[data-media-drop]");
  var bar = form.querySelector("[data-media-progress]");

  ["dragenter", "dragover"].forEach(function (name) {
    drop.addEventListener(name, function (ev) {
      ev.preventDefault();
      drop.classList.add("is-dragover");
    });
  });
  ["dragleave", "drop"].forEach(function (name) {
    drop.addEventListener(name, function () {
      drop.classList.remove("is-dragover");
    });
  });
  drop.addEventListener("drop", function (ev) {
    ev.preventDefault();
    if (ev.dataTransfer && ev.dataTransfer.files.length > 0) {
      input.files = ev.dataTransfer.files;
      form.requestSubmit();
    }
  });

  form.addEventListener("submit", function (ev) {
    if (!input.files || input.files.length === 0) {
      return;
    }
    ev.preventDefault();
    var xhr = new XMLHttpRequest();
    xhr.open("POST", form.action);
    bar.hidden = false;
    bar.value = 0;
    xhr.upload.addEventListener("progress", function (p) {
      if (p.lengthComputable) {
        bar.value = Math.round((p.loaded / p.total) * 100);
      }
    });
    xhr.addEventListener("load", function () {
      if (xhr.status === 200 && xhr.responseURL.indexOf("uploaded=1") >= 0) {
        window.location.assign(xhr.responseURL);
        return;
      }
      // Refused: post the form the plain way, which shows why.
      form.submit();
    });
    xhr.addEventListener("error", function () {
      bar.hidden = true;
      form.submit();
    });
    xhr.send(new FormData(form));
  });
})();
