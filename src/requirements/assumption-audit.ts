// The assumption audit as data: which MUST-level assertions (checks, stream rules, schema keywords) rest on
// what, and where every kit assumption is enforced. test/project/assumption-audit.test.ts asserts on it;
// scripts/generators/requirements-page.ts renders the enforcement table of docs/assumptions.md from it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { parse } from "yaml";
import { packageRoot } from "../package-root.ts";
import type { Catalogue, Requirement } from "./catalogue.ts";

const root = packageRoot;

/** What the audit needs of a check (suites/index.ts provides them). */
export interface AuditedCheck {
  id: string;
  level: "MUST" | "SHOULD" | "MAY";
  requirements: readonly string[];
}

/** Validation keywords that refuse a value. A kit preference must not appear as one of them on a node the
 *  consumer contract or MUST-level validation uses: it goes into `x-kit-preference` instead. */
export const constraintKeywords = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "enum",
  "const",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "default",
] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when the entry states what the document says (MUST, not the kit's assumption). */
export function restsOnDocument(entry: Requirement | undefined): boolean {
  return entry !== undefined && entry.level === "MUST" && entry.assumption !== true && !entry.retired;
}

/** Problems of the catalogue itself: a MUST entry without basis, marked as assumption, or resting on a
 *  "not shown". */
export function catalogueAuditProblems(catalogue: Catalogue): string[] {
  const problems: string[] = [];
  for (const entry of catalogue.requirements) {
    if (entry.level !== "MUST") continue;
    if (typeof entry.basis !== "string" || entry.basis.trim().length === 0)
      problems.push(`${entry.id}: a MUST entry needs a basis, the document's own words it rests on`);
    else if (/not shown/i.test(entry.basis))
      problems.push(`${entry.id}: a MUST entry rests on "${entry.basis}", which is a "not shown"`);
    if (entry.assumption === true)
      problems.push(`${entry.id}: an assumption cannot be MUST; make it SHOULD or drop assumption: true`);
  }
  return problems;
}

/** MUST checks that do not rest on at least one MUST entry of the document, and unknown requirement ids. */
export function checkAuditProblems(checks: readonly AuditedCheck[], catalogue: Catalogue): string[] {
  const entries = new Map(catalogue.requirements.map((entry) => [entry.id, entry]));
  const problems: string[] = [];
  for (const check of checks) {
    const unknown = check.requirements.filter((id) => !entries.has(id));
    if (unknown.length > 0)
      problems.push(
        `${check.id}: requirement(s) ${unknown.join(", ")} are not in requirements/catalogue.yaml`,
      );
    const assumptions = check.requirements.filter((id) => entries.get(id)?.assumption === true);
    if (check.level === "MUST" && assumptions.length > 0)
      problems.push(
        `${check.id} is MUST but cites the assumption(s) ${assumptions.join(", ")}; a MUST check accepts every ` +
          "reasonable choice where the document is silent, so move the kit's choice into a SHOULD check",
      );
    if (check.level === "MUST" && !check.requirements.some((id) => restsOnDocument(entries.get(id))))
      problems.push(
        `${check.id} is MUST but rests only on ${check.requirements.join(", ") || "nothing"} (SHOULD entries or ` +
          "assumptions); cite the MUST entry whose words it checks, or make the check SHOULD",
      );
  }
  return problems;
}

/** An event-checker rule as the audit sees it: its requirement id and the severity it is reported with. */
export interface AuditedRule {
  name: string;
  rule: string;
  severity: "error" | "warning";
}

/** Errors (MUST failures of a stream) must trace to MUST entries; warnings must not cite a MUST entry. */
export function ruleAuditProblems(rules: readonly AuditedRule[], catalogue: Catalogue): string[] {
  const entries = new Map(catalogue.requirements.map((entry) => [entry.id, entry]));
  const problems: string[] = [];
  for (const { name, rule, severity } of rules) {
    const entry = entries.get(rule);
    if (!entry) problems.push(`${name}: rule ${rule} is not in requirements/catalogue.yaml`);
    else if (severity === "error" && !restsOnDocument(entry))
      problems.push(
        `${name}: reported as an error under ${rule}, which is ${entry.level}${entry.assumption ? " (assumption)" : ""}; ` +
          "an error must trace to a MUST entry of the document, otherwise report a warning",
      );
    else if (severity === "warning" && entry.level === "MUST")
      problems.push(
        `${name}: reported as a warning under ${rule}, a MUST entry; a MUST violation is an error`,
      );
  }
  return problems;
}

/** A JSON/YAML node with its location. */
export interface LocatedNode {
  file: string;
  pointer: string;
  node: Record<string, unknown>;
}

const escapePointer = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");

function walk(
  value: unknown,
  pointer: string,
  visit: (node: Record<string, unknown>, pointer: string) => void,
) {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) walk(item, `${pointer}/${index}`, visit);
    return;
  }
  if (!isRecord(value)) return;
  visit(value, pointer);
  for (const [key, child] of Object.entries(value)) walk(child, `${pointer}/${escapePointer(key)}`, visit);
}

function filesUnder(dir: string, suffixes: readonly string[]): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return filesUnder(path, suffixes);
      return suffixes.some((suffix) => name.endsWith(suffix)) ? [path] : [];
    });
}

/** Every node of the OpenAPI documents (unresolved, file by file) that carries x-kit-assumption. */
export function openapiAssumptionNodes(openapiDir = join(root, "openapi")): LocatedNode[] {
  const found: LocatedNode[] = [];
  // openapi/dist holds generated single-file bundles of the same documents: their markers are copies.
  const sources = filesUnder(openapiDir, [".yaml", ".yml"]).filter(
    (path) => !relative(openapiDir, path).startsWith("dist"),
  );
  for (const path of sources) {
    const file = relative(root, path).split("\\").join("/");
    walk(parse(readFileSync(path, "utf8")), "", (node, pointer) => {
      if (node["x-kit-assumption"] !== undefined) found.push({ file, pointer: pointer || "/", node });
    });
  }
  return found;
}

/** The refusing keywords a node marked x-kit-assumption carries itself (or in its `schema`, for a
 *  parameter). `required` counts only as the JSON Schema array form; `additionalProperties` only when false. */
export function constraintsOf(node: Record<string, unknown>): string[] {
  const found: string[] = [];
  const inspect = (schema: Record<string, unknown>, prefix: string) => {
    for (const keyword of constraintKeywords) if (keyword in schema) found.push(`${prefix}${keyword}`);
    if (Array.isArray(schema.required)) found.push(`${prefix}required`);
    if (schema.additionalProperties === false) found.push(`${prefix}additionalProperties: false`);
  };
  inspect(node, "");
  if (isRecord(node.schema)) inspect(node.schema, "schema.");
  return found;
}

/** Nodes marked x-kit-assumption that name no catalogue assumption. */
export function markerProblems(nodes: readonly LocatedNode[], catalogue: Catalogue): string[] {
  const entries = new Map(catalogue.requirements.map((entry) => [entry.id, entry]));
  const problems: string[] = [];
  for (const { file, pointer, node } of nodes) {
    const id = node["x-kit-assumption"];
    const entry = typeof id === "string" ? entries.get(id) : undefined;
    if (!entry) problems.push(`${file}#${pointer}: x-kit-assumption ${String(id)} is not a catalogue entry`);
    else if (entry.assumption !== true)
      problems.push(
        `${file}#${pointer}: x-kit-assumption ${entry.id} is a ${entry.level} entry of the document, not an ` +
          "assumption; mark it in x-requirements instead",
      );
  }
  return problems;
}

/** Resolved request-side nodes (parameters and request bodies of every operation) marked x-kit-assumption
 *  that still refuse values with a validation keyword. Those are what mocks and generated clients enforce on
 *  consumers; the kit's preference belongs in x-kit-preference. */
export function requestSideProblems(
  operations: readonly { operationId: string; raw: Record<string, unknown> }[],
): string[] {
  const problems = new Set<string>();
  for (const { operationId, raw } of operations) {
    const seen = new WeakSet<object>();
    const visit = (value: unknown, pointer: string) => {
      if (Array.isArray(value)) {
        for (const [index, item] of value.entries()) visit(item, `${pointer}/${index}`);
        return;
      }
      if (!isRecord(value) || seen.has(value)) return;
      seen.add(value);
      if (value["x-kit-assumption"] !== undefined) {
        const constraints = constraintsOf(value);
        if (constraints.length > 0)
          problems.add(
            `${operationId}${pointer}: marked x-kit-assumption ${String(value["x-kit-assumption"])} but refuses ` +
              `values with ${constraints.join(", ")}; move the kit's preference into x-kit-preference`,
          );
      }
      for (const [key, child] of Object.entries(value)) visit(child, `${pointer}/${escapePointer(key)}`);
    };
    visit(raw.parameters, "/parameters");
    visit(raw.requestBody, "/requestBody");
  }
  return [...problems];
}

/** The event schemas MUST-level validation compiles: every node reachable through $ref from the message
 *  and payload schemas (relative file references, JSON pointers). */
export function reachableEventSchemaNodes(
  dir = join(root, "event-schemas"),
  entryFiles: readonly string[] = ["message.schema.json", "payload.schema.json"],
): LocatedNode[] {
  const documents = new Map<string, unknown>();
  const load = (path: string) => {
    if (!documents.has(path)) documents.set(path, JSON.parse(readFileSync(path, "utf8")));
    return documents.get(path);
  };
  const resolvePointer = (document: unknown, pointer: string): unknown =>
    pointer
      .split("/")
      .filter((part) => part !== "")
      .map((part) => decodeURIComponent(part).replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<unknown>(
        (node, key) => (isRecord(node) || Array.isArray(node) ? (node as never)[key] : undefined),
        document,
      );
  const found: LocatedNode[] = [];
  const visited = new Set<string>();
  const queue: { path: string; pointer: string }[] = entryFiles.map((file) => ({
    path: join(dir, file),
    pointer: "",
  }));
  while (queue.length > 0) {
    const { path, pointer } = queue.shift() as { path: string; pointer: string };
    const key = `${path}#${pointer}`;
    if (visited.has(key)) continue;
    visited.add(key);
    const start = resolvePointer(load(path), pointer);
    const file = relative(root, path).split("\\").join("/");
    walk(start, pointer, (node, at) => {
      found.push({ file, pointer: at || "/", node });
      if (typeof node.$ref === "string") {
        const [target = "", fragment = ""] = node.$ref.split("#");
        queue.push({ path: target === "" ? path : join(dirname(path), target), pointer: fragment });
      }
    });
  }
  return found;
}

/** Reachable event-schema nodes whose x-requirements cite no MUST entry (a schema violation is an error),
 *  and reachable nodes marked x-kit-assumption that refuse values. */
export function eventSchemaProblems(nodes: readonly LocatedNode[], catalogue: Catalogue): string[] {
  const entries = new Map(catalogue.requirements.map((entry) => [entry.id, entry]));
  const problems = new Set<string>();
  for (const { file, pointer, node } of nodes) {
    const requirements = node["x-requirements"];
    if (Array.isArray(requirements)) {
      const unknown = requirements.filter((id) => typeof id !== "string" || !entries.has(id));
      if (unknown.length > 0)
        problems.add(`${file}#${pointer}: x-requirements ${unknown.join(", ")} unknown`);
      else if (!requirements.some((id) => restsOnDocument(entries.get(id as string))))
        problems.add(
          `${file}#${pointer}: MUST-level validation uses this node, but its x-requirements ` +
            `(${requirements.join(", ")}) cite no MUST entry; move the preference to a SHOULD-level schema`,
        );
    }
    if (node["x-kit-assumption"] !== undefined) {
      const constraints = constraintsOf(node);
      if (constraints.length > 0)
        problems.add(
          `${file}#${pointer}: marked x-kit-assumption but MUST-level validation enforces ${constraints.join(", ")}`,
        );
    }
  }
  return [...problems];
}

/** Where each kit assumption is enforced: the checks citing it, the contract nodes marking it, the event
 *  rules reporting it. */
export interface AssumptionEnforcement {
  entry: Requirement;
  checks: AuditedCheck[];
  contract: string[];
  eventRules: string[];
}

export function assumptionEnforcement(
  catalogue: Catalogue,
  checks: readonly AuditedCheck[],
  contractNodes: readonly LocatedNode[],
  eventRules: Readonly<Record<string, string>>,
): AssumptionEnforcement[] {
  return catalogue.requirements
    .filter((entry) => entry.assumption === true && !entry.retired)
    .map((entry) => ({
      entry,
      checks: checks.filter((check) => check.requirements.includes(entry.id)),
      contract: contractNodes
        .filter(({ node }) => node["x-kit-assumption"] === entry.id)
        .map(({ file, pointer }) => `${file.replace(/^openapi\//, "")}#${pointer}`),
      eventRules: Object.entries(eventRules)
        .filter(([, id]) => id === entry.id)
        .map(([name]) => name),
    }));
}

export const enforcementBegin =
  "<!-- assumption-enforcement:begin (generated by npm run generate, do not edit) -->";
export const enforcementEnd = "<!-- assumption-enforcement:end -->";

/** The generated section of docs/assumptions.md: one row per assumption. */
export function renderEnforcementSection(rows: readonly AssumptionEnforcement[]): string {
  const cell = (text: string) => text.replaceAll("|", "\\|");
  const lines = [
    enforcementBegin,
    "## Where each assumption is enforced",
    "",
    "Every kit assumption of the [requirement catalogue](../requirements/catalogue.md), the `not shown` it",
    "fills in, and where the kit holds it: SHOULD-level checks (never MUST), the OpenAPI nodes marked",
    "`x-kit-assumption` (their bounds live in `x-kit-preference`), event-checker rules (warnings).",
    "",
    "| Assumption | Fills in | Checks | Contract (`openapi/`) | Event rules |",
    "|---|---|---|---|---|",
  ];
  for (const { entry, checks, contract, eventRules } of rows) {
    const checkList = checks.map((check) => `\`${check.id}\` (${check.level})`).join(", ") || "none";
    const contractList = contract.map((where) => `\`${where}\``).join(", ") || "none";
    const ruleList = eventRules.map((name) => `\`${name}\``).join(", ") || "none";
    lines.push(
      `| ${entry.id} | ${cell(entry.basis)} | ${cell(checkList)} | ${cell(contractList)} | ${cell(ruleList)} |`,
    );
  }
  lines.push(enforcementEnd);
  return lines.join("\n");
}

/** docs/assumptions.md with its generated section replaced (appended when the markers are missing). */
export function withEnforcementSection(page: string, section: string): string {
  const begin = page.indexOf(enforcementBegin);
  const end = page.indexOf(enforcementEnd);
  if (begin === -1 || end === -1 || end < begin) return `${page.trimEnd()}\n\n${section}\n`;
  return `${page.slice(0, begin)}${section}${page.slice(end + enforcementEnd.length)}`;
}
