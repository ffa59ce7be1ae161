// Kalends admin: starts Swagger UI (vendored swagger-ui-dist) on the API
// docs page. Every request it makes carries the session's nonce, so
// "try it out" runs as the signed-in user.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var el = document.getElementById("swagger-ui");
    if (!el || typeof window.SwaggerUIBundle !== "function") {
      return;
    }
    var nonce = document.querySelector('meta[name="kalends-nonce"]');
    window.SwaggerUIBundle({
      url: el.dataset.specUrl,
      domNode: el,
      deepLinking: true,
      tryItOutEnabled: false,
      requestInterceptor: function (req) {
        if (nonce) {
          req.headers["X-WP-Nonce"] = nonce.content;
        }
        req.credentials = "same-origin";
        return req;
      }
    });
  });
})();
