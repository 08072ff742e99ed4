// Validates plan files with ajv (JSON Schema 2020-12) against a
// schema from `planctl schema`, and prints one JSON line per file:
// {"file": ..., "valid": bool, "errors": [instancePath, ...]}.
// usage: node schema.mjs SCHEMA FILE...
import fs from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";

const [schemaPath, ...files] = process.argv.slice(2);
// The schema itself is checked against the 2020-12 meta-schema (ajv's
// validateSchema). ajv's own strict mode is off: it refuses what the
// specification allows and catalogs use (union types, annotations such as
// a tool schema's "x-sharable").
const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: true, logger: false });
const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, "utf8")));
for (const file of files) {
  let data;
  try {
    data = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    console.log(JSON.stringify({ file, parse: String(e) }));
    continue;
  }
  const valid = validate(data);
  console.log(JSON.stringify({ file, valid, errors: (validate.errors || []).map((e) => e.instancePath) }));
}
