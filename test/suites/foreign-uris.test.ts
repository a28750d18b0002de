// delete-task/foreign-uris-delete-nothing: a task of acme whose URI names globex's lookup. Every way a
// correct target may treat the URI passes (refuse the task, skip the URI; delete what it names where the
// admin also administers globex), and each way of deleting the wrong lookup fails, naming it (as the admin
// or, where the target file names one, as the editor).
import { describe, expect, it } from "vitest";
import { runWithVariants } from "./variants-matrix.ts";

const id = "delete-task/foreign-uris-delete-nothing";

const cases: [string, { variants: string[]; faults: string[]; want: "passed" | RegExp }][] = [
  ["the reference refuses the task (400)", { variants: [], faults: [], want: "passed" }],
  [
    "a target that skips the foreign URI and runs the rest",
    { variants: ["delete-task-foreign-uris-skipped"], faults: [], want: "passed" },
  ],
  [
    "a target that skips it and runs its tasks later",
    { variants: ["delete-task-foreign-uris-skipped", "delete-task-delayed"], faults: [], want: "passed" },
  ],
  [
    "a target that answers 204 without a task",
    { variants: ["delete-task-foreign-uris-skipped", "delete-task-204"], faults: [], want: "passed" },
  ],
  [
    "deleting what the URI names in globex, where the acme admin also administers globex",
    {
      variants: ["admin-administers-other-tenant"],
      faults: ["delete-task-follows-foreign-uris"],
      want: "passed",
    },
  ],
  [
    "deleting acme's lookup of the same type and code",
    {
      variants: [],
      faults: ["delete-uri-tenant-ignored"],
      want: /deleted \w+\/\S+ of tenant acme, which it does not list/,
    },
  ],
  [
    "deleting globex's lookup for a caller that holds nothing of globex",
    {
      variants: [],
      faults: ["delete-task-follows-foreign-uris"],
      want: /sent as admin .*deleted \w+\/\S+ of tenant globex, a tenant the admin client holds nothing of/,
    },
  ],
  [
    "deleting globex's lookup for an editor, whose tenant list holds only acme",
    {
      variants: [],
      faults: ["editor-task-follows-foreign-uris"],
      want: /sent as editor .*deleted \w+\/\S+ of tenant globex, a tenant the editor client holds nothing of/,
    },
  ],
];

describe(id, () => {
  it.each(cases)("%s", async (_, { variants, faults, want }) => {
    const { result } = await runWithVariants(variants, { faults, suites: ["delete-task"], runs: 1 });
    const check = result.checks.find((c) => c.id === id);
    if (want === "passed") {
      expect(`${check?.status} ${check?.message ?? ""}`).toBe("passed ");
      return;
    }
    expect(check?.status).toBe("failed");
    expect(check?.message).toMatch(want);
    // The failure as data: the lookup at fault, the field that named it and the task request.
    expect(check?.details).toMatchObject({
      field: "parameters.uris",
      request: { method: "POST", path: "/tasks/acme" },
    });
    // The victim is of the check's own share of the tenant (deleting-shares.ts): not the type by-type deletes.
    expect(check?.details?.record).toMatch(/^\w+\//);
  });
});
