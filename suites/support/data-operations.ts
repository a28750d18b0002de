// Harmless requests for every data operation of a tenant, for authorization probes: reads ask for one
// record, the delete tasks name a lookup or a lookup type that does not exist, the configuration write
// upserts no client. The service endpoints join them where a rule covers every endpoint.

import type { CheckContext, HarmlessCall } from "../../src/check/index.ts";
import { type ApiResponse, type Auth, type InterfaceClient, pageOf } from "../../src/client/index.ts";
import { lookupTypeName } from "../../src/contract/index.ts";
import { arrayShape, scanPageShape } from "./response-judges.ts";
import { clientOf } from "./target-client.ts";

export interface DataOperation {
  name: string;
  /** True when the operation changes data if it is wrongly allowed (it still changes nothing real). */
  write: boolean;
  send(auth: Auth): Promise<ApiResponse<unknown>>;
  /** What a successful answer's body must be (undefined when it is), for checks that expect success. */
  shape(body: unknown): string | undefined;
  /** Why a correct implementation may refuse this request's body (400 or 422) though the role may send it:
   *  such a refusal is no refusal of the role, and no success either. */
  bodyMayBeRefused?: string;
}

const noBodyShape = () => undefined;

/** Why a check may call createTask beyond its safety class: its tasks name only absent lookups. */
export const absentLookupTasks: HarmlessCall = {
  operation: "createTask",
  why: "its delete tasks name only lookups or a lookup type that do not exist (or are no task at all): run anyway, they delete nothing",
};

/** Why a check may call putClients beyond its safety class: it upserts no client. */
export const noClientUpserts: HarmlessCall = {
  operation: "putClients",
  why: "it upserts an empty list of clients (putClients adds or updates the clients listed and removes none): accepted anyway, it changes nothing",
};

/** A lookup URI that names no lookup: deleting it deletes nothing. */
export function absentLookupUri(tenant: string): string {
  return `${tenant}/LckitAbsentType/lckit-absent-code`;
}

/** A lookup type URI that names no lookup type: deleting by it deletes nothing. */
export const absentLookupType = "rdm/lookupTypes/LckitAbsentType";

/** "rdm/lookupTypes/Country" and "Country" both name Country: the contract's reading, under the name
 *  the suites use. */
export const typeName = lookupTypeName;

/** Lookup type names seen on the first page of the tenant's lookups scan (read with `auth`). */
export async function discoverLookupTypes(
  client: InterfaceClient,
  auth: Auth,
  tenant: string,
): Promise<string[]> {
  const page = pageOf(await client.scanFirst(auth, { kind: "lookups", tenantId: tenant }, { limit: 100 }));
  const names = new Set<string>();
  for (const lookup of page?.values ?? [])
    if (typeof lookup.type === "string") names.add(typeName(lookup.type));
  return [...names].sort();
}

export function dataOperations(
  ctx: CheckContext,
  tenant: string,
  lookupType: string,
  options: { includeWrites?: boolean; customerId?: string; tasksAccepted?: boolean } = {},
): DataOperation[] {
  const client = clientOf(ctx);
  const operations: DataOperation[] = [
    {
      name: `POST /lookups/${tenant}/_scan`,
      write: false,
      send: (auth) => client.scanFirst(auth, { kind: "lookups", tenantId: tenant }, { limit: 1 }),
      shape: scanPageShape,
    },
    {
      name: `POST /configuration/${tenant}/autopilot/stats/_scan`,
      write: false,
      send: (auth) => client.scanFirst(auth, { kind: "autopilot", tenantId: tenant }, { limit: 1 }),
      shape: scanPageShape,
    },
    {
      name: `POST /configuration/${tenant}/autopilot/stats/${lookupType}/_scan`,
      write: false,
      send: (auth) =>
        client.scanFirst(auth, { kind: "autopilot-type", tenantId: tenant, lookupType }, { limit: 1 }),
      shape: scanPageShape,
    },
    {
      name: `GET /configuration/${tenant}/autopilot/${lookupType}/blockedValues`,
      write: false,
      send: (auth) => client.blockedValues(auth, tenant, lookupType, { limit: 1 }),
      shape: arrayShape,
    },
  ];
  if (options.includeWrites) {
    // Two forms of the task: a rule kept for one form (uris) and broken for the other (type) is a fault
    // seen in the field. The form without parameters deletes the whole tenant if wrongly allowed: never sent.
    // A check that expects its tasks to be accepted (tasksAccepted) names an absent lookup beside the
    // absent type, so that a target ignoring the type (delete-by-type-removes-other-types) still deletes
    // nothing; a refused task runs nowhere, so the refusal probes send the type alone. The document defines
    // each parameter alone, not both at once: a target that refuses the pair as invalid (400 or 422) gets
    // the type alone. Such a target reads and validates its parameters, so it is not one that ignores the
    // type, and the kit's delete-task checks prove separately that the type is honoured.
    const byTypeAlone = { type: absentLookupType };
    const sendByType = options.tasksAccepted
      ? async (auth: Auth) => {
          const paired = await client.deleteTask(auth, tenant, {
            ...byTypeAlone,
            uris: [absentLookupUri(tenant)],
          });
          return paired.status === 400 || paired.status === 422
            ? client.deleteTask(auth, tenant, byTypeAlone)
            : paired;
        }
      : (auth: Auth) => client.deleteTask(auth, tenant, byTypeAlone);
    operations.push(
      {
        name: `POST /tasks/${tenant} (uris of an absent lookup)`,
        write: true,
        send: (auth) => client.deleteTask(auth, tenant, { uris: [absentLookupUri(tenant)] }),
        // "Response body: not shown": any JSON body, or none (judgeSuccess holds it to JSON).
        shape: noBodyShape,
      },
      {
        name: `POST /tasks/${tenant} (type of an absent lookup type${options.tasksAccepted ? ", uris of an absent lookup" : ""})`,
        write: true,
        send: sendByType,
        shape: noBodyShape,
      },
    );
    const customerId = options.customerId;
    if (customerId)
      operations.push({
        name: `PUT /oauth/customers/${customerId}/clients (no clients)`,
        write: true,
        send: (auth) => client.putClients(auth, customerId, []),
        shape: noBodyShape,
        bodyMayBeRefused:
          "the document does not say whether an empty array of Client objects is accepted (the kit sends one so that a wrongly allowed update changes nothing)",
      });
  }
  return operations;
}

/** The service endpoints of the lookup-data service ("All endpoints require the Authorization header"). */
export function serviceOperations(ctx: CheckContext): DataOperation[] {
  const client = clientOf(ctx);
  return [
    { name: "GET /healthcheck", write: false, send: (auth) => client.healthcheck(auth), shape: noBodyShape },
    { name: "GET /status", write: false, send: (auth) => client.status(auth), shape: noBodyShape },
    { name: "GET /version", write: false, send: (auth) => client.version(auth), shape: noBodyShape },
  ];
}

/** Every endpoint a token-state check may call harmlessly in the target's tenant: the data operations,
 *  both delete task forms, the configuration write of no client (with a customerId) and the service
 *  endpoints. */
export function everyEndpoint(ctx: CheckContext, lookupType: string): DataOperation[] {
  return [
    ...dataOperations(ctx, ctx.target.tenant, lookupType, {
      includeWrites: true,
      ...(ctx.target.customerId === undefined ? {} : { customerId: ctx.target.customerId }),
    }),
    ...serviceOperations(ctx),
  ];
}
