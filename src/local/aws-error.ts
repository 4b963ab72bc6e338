/**
 * An error the local SageMaker returns on the wire the way AWS does for the JSON protocols:
 * HTTP status + `{"__type": type, "message": message}`, which the SDK v3 clients surface as
 * `error.name === type`.
 */
export class AwsError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status: number = 400,
  ) {
    super(message);
    this.name = type;
  }
}

export const validation = (message: string): AwsError => new AwsError('ValidationException', message, 400);
