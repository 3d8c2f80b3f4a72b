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
  /**
   * Panels with detail views: called each time the panel is shown, with what its address names
   * after the panel's id (`#pets/pet_123` → `pet_123`; undefined for the list). Returns true when it
   * moved focus itself (to a detail's heading).
   */
  show?(detail: string | undefined, focus: boolean): boolean;
}

export const allows = (panel: Panel, session: Session): boolean => session.scopes.has(panel.scope) && (!panel.adminOnly || session.role === 'admin');
