// Bundles the rich-text editor's ProseMirror packages (scripts/editor-entry.js)
// into assets/vendor/prosemirror/, with their base stylesheet and licences.
// Run by `npm run build` after copy-vendor.mjs; the output is the same byte
// for byte on every run (esbuild is pinned, and nothing here depends on the
// machine or the time), which scripts/test.sh checks.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "assets/vendor/prosemirror");
mkdirSync(out, { recursive: true });

await build({
  absWorkingDir: root,
  entryPoints: ["scripts/editor-entry.js"],
  outfile: join(out, "prosemirror.min.js"),
  bundle: true,
  format: "iife",
  globalName: "KalendsProseMirror",
  minify: true,
  target: "es2020",
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
});
console.log("bundled scripts/editor-entry.js -> assets/vendor/prosemirror/prosemirror.min.js");

copyFileSync(join(root, "node_modules/prosemirror-view/style/prosemirror.css"), join(out, "prosemirror.css"));
console.log("copied node_modules/prosemirror-view/style/prosemirror.css -> assets/vendor/prosemirror/prosemirror.css");

// Every package in the bundle, with its licence, in one file.
const packages = ["prosemirror-commands", "prosemirror-history", "prosemirror-inputrules", "prosemirror-keymap",
  "prosemirror-model", "prosemirror-schema-basic", "prosemirror-schema-list", "prosemirror-state",
  "prosemirror-transform", "prosemirror-view", "orderedmap", "rope-sequence", "w3c-keyname"];
let licences = "Licences of the packages bundled into prosemirror.min.js (scripts/build-editor.mjs).\n";
for (const name of packages) {
  const dir = join(root, "node_modules", name);
  const { version, license } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  licences += `\n==== ${name} ${version} (${license}) ====\n\n` + readFileSync(join(dir, "LICENSE"), "utf8").trimEnd() + "\n";
}
writeFileSync(join(out, "LICENSE.txt"), licences);
console.log("wrote assets/vendor/prosemirror/LICENSE.txt");
