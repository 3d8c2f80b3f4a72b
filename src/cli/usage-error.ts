/** A usage mistake: printed with a pointer to `help`, exit code 2. */
export class UsageError extends Error {}
