import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Duplex } from 'node:stream';
import { ApiError, docUrl, type ErrorCode } from './errors.js';
import { newRequestId } from './ids.js';

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Dotted field name from an ajv issue: `/meta/0/name` -> `meta[0].name`; a missing property names itself. */
function fieldOf(issue: ValidationIssue): string | null {
  const parts = issue.instancePath.split('/').filter(Boolean);
  const extra = (issue.params.missingProperty ?? issue.params.additionalProperty) as string | undefined;
  if (extra) parts.push(extra);
  if (parts.length === 0) return null;
  return parts.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function fromValidation(error: FastifyError): ApiError {
  const issue = (error.validation as unknown as ValidationIssue[])[0];
  const param = fieldOf(issue);
  const where = error.validationContext === 'querystring' ? 'query parameter' : error.validationContext === 'params' ? 'path parameter' : 'parameter';
  if (error.validationContext === 'headers' && param === 'idempotency-key') return new ApiError('idempotency_key_invalid', { param: 'Idempotency-Key' });
  if (issue.keyword === 'required') {
    return new ApiError('parameter_missing', { param, message: `Missing required ${where}: ${param}.` });
  }
  if (issue.keyword === 'additionalProperties') {
    if (param === null) return new ApiError('parameter_unknown', { message: `Received a ${where} with no name.` }); // `?=1`
    return new ApiError('parameter_unknown', { param, message: `Received unknown ${where}: ${param}.` });
  }
  if (param === 'starting_after' && error.validationContext === 'querystring') {
    return new ApiError('invalid_cursor', { param });
  }
  const detail = issue.message ?? 'is invalid';
  return new ApiError('parameter_invalid', { param, message: param ? `Invalid ${where} ${param}: ${detail}.` : `Invalid request body: ${detail}.` });
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'parameter_invalid',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_STATIC_FORBIDDEN_PATH: 'route_not_found', // @fastify/static: a path it will not serve (`//etc/passwd`, too long)
};

/** Any thrown value -> the ApiError the client sees. Unknown errors become internal_error (and are logged). */
export function toApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  const fe = error as FastifyError;
  if (fe && Array.isArray(fe.validation)) return fromValidation(fe);
  if (fe?.code && FASTIFY_CODES[fe.code]) return new ApiError(FASTIFY_CODES[fe.code]);
  if (fe instanceof SyntaxError || fe?.code === 'FST_ERR_CTP_INVALID_JSON_BODY') return new ApiError('invalid_json');
  if (fe?.statusCode === 413) return new ApiError('body_too_large');
  if (fe?.statusCode === 415) return new ApiError('unsupported_media_type');
  // Any other client error a plugin raised (http-errors carry `status` too) is the request's fault, not ours.
  const status = fe?.statusCode ?? (fe as { status?: number } | undefined)?.status;
  if (status === 416) return new ApiError('range_not_satisfiable', { param: 'Range' });
  if (typeof status === 'number' && status >= 400 && status < 500) return new ApiError('malformed_request');
  return null;
}

/** The one error envelope. */
export function errorBody(error: ApiError, requestId: string, publicUrl: string) {
  return {
    error: {
      type: error.type,
      code: error.code,
      message: error.message,
      param: error.param,
      request_id: requestId,
      doc_url: docUrl(publicUrl, error.code),
    },
  };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError, publicUrl: string) {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).send(errorBody(error, request.id, publicUrl));
}

/**
 * Requests that never reach the app (the HTTP parser refused them: malformed request line or headers, headers past
 * the size limit, a request not received in time) still answer in the envelope, then the connection closes.
 */
export function clientErrorHandler(publicUrl: string) {
  return function onClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Duplex): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (!socket.writable) return void socket.destroy(err);
    const message = err.code === 'HPE_HEADER_OVERFLOW' ? 'The request headers are larger than this server accepts.'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'The request was not received in time.'
        : 'The HTTP request is malformed.';
    const requestId = newRequestId();
    const body = JSON.stringify(errorBody(new ApiError('malformed_request', { message }), requestId, publicUrl));
    socket.end(`HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n`
      + `Request-Id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
}

/** One renderer for every failure, including unknown routes and framework errors. */
export function registerErrorHandling(app: FastifyInstance, publicUrl: string): void {
  app.setErrorHandler((error, request, reply) => {
    let apiError = toApiError(error);
    if (!apiError) {
      request.log.error({ err: error }, 'unhandled error');
      apiError = new ApiError('internal_error');
    }
    return sendError(request, reply, apiError, publicUrl);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new ApiError('route_not_found', { message: `Unrecognized request URL (${request.method} ${request.url.split('?')[0]}).` }), publicUrl),
  );
}
