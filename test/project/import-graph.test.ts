// The one-way flow, kept: no import circle between folders of src/ and suites/, and no import that points
// back up the flow (a folder imports only folders of a lower rank). The graph is read from the import
// statements themselves (test/project/import-graph.ts), so a new circle fails here with the folders and one
// import of each edge named.
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/package-root.ts";
import { folderCircles, folderEdges, type ImportEdge, packageImports, unitOf } from "./import-graph.ts";

// The flow from the bottom up: a unit may import units of a lower rank only. Units of one rank are beside
// each other and import none of each other.
const RANKS: Record<string, number> = {
  "src/package-root.ts": 0,
  "src/usage-error.ts": 0,
  "src/did-you-mean.ts": 0,
  "src/timer-limit.ts": 0,
  "src/run-defaults.ts": 0,
  "src/optional-field.ts": 0,
  "src/control-characters.ts": 0,
  "src/http": 0,
  "src/requirements": 1,
  "src/contract-diff": 1,
  "src/contract": 1,
  "src/client": 2,
  "src/tools": 2,
  "src/check": 3,
  "src/reference": 3,
  "src/redaction": 3,
  "src/transport": 4,
  "src/result": 4,
  // The one judging engine of the rules and their one finding, above the check's header and the result;
  // ranked inside: the finding, the engine, then the rules of a kind that go through it (caller/: the
  // caller rules and the traffic they judge).
  "src/rules/finding.ts": 4.5,
  "src/rules/judge.ts": 4.6,
  "src/rules/caller": 4.7,
  "suites/support": 4,
  suites: 5,
  "src/target": 5,
  "src/runner": 6,
  // src/events, beside the runner, ranked inside (between 6 and 7): the document's facts and the kinds of
  // payload at the bottom; transport, then reading a message (check/), then the rules that judge it (rules
  // import check, never the reverse), then the judging of a message and a stream by every rule (judge/).
  "src/events/document": 6,
  "src/events/payload-kind.ts": 6,
  "src/events/broker": 6,
  "src/events/event-schemas.ts": 6.1,
  "src/events/transport": 6.1,
  "src/events/streaming-config.ts": 6.2,
  "src/events/check": 6.3,
  "src/events/generate": 6.3,
  "src/events/rules": 6.4,
  "src/events/judge": 6.5,
  "src/events/consumer": 6.5,
  "src/events/index.ts": 6.6,
  "src/report": 7,
  "src/evidence": 7,
  "src/mock": 7,
  "src/report-folder": 8,
  "src/pact": 9,
  // The judging commands that run a team's command, ranked inside: how a command is run and the one sweep
  // over choices at the bottom, the one session shape above them, then the client check (lckit client check) and the consumer check (lckit
  // events consumer check), each with its request, session, result and sweep; neither imports the other.
  "src/commands/command-run.ts": 9,
  "src/commands/sweep.ts": 9,
  // The one session shape of both (one run or a sweep, their folders and files), over the one sweep.
  "src/commands/session.ts": 9.05,
  "src/commands/client": 9.1,
  "src/commands/consumer": 9.1,
  // lckit judge: recorded traffic judged by the caller rules (src/rules/caller) and the service rules.
  "src/traffic": 9.5,
  // lckit judge and lckit proxy from request to report folder, over the traffic judge; neither imports
  // the other.
  "src/commands/judge": 9.6,
  "src/commands/proxy": 9.6,
  // A session orchestrates a command (lckit run, lckit events check) from the parts below it.
  "src/session": 10,
  "src/cli": 11,
  "src/index.ts": 12,
};

// Circles between folders that remain, each with the reason it is still there. Empty: a new circle fails.
const KNOWN_CIRCLES: { folders: string[]; reason: string }[] = [];

// Imports that still point up the flow, each with the reason. Empty: a new one fails.
const KNOWN_UPWARD: { edge: string; reason: string }[] = [];

// Boundaries the ranks alone allow but the architecture does not (docs/architecture.md).
const FORBIDDEN: { edge: string; why: string }[] = [
  { edge: "suites -> src/reference", why: "suites meet the reference only through HTTP" },
  { edge: "suites/support -> src/reference", why: "suites meet the reference only through HTTP" },
  { edge: "src/reference -> suites", why: "the reference knows nothing of the checks" },
  { edge: "src/reference -> suites/support", why: "the reference knows nothing of the checks" },
  {
    edge: "src/runner -> src/reference",
    why: "the runner drives targets; the embedded wiring is in src/target",
  },
  { edge: "src/target -> suites", why: "a target knows nothing of the checks" },
  { edge: "src/transport -> src/reference", why: "the transport carries requests to any target alike" },
  { edge: "src/redaction -> src/check", why: "redaction knows secrets and text, not checks" },
  { edge: "src/report -> src/runner", why: "a renderer reads the run result only" },
  { edge: "src/report -> src/client", why: "a renderer sends no request" },
  { edge: "src/report -> src/transport", why: "a renderer records nothing: recording is src/evidence" },
  {
    edge: "src/report -> src/events",
    why: "a renderer reads no event source: the event evidence is src/evidence",
  },
  { edge: "src/check -> src/result", why: "a check knows nothing about reports" },
];

// Forbidden imports that remain, each with the reason it is still there (what issue 12 still has to move).
const KNOWN_FORBIDDEN: { edge: string; reason: string }[] = [];

const edges = folderEdges(packageRoot);
const describeEdge = (edge: ImportEdge) => `${edge.from} -> ${edge.to} (e.g. ${edge.example})`;

describe("the folder-level import graph of src/ and suites/", () => {
  it("is read from the sources: the flow's main edges are there", () => {
    const names = edges.map((edge) => `${edge.from} -> ${edge.to}`);
    expect(names).toContain("src/runner -> src/check");
    expect(names).toContain("suites -> src/check");
    expect(names).toContain("src/report -> src/result");
    expect(names).toContain("src/cli -> src/runner");
    expect(names).toContain("src/events/rules -> src/events/check");
  });

  it("has no import circle between folders, other than the known ones listed with their reason", () => {
    const known = new Set(KNOWN_CIRCLES.map((circle) => [...circle.folders].sort().join(" <-> ")));
    const circles = folderCircles(edges).map((circle) => circle.join(" <-> "));
    const fresh = circles.filter((circle) => !known.has(circle));
    const message = fresh
      .map((circle) => {
        const members = new Set(circle.split(" <-> "));
        const inside = edges.filter((edge) => members.has(edge.from) && members.has(edge.to));
        return `import circle ${circle}:\n    ${inside.map(describeEdge).join("\n    ")}`;
      })
      .join("\n");
    expect(fresh, `${message}\nBreak the circle: move what both folders need below them.`).toEqual([]);
  });

  it("ranks every folder of src/ and suites/", () => {
    const units = new Set(edges.flatMap((edge) => [edge.from, edge.to]));
    const unranked = [...units].filter((unit) => RANKS[unit] === undefined);
    expect(unranked, "add each new folder to RANKS in test/project/import-graph.test.ts").toEqual([]);
  });

  it("has no import that points back up the flow, other than the known ones listed with their reason", () => {
    const known = new Set(KNOWN_UPWARD.map((entry) => entry.edge));
    const upward = edges
      .filter((edge) => (RANKS[edge.to] ?? 0) >= (RANKS[edge.from] ?? 0))
      .filter((edge) => !known.has(`${edge.from} -> ${edge.to}`));
    expect(
      upward.map(describeEdge),
      "a folder imports only folders of a lower rank (RANKS): move the shared piece down",
    ).toEqual([]);
  });

  it("keeps the architecture's boundaries, other than the known exceptions listed with their reason", () => {
    const present = new Set(edges.map((edge) => `${edge.from} -> ${edge.to}`));
    const known = new Set(KNOWN_FORBIDDEN.map((entry) => entry.edge));
    const broken = FORBIDDEN.filter((rule) => present.has(rule.edge) && !known.has(rule.edge));
    expect(broken.map((rule) => `${rule.edge}: ${rule.why}`)).toEqual([]);
  });

  it("lists no known exception that is gone (remove it from the table once fixed)", () => {
    const present = new Set(edges.map((edge) => `${edge.from} -> ${edge.to}`));
    const circles = new Set(folderCircles(edges).map((circle) => circle.join(" <-> ")));
    const stale = [
      ...KNOWN_FORBIDDEN.map((entry) => entry.edge).filter((edge) => !present.has(edge)),
      ...KNOWN_UPWARD.map((entry) => entry.edge).filter((edge) => !present.has(edge)),
      ...KNOWN_CIRCLES.map((circle) => [...circle.folders].sort().join(" <-> ")).filter(
        (c) => !circles.has(c),
      ),
    ];
    expect(stale).toEqual([]);
  });
});

describe("renderers only render", () => {
  // src/report turns a run result into bytes: no file, process or network I/O. Writing the report folder
  // and verifying it is src/report-folder, recording the evidence src/evidence. No exceptions.
  const io = /^(node:)?(fs|fs\/promises|child_process|net|http|https|http2|dgram|tls|worker_threads)$/;

  it("src/report imports no module that does I/O", () => {
    const imports = packageImports(packageRoot, "src/report");
    expect(imports.length, "the scan reads src/report's package imports").toBeGreaterThan(0);
    expect(
      imports.filter(({ specifier }) => io.test(specifier)).map((i) => `${i.file} -> ${i.specifier}`),
    ).toEqual([]);
  });

  it("the scan would see one", () => {
    expect(io.test("node:fs")).toBe(true);
    expect(io.test("node:child_process")).toBe(true);
    expect(io.test("node:crypto")).toBe(false);
  });
});

describe("the circle finder", () => {
  const edge = (from: string, to: string): ImportEdge => ({ from, to, example: `${from} -> ${to}` });

  it("finds a circle of two and of three folders, and none in a one-way chain", () => {
    expect(folderCircles([edge("a", "b"), edge("b", "a"), edge("b", "c")])).toEqual([["a", "b"]]);
    expect(folderCircles([edge("x", "y"), edge("y", "z"), edge("z", "x"), edge("q", "x")])).toEqual([
      ["x", "y", "z"],
    ]);
    expect(folderCircles([edge("a", "b"), edge("b", "c"), edge("a", "c")])).toEqual([]);
  });

  it("names units by folder: subfolders belong to their top folder, files directly in src/ stand alone; src/events, src/commands and src/rules one level down", () => {
    expect(unitOf("src/runner/run.ts")).toBe("src/runner");
    expect(unitOf("src/events/transport/sources/amqp.ts")).toBe("src/events/transport");
    expect(unitOf("src/events/rules/headers.ts")).toBe("src/events/rules");
    expect(unitOf("src/events/index.ts")).toBe("src/events/index.ts");
    expect(unitOf("src/commands/client/session.ts")).toBe("src/commands/client");
    expect(unitOf("src/commands/sweep.ts")).toBe("src/commands/sweep.ts");
    expect(unitOf("src/rules/caller/tokens.ts")).toBe("src/rules/caller");
    expect(unitOf("src/rules/judge.ts")).toBe("src/rules/judge.ts");
    expect(unitOf("src/index.ts")).toBe("src/index.ts");
    expect(unitOf("suites/support/define.ts")).toBe("suites/support");
    expect(unitOf("suites/auth.ts")).toBe("suites");
    expect(unitOf("test/project/import-graph.ts")).toBeNull();
  });
});
