import { AppError } from '../../http/errors.js';

/** A state machine: for each state, the states it may move to. */
export type StateMachine<S extends string> = Readonly<Record<S, readonly S[]>>;

/**
 * The one transition check of every booking kind (DESIGN §7): a forbidden move is 409
 * `invalid_state_transition` naming the current state (`currentStatus`) and the allowed moves.
 */
export function assertTransition<S extends string>(machine: StateMachine<S>, what: string, id: string, current: S, next: S, action = `become ${next}`): void {
  if (machine[current]?.includes(next)) return;
  const allowed = machine[current]?.length ? machine[current].join(', ') : 'none (final state)';
  throw new AppError('invalid_state_transition', `${what} ${id} is ${current} and cannot ${action}; allowed: ${allowed}.`, {
    extensions: { currentStatus: current },
  });
}
