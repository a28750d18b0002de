// `lckit contract diff OLD NEW`: breaking and compatible changes between two versions of the contract
// (OpenAPI documents and event schemas). Exit codes: 0 no breaking change, 1 breaking changes, 2 usage.
import { resolve } from "node:path";
import { diffContracts, formatChanges } from "../../contract-diff/index.ts";
import { toggle } from "../argv.ts";
import { defineCommand, defineGroup } from "../command.ts";
import { UsageError } from "../io.ts";

const diff = defineCommand(
  {
    name: "contract diff",
    summary: "classify the changes between two contract versions (breaking or compatible)",
    positionals: "OLD NEW",
    about: `Compares two versions of the contract and classifies every change as breaking (a consumer of OLD can fail
against NEW) or compatible. OLD and NEW are two OpenAPI documents (YAML or JSON, relative $refs followed),
or two directories laid out like this repository (openapi/*.yaml and event-schemas/types/*.schema.json; an
openapi/ or event-schemas/ directory itself works too).

Breaking: endpoints or event types removed; fields removed from responses or events; a request field,
parameter or body newly required; request types, enum values or bounds narrowed; new enum values, wider
types or looser bounds in responses and events; success statuses or media types removed.
Compatible: endpoints, event types, optional parameters and fields added; requests widened; responses
narrowed; error statuses added or removed.`,
    flags: {
      json: toggle("the changes as a JSON array ({level, kind, where, detail}) instead of text"),
    },
    notes:
      "Exit codes: 0 no breaking change, 1 breaking changes, 2 usage error (a path that is not a contract).",
  },
  ({ values, positionals }, io) => {
    if (positionals.length !== 2)
      throw new UsageError(
        `lckit contract diff needs exactly two paths, OLD and NEW, got ${positionals.length}; e.g. lckit contract diff old/openapi openapi`,
      );
    const [oldPath = "", newPath = ""] = positionals.map((path) => resolve(io.cwd, path));
    // Paths that are no contract are a ContractInputError: the user's input (exit 2).
    const changes = diffContracts(oldPath, newPath);
    io.out(values.json ? `${JSON.stringify(changes, null, 2)}\n` : formatChanges(changes));
    return changes.some((change) => change.level === "breaking") ? 1 : 0;
  },
);

export const command = defineGroup({ name: "contract", summary: diff.summary }, [diff]);
