#!/usr/bin/env node
// Attribute store (data quality team): keeps the current attributes of every object for rule evaluation.
// Class with private fields; streams the input.
import fs from 'node:fs';
import readline from 'node:readline';

class AttributeStore {
  static REMOVALS = new Set(['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
    'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED', 'GROUP_REMOVED']);
  static UPDATES = new Set(['ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED',
    'RELATIONSHIP_MERGED', 'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED',
    'ENTITY_BUSINESS_PROCESS_CHANGED', 'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED', 'GROUP_CREATED', 'GROUP_CHANGED']);

  #items = new Map();
  #tenant;
  constructor(tenant) { this.#tenant = tenant; }

  #isNewer(cur, version, removal, full) {
    if (!cur) return true;
    if (cur.gdpr && (version === undefined || cur.version === undefined)) return false;
    if (version === undefined || cur.version === undefined) return true;
    if (version > cur.version) return true;
    if (version < cur.version) return false;
    return (removal && !cur.removed) || (cur.incomplete && full && !removal);
  }

  ingest(msg) {
    const h = msg?.headers ?? {};
    const p = msg?.payload ?? {};
    if (this.#tenant && h.tenantId && h.tenantId !== this.#tenant) return;
    const type = h.eventType ?? p.type;
    const uri = h.sourceObjectUri ?? p.uri ?? p.object?.uri;
    if (!uri || !(AttributeStore.REMOVALS.has(type) || AttributeStore.UPDATES.has(type))) return;
    const raw = h.objectVersion;
    const version = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : undefined;
    const removal = AttributeStore.REMOVALS.has(type);
    const full = p.exceededQueueSizeLimit !== true && p.object != null && typeof p.object === 'object';
    const cur = this.#items.get(uri);
    if (!this.#isNewer(cur, version, removal, full)) return;
    const item = { uri, version: version ?? cur?.version, removed: removal, gdpr: removal && type.endsWith('_GDPR'), incomplete: false };
    if (!removal) {
      if (full) item.attributes = p.object.attributes ?? {}; // the snapshot is the whole object
      else if (p.exceededQueueSizeLimit === true || p.deltas != null) item.incomplete = true;
      else item.attributes = cur?.attributes;
    }
    this.#items.set(uri, item);
  }

  *rows() {
    for (const it of this.#items.values()) {
      const row = { uri: it.uri, removed: it.removed };
      if (it.version !== undefined) row.objectVersion = it.version;
      if (!it.removed && !it.incomplete && it.attributes !== undefined) row.attributes = it.attributes;
      if (!it.removed && it.incomplete) row.incomplete = true;
      yield row;
    }
  }
}

async function main() {
  const { LCKIT_EVENTS_FILE: input, LCKIT_VIEW_FILE: output, LCKIT_TENANT: tenant } = process.env;
  if (!input || !output) throw new Error('LCKIT_EVENTS_FILE and LCKIT_VIEW_FILE are required');
  const store = new AttributeStore(tenant);
  let count = 0;
  for await (const line of readline.createInterface({ input: fs.createReadStream(input, 'utf8'), crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    count++;
    let msg;
    try { msg = JSON.parse(line); } catch { console.error(`line ${count} is not JSON`); continue; }
    store.ingest(msg);
  }
  const rows = [...store.rows()].map((r) => JSON.stringify(r));
  fs.writeFileSync(output, rows.length ? rows.join('\n') + '\n' : '');
  console.log(`messages=${count} objects=${rows.length}`);
}

main().catch((e) => { console.error(`store failed: ${e.message}`); process.exit(1); });
