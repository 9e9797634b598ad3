/**
 * A value or a promise of it: what a step of a request answers when it may answer at once (a
 * SQLite statement) or later (a PostgreSQL one, a hook). Answering at once spares a promise, an
 * await and a turn of the microtask queue at each level (issue 10).
 */
export type Answer<T> = T | Promise<T>;

/**
 * `work(a, b)`'s answer as it comes, the value at once or a promise of it, with whatever it throws
 * or rejects with turned into `toError(error, a, b)`, always as a rejected promise: an error thrown
 * at once and one rejected later take the same path, so they give the same answer. Pass
 * module-level functions (or ones made once, not per call): no closure is made for an answer given at once.
 */
export function answerOf<A, B, T>(
  work: (a: A, b: B) => Answer<T>,
  a: A,
  b: B,
  toError: (error: unknown, a: A, b: B) => unknown,
): Answer<T> {
  let answer: Answer<T>;
  try {
    answer = work(a, b);
  } catch (error) {
    answer = Promise.reject(error);
  }
  if (!(answer instanceof Promise)) return answer;
  return answer.then(undefined, (error: unknown) => {
    throw toError(error, a, b);
  });
}
