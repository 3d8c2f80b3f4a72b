import type { Executor } from '../../db/database.js';
import type { WriteBatches } from '../../db/write-batches.js';
import type { Actor } from '../../http/actor.js';
import { foundOr404 } from '../../http/errors.js';
import { insertAnswer, servicesInScope } from './ai.repository.js';
import type { LiveCount } from './ai.schema.js';
import type { AiAnswersTable } from './ai.table.js';
import { answerRow, assertEmbeddingsMatch, compose, questionWords, retrieve, type Composed } from './answers.service.js';
import { getService } from './knowledge.service.js';
import {
  analyticsSentence,
  computeAnalyticsCounts,
  computeCount,
  countSentence,
  matchAnalyticsIntent,
  matchCountIntent,
  scopeLocations,
  type CountIntent,
} from './live-counts.js';
import type { LlmClient } from './llm-client.js';

export interface AskDeps {
  llm: LlmClient;
  /** The environment's group-committed writes: answers are stored after the (network) work, never inside a held transaction. */
  writes: WriteBatches;
}

const union = (a: readonly string[] | null, b: readonly string[] | null): string[] | null =>
  a === null && b === null ? null : [...new Set([...(a ?? []), ...(b ?? [])])];

/** POST /v1/ai/services/:id/query: retrieval within one service, the answer stored. */
export async function askService(
  db: Executor,
  actor: Actor,
  serviceId: string,
  input: { question: string; topK?: number | undefined },
  deps: AskDeps,
  now: number,
): Promise<{ row: AiAnswersTable; composed: Composed }> {
  const words = questionWords(input.question);
  const service = await getService(db, actor, serviceId);
  assertEmbeddingsMatch(service, deps.llm);
  const retrieved = await retrieve(db, actor, deps.llm, [service], words, input.question, input.topK ?? 5);
  const composed = await compose(deps.llm, input.question, words, retrieved.passages);
  if (retrieved.fallback && !composed.fallback) composed.fallback = retrieved.fallback;
  const serviceLocations = service.location_ids === null ? null : (JSON.parse(service.location_ids) as string[]);
  const row = answerRow(
    actor,
    {
      kind: 'knowledge',
      serviceId: service.id,
      scope: null,
      locationIds: union(actor.locationIds, serviceLocations),
      question: input.question,
      composed,
      retrieval: retrieved.retrieval,
      liveCounts: [],
    },
    now,
  );
  await deps.writes.run((trx) => insertAnswer(trx, actor, row));
  return { row, composed };
}

/**
 * POST /ai/agent/query: every service the scope covers, plus a live count when the question asks
 * for one (the number from SQL, never from a model). A location scope outside the caller's → 404.
 */
export async function askAgent(
  db: Executor,
  actor: Actor,
  input: { question: string; scope: string },
  deps: AskDeps,
  now: number,
  /** The instant counts are taken at: the business clock (the sandbox's test clock in the sandbox); `now` dates the stored answer. */
  countsAt: number = now,
): Promise<{ row: AiAnswersTable; composed: Composed; liveCounts: LiveCount[] }> {
  const words = questionWords(input.question);
  const scopeIds = input.scope === 'tenant' ? null : [input.scope];
  const locations = await scopeLocations(db, actor, scopeIds);
  if (scopeIds !== null) foundOr404(locations[0], 'location', input.scope);
  // `tenant` for a caller confined to locations means exactly its locations.
  const covered = scopeIds ?? actor.locationIds;
  const services = await servicesInScope(db, actor, covered);
  // Over many services, one whose pinned dimension the model no longer answers is searched lexically (fallback says so), not a 409 for all.
  const retrieved = await retrieve(db, actor, deps.llm, services, words, input.question, 5, 'lexical');
  // §14 metrics first (their words are specific: revenue, no-show rate…), then the point-in-time counts.
  const asked = matchAnalyticsIntent(input.question, locations, countsAt);
  // A §14 metric is what GET /v1/analytics gives: only to a caller holding analytics.read (a front
  // desk with ai.read, whose role can never hold it, must not learn revenue through the agent).
  const withheld = asked !== null && !actor.scopes.has('analytics.read');
  const analytics = withheld ? null : asked;
  const intent = asked ? null : matchCountIntent(input.question, locations);
  const liveCounts: LiveCount[] = [];
  let composed: Composed;
  if (withheld) {
    const documents = await compose(deps.llm, input.question, words, retrieved.passages);
    const sentence = `The ${asked.metric.replace(/_/g, ' ')} figure needs the analytics.read scope, which this client does not hold.`;
    composed = documents.abstained ? { ...documents, answer: sentence } : { ...documents, answer: `${sentence} ${documents.answer}` };
  } else if (analytics || intent) {
    // A money metric over locations in several currencies is one count per currency.
    const counts = analytics ? await computeAnalyticsCounts(db, actor, analytics, countsAt) : [await computeCount(db, actor, intent as CountIntent, countsAt)];
    liveCounts.push(...counts);
    const documents = await compose(deps.llm, input.question, words, retrieved.passages);
    const sentence = analytics ? analyticsSentence(counts, analytics) : countSentence(counts[0] as LiveCount, intent as CountIntent);
    composed = documents.abstained ? { ...documents, answer: sentence, abstained: false } : { ...documents, answer: `${sentence} ${documents.answer}` };
  } else {
    composed = await compose(deps.llm, input.question, words, retrieved.passages);
  }
  if (retrieved.fallback && !composed.fallback) composed.fallback = retrieved.fallback;
  // Who may read the stored answer: whoever covers the scope and every service it drew from.
  const cited = new Set(composed.citations.map((c) => c.documentId));
  const drewFrom = services.filter((s) => retrieved.passages.some((p) => p.hit.service_id === s.id && cited.has(p.hit.document_id)));
  let locationIds: string[] | null = scopeIds ?? (actor.locationIds ? [...actor.locationIds] : null);
  for (const s of drewFrom) locationIds = union(locationIds, s.location_ids === null ? null : (JSON.parse(s.location_ids) as string[]));
  for (const count of liveCounts) locationIds = union(locationIds, count.locationIds);
  const row = answerRow(
    actor,
    { kind: 'agent', serviceId: null, scope: input.scope, locationIds, question: input.question, composed, retrieval: retrieved.retrieval, liveCounts },
    now,
  );
  await deps.writes.run((trx) => insertAnswer(trx, actor, row));
  return { row, composed, liveCounts };
}
