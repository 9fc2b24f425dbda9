// The root error and not-found handlers: every error leaves as RFC 9457 problem+json with a stable
// `code`. Unknown errors are logged and masked as 500 with the request id for correlation.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unavailableDependency } from '../adapters/unavailable.js';
import { AppError, lookupErrorCode, type ErrorCode } from './errors.js';

const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  [extension: string]: unknown;
}

function problemBody(error: AppError): ProblemBody {
  return {
    type: `urn:blume:problem:${error.code}`,
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    ...error.extensions,
  };
}

export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.status === 401 && !reply.hasHeader('www-authenticate')) reply.header('WWW-Authenticate', 'Bearer');
  return reply
    .code(error.status)
    .type(PROBLEM_TYPE)
    .send(JSON.stringify(problemBody(error)));
}

/** Fastify's own error codes mapped to ours. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_REQ_FILE_TOO_LARGE: 'payload_too_large',
  FST_FILES_LIMIT: 'payload_too_large',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'unsupported_media_type',
};

/** Seconds a client is asked to wait when a dependency is down (decision 0070). */
const OUTAGE_RETRY_AFTER_SECONDS = 5;

export function toAppError(error: FastifyError | Error): AppError | undefined {
  if (error instanceof AppError) return error;
  const dependency = unavailableDependency(error);
  if (dependency) {
    return new AppError(
      `${dependency}_unavailable`,
      `${lookupErrorCode(`${dependency}_unavailable`).title}.`,
      {},
      { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) },
    );
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const errors = fastifyError.validation.map((issue) => ({
      in: fastifyError.validationContext ?? 'body',
      path: issue.instancePath || '/',
      message:
        issue.keyword === 'additionalProperties'
          ? `unknown field "${String((issue.params as { additionalProperty?: string }).additionalProperty)}"`
          : (issue.message ?? 'is invalid'),
    }));
    const first = errors[0];
    const detail = first ? `${first.in} ${first.path}: ${first.message}` : 'the request is invalid';
    return new AppError('validation_failed', detail, { errors });
  }
  if (fastifyError.code && FASTIFY_CODES[fastifyError.code]) {
    return new AppError(FASTIFY_CODES[fastifyError.code]!, fastifyError.message);
  }
  if (fastifyError.statusCode === 429) return new AppError('rate_limited', fastifyError.message);
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    const code =
      fastifyError.statusCode === 413
        ? 'payload_too_large'
        : fastifyError.statusCode === 415
          ? 'unsupported_media_type'
          : 'bad_request';
    return new AppError(code, fastifyError.message);
  }
  return undefined;
}

export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError) {
      if (appError.status === 503) request.log.warn({ err: error }, appError.message);
      return sendProblem(reply, appError);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(
      reply,
      new AppError('internal_error', `An internal error occurred; quote request id ${request.id} when reporting it.`, {
        request_id: request.id,
      }),
    );
  });
}
