/**
 * Answers a service hands out again and again unchanged (a cached availability page): marked once,
 * their JSON text is kept beside them and sent as is, instead of serialising ~200 KB per request.
 * A marked answer is frozen, so nothing can change it behind its kept text.
 */
const texts = new WeakMap<object, string | Buffer>();

/** Freezes `answer` (and the objects and arrays inside it) and marks it for reuse of its JSON text. */
export function reusableJson<T extends object>(answer: T): T {
  deepFreeze(answer);
  texts.set(answer, '');
  return answer;
}

/** The kept JSON text of a marked answer, serialising it the first time; undefined when not marked. */
export function reusedJsonText(answer: object, serialise: (answer: object) => string | Buffer): string | Buffer | undefined {
  const kept = texts.get(answer);
  if (kept === undefined) return undefined;
  if (kept !== '') return kept;
  const text = serialise(answer);
  texts.set(answer, text);
  return text;
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}
