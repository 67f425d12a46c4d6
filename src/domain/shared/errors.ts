/**
 * A broken business rule. `code` is stable and machine-readable (it becomes the API's error type);
 * the message is for people. Expected outcomes are events, not errors: these are for commands that
 * cannot be carried out as asked.
 */
export class DomainError extends Error {
  override readonly name: string = 'DomainError';
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The command names something that does not exist. */
export class NotFoundError extends DomainError {
  override readonly name = 'NotFoundError';
}

/** The caller may not do this (it may do other things): a collection it cannot write, say. */
export class ForbiddenError extends DomainError {
  override readonly name = 'ForbiddenError';
}

/** The command is valid but the aggregate is in a state where it cannot apply (e.g. cancelling a finished task). */
export class InvalidStateError extends DomainError {
  override readonly name = 'InvalidStateError';
}

/** The command's data breaks a rule no schema can express. */
export class RuleViolationError extends DomainError {
  override readonly name = 'RuleViolationError';
}
