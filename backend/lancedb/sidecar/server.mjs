// The lancedb backend kind's sidecar: LanceDB (@lancedb/lancedb, pinned in
// package-lock.json) behind a small HTTP/JSON protocol on loopback. The Go
// kind (backend/lancedb) starts it, reads the line
// {"listening":"127.0.0.1:PORT"} it prints on stdout, and stops it with
// SIGTERM. Endpoints (JSON in, JSON out; errors are {"error":"..."} with
// status 400 or 500):
//
//   GET  /healthz          {"ok":true,"lancedb":VERSION}
//   POST /create           {uri,table,id,text,vector,rows:[{id,text,vector}]}
//                          creates (overwrites) a table of those rows, its
//                          columns named id, text and vector name (default
//                          the same), with an FTS index on text: {"rows":N}
//   POST /open             {uri,table,id,text,vector}: checks that the
//                          table has the columns and an FTS index on text,
//                          never changing it: {"rows":N,"dim":D}
//   POST /search           {uri,table,id,text,vector,query,embedding,
//                          limit,k,distance,hybrid,legs}: the hybrid query
//                          (nearestTo + fullTextSearch, reranked by
//                          RRFReranker k, limit) as "hits" when hybrid, and
//                          each leg alone at limit as "vector" and "fts"
//                          when legs; each hit is {row,id,score}. When
//                          LanceDB fails the hybrid query because a leg is
//                          empty, "empty" names that leg ("vector" or
//                          "fts"), "hits" is absent and both legs are
//                          returned.
import http from "node:http";
import { readFileSync } from "node:fs";
import * as lancedb from "@lancedb/lancedb";
import { Field, FixedSizeList, Float32, Schema, Utf8 } from "apache-arrow";

const version = JSON.parse(
  readFileSync(new URL("./node_modules/@lancedb/lancedb/package.json", import.meta.url)),
).version;

const conns = new Map(); // uri -> Connection
const tables = new Map(); // uri + "\0" + table -> Table
const rerankers = new Map(); // k -> RRFReranker

async function connection(uri) {
  if (!conns.has(uri)) conns.set(uri, await lancedb.connect(uri));
  return conns.get(uri);
}

async function table(uri, name) {
  const key = uri + "\0" + name;
  if (!tables.has(key)) tables.set(key, await (await connection(uri)).openTable(name));
  return tables.get(key);
}

class InputError extends Error {}

function need(body, ...names) {
  for (const n of names) {
    if (body[n] === undefined || body[n] === null || body[n] === "") throw new InputError(`${n}: required`);
  }
}

async function create(body) {
  need(body, "uri", "table", "rows");
  const rows = body.rows;
  if (!Array.isArray(rows) || rows.length === 0) throw new InputError("rows: want a non-empty array");
  const dim = rows[0].vector.length;
  const [id, text, vector] = [body.id || "id", body.text || "text", body.vector || "vector"];
  const schema = new Schema([
    new Field(id, new Utf8(), false),
    new Field(text, new Utf8(), false),
    new Field(vector, new FixedSizeList(dim, new Field("item", new Float32(), true)), false),
  ]);
  const data = rows.map((r) => ({ [id]: r.id, [text]: r.text, [vector]: r.vector }));
  const db = await connection(body.uri);
  const t = await db.createTable(body.table, data, { mode: "overwrite", schema });
  await t.createIndex(text, { config: lancedb.Index.fts(), replace: true });
  tables.set(body.uri + "\0" + body.table, t);
  return { rows: await t.countRows() };
}

async function open(body) {
  need(body, "uri", "table", "id", "text", "vector");
  let t;
  try {
    t = await table(body.uri, body.table);
  } catch (e) {
    throw new InputError(`table ${JSON.stringify(body.table)} in ${JSON.stringify(body.uri)}: ${e.message}`);
  }
  const schema = await t.schema();
  const field = (n) => schema.fields.find((f) => f.name === n);
  const probs = [];
  for (const n of [body.id, body.text, body.vector]) {
    if (!field(n)) probs.push(`no column ${JSON.stringify(n)} (columns: ${schema.fields.map((f) => f.name).join(", ")})`);
  }
  const indices = await t.listIndices();
  if (field(body.text) && !indices.some((i) => i.indexType === "FTS" && i.columns.includes(body.text))) {
    probs.push(`no FTS index on ${JSON.stringify(body.text)} (create one: table.createIndex(${JSON.stringify(body.text)}, {config: Index.fts()}))`);
  }
  if (probs.length) throw new InputError(`table ${JSON.stringify(body.table)}: ${probs.join("; ")}`);
  const v = field(body.vector);
  return { rows: await t.countRows(), dim: v.type.listSize ?? 0 };
}

function hits(rows, id, scoreCol, negate) {
  return rows.map((r) => ({
    row: String(r._rowid),
    id: String(r[id]),
    score: negate ? -Number(r[scoreCol]) : Number(r[scoreCol]),
  }));
}

async function search(body) {
  need(body, "uri", "table", "id", "text", "vector", "limit");
  const t = await table(body.uri, body.table);
  const limit = body.limit;
  const distance = body.distance || "l2";
  const cols = [body.id];
  const vectorQuery = () =>
    t.query().nearestTo(Float32Array.from(body.embedding)).column(body.vector).distanceType(distance);
  const legs = async () => {
    const vrows = await vectorQuery().select(cols).withRowId().limit(limit).toArray();
    const frows = await t
      .query()
      .fullTextSearch(body.query, { columns: [body.text] })
      .select(cols)
      .withRowId()
      .limit(limit)
      .toArray();
    return {
      vector: hits(vrows, body.id, "_distance", true), // best first: the score is -distance
      fts: hits(frows, body.id, "_score", false),
    };
  };
  let out = {};
  if (body.legs) out = await legs();
  if (body.hybrid) {
    const k = body.k ?? 60;
    if (!rerankers.has(k)) rerankers.set(k, await lancedb.rerankers.RRFReranker.create(k));
    try {
      const rows = await vectorQuery()
        .fullTextSearch(body.query, { columns: [body.text] })
        .rerank(rerankers.get(k))
        .select(cols)
        .withRowId()
        .limit(limit)
        .toArray();
      out.hits = hits(rows, body.id, "_relevance_score", false);
    } catch (e) {
      // LanceDB fails a hybrid query one of whose legs finds nothing (a
      // zero query vector under cosine, no term of the query indexed):
      // say which leg is empty, and the caller fuses the other.
      const l = body.legs ? out : await legs();
      if (l.vector.length && l.fts.length) throw e;
      out.empty = l.vector.length ? "fts" : "vector";
      out.vector = l.vector;
      out.fts = l.fts;
    }
  }
  return out;
}

const routes = { "/create": create, "/open": open, "/search": search };

const server = http.createServer(async (req, res) => {
  const reply = (status, obj) => {
    const b = JSON.stringify(obj);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(b) });
    res.end(b);
  };
  try {
    if (req.method === "GET" && req.url === "/healthz") return reply(200, { ok: true, lancedb: version });
    const route = routes[req.url];
    if (req.method !== "POST" || !route) return reply(404, { error: `no route ${req.method} ${req.url}` });
    const chunks = [];
    for await (const c of req) chunks.push(c);
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch (e) {
      throw new InputError(`request body: ${e.message}`);
    }
    reply(200, await route(body));
  } catch (e) {
    reply(e instanceof InputError ? 400 : 500, { error: e.message });
  }
});

const listen = process.argv[2] || "127.0.0.1:0";
const [host, port] = [listen.slice(0, listen.lastIndexOf(":")), Number(listen.slice(listen.lastIndexOf(":") + 1))];
server.listen(port, host, () => {
  const a = server.address();
  process.stdout.write(JSON.stringify({ listening: `${a.address}:${a.port}` }) + "\n");
});
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => server.close(() => process.exit(0)));
