// Validates OpenAPI documents with two well-kept validators: Redocly's
// (the recommended rules; errors only) and swagger-parser's. Prints one
// line per problem and exits 1 when any document has an error.
// usage: node scripts/validate-openapi.mjs FILE...
import SwaggerParser from "@apidevtools/swagger-parser";
import { lint, createConfig } from "@redocly/openapi-core";

let failed = false;
const config = await createConfig({ extends: ["recommended"] });
for (const file of process.argv.slice(2)) {
  try {
    await SwaggerParser.validate(file);
  } catch (e) {
    failed = true;
    console.log(`${file}: swagger-parser: ${String(e).slice(0, 500)}`);
  }
  const problems = await lint({ ref: file, config });
  for (const p of problems.filter((p) => p.severity === "error")) {
    failed = true;
    console.log(`${file}: redocly ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? ""}`);
  }
}
process.exit(failed ? 1 : 0);
