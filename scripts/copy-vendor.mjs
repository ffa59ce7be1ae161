// Copies the pinned vendor files from node_modules into assets/vendor/,
// and the test-only ones (axe-core, which the browser tests inject into the
// pages they check; never served by the app) into
// internal/browsertest/testdata/.
// The copies are committed so that `go build` alone works on a clean clone;
// scripts/test.sh re-runs this and fails when the committed files differ.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const files = [
  ["node_modules/htmx.org/dist/htmx.min.js", "assets/vendor/htmx.min.js"],
  ["node_modules/swagger-ui-dist/swagger-ui-bundle.js", "assets/vendor/swagger-ui/swagger-ui-bundle.js"],
  ["node_modules/swagger-ui-dist/swagger-ui.css", "assets/vendor/swagger-ui/swagger-ui.css"],
  ["node_modules/swagger-ui-dist/LICENSE", "assets/vendor/swagger-ui/LICENSE"],
  ["node_modules/swagger-ui-dist/NOTICE", "assets/vendor/swagger-ui/NOTICE"],
  ["node_modules/fullcalendar/index.global.min.js", "assets/vendor/fullcalendar/fullcalendar.min.js"],
  ["node_modules/fullcalendar/LICENSE.md", "assets/vendor/fullcalendar/LICENSE.md"],
  ["node_modules/@fullcalendar/core/locales/zh-cn.global.min.js", "assets/vendor/fullcalendar/locales/zh-cn.min.js"],
  ["node_modules/@fullcalendar/core/locales/ja.global.min.js", "assets/vendor/fullcalendar/locales/ja.min.js"],
  ["node_modules/@fullcalendar/core/locales/ko.global.min.js", "assets/vendor/fullcalendar/locales/ko.min.js"],
  ["node_modules/@fullcalendar/luxon3/index.global.min.js", "assets/vendor/fullcalendar/luxon3.min.js"],
  ["node_modules/luxon/build/global/luxon.min.js", "assets/vendor/luxon/luxon.min.js"],
  ["node_modules/luxon/LICENSE.md", "assets/vendor/luxon/LICENSE.md"],
  // For the tests only: outside assets/, so the app cannot serve it.
  ["node_modules/axe-core/axe.min.js", "internal/browsertest/testdata/axe/axe.min.js"],
  ["node_modules/axe-core/LICENSE", "internal/browsertest/testdata/axe/LICENSE"],
];

for (const [from, to] of files) {
  mkdirSync(dirname(join(root, to)), { recursive: true });
  copyFileSync(join(root, from), join(root, to));
  console.log(`copied ${from} -> ${to}`);
}
