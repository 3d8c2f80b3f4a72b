import type { Session } from './api.js';

/** One panel of the console: what it needs from the token, and how it draws itself into its section. */
export interface Panel {
  id: string;
  label: string;
  /** The scope the panel's reads need (`x.read` or `x`). */
  scope: string;
  /** Routes that also need the admin role (jobs, audit). */
  adminOnly?: boolean;
  /** Builds the panel's content once, into `body`; `problem` is its alert region. */
  mount(body: HTMLElement, problem: HTMLElement, session: Session): void;
}

export const allows = (panel: Panel, session: Session): boolean => session.scopes.has(panel.scope) && (!panel.adminOnly || session.role === 'admin');
