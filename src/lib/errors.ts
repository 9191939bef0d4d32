export interface FieldError {
  field: string;
  message: string;
}

/** An error whose status and message may be shown to the client as they are (with `extra` fields beside them). */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldError[],
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(errors: FieldError[], message = 'Validation failed') {
    super(400, message, errors);
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, errors?: FieldError[]) {
    super(400, message, errors);
  }

  /** A rule of one field broken: its message is the error's message too. */
  static field(field: string, message: string): BadRequestError {
    return new BadRequestError(message, [{ field, message }]);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Invalid or expired token') {
    super(401, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Insufficient permissions') {
    super(403, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, errors?: FieldError[]) {
    super(409, message, errors);
  }
}

/** 412: an If-Match that no longer holds (someone changed the record since it was read). */
export class PreconditionFailedError extends AppError {
  constructor(message: string) {
    super(412, message);
  }
}
