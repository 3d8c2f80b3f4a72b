/** A backup or restore refused for a reason the operator can act on: printed as one line, exit 1. */
export class ArchiveError extends Error {}
