import type { OpenAPIObject } from '@nestjs/swagger';

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const ERROR_BODY = { 'application/json': { schema: { $ref: '#/components/schemas/ApiErrorDto' } } };

/**
 * Answers that come from the global request pipeline rather than from one controller, so no route
 * decorator declares them: the API-key guard refuses a credential in the query string on every route
 * (400); the body parser and the content-type interceptor refuse an unreadable, oversized or foreign
 * body on every route that takes one (400, 413, 415). A status a route already documents keeps its
 * own description. Pure: returns the same document, completed in place.
 */
export function addGlobalAnswers(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      const answers: Record<string, string> = {
        '400': 'An API key in the query string (send it as a header)',
      };
      if (operation.requestBody) {
        answers['400'] = 'A body the service cannot read, or an API key in the query string';
        answers['413'] = 'Request body too large';
        answers['415'] = 'A Content-Type this endpoint does not take, or a charset other than UTF-8';
      }
      for (const [status, description] of Object.entries(answers)) {
        operation.responses[status] ??= { description, content: ERROR_BODY };
      }
    }
  }
  return document;
}
