import type { OpenAPIObject } from '@nestjs/swagger';
import { addGlobalAnswers } from './openapi-global-answers';

const ERROR_BODY = { 'application/json': { schema: { $ref: '#/components/schemas/ApiErrorDto' } } };

function documentWith(operation: Record<string, unknown>): OpenAPIObject {
  return {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: { '/x': { post: { responses: { '200': { description: 'ok' } }, ...operation } } },
  } as OpenAPIObject;
}

describe('addGlobalAnswers', () => {
  it.each([
    ['an operation without a body', {}, ['200', '400']],
    ['an operation with a body', { requestBody: { content: {} } }, ['200', '400', '413', '415']],
  ])('documents the pipeline’s answers of %s', (_name, operation, statuses) => {
    const responses = addGlobalAnswers(documentWith(operation)).paths['/x'].post!.responses;
    expect(Object.keys(responses).sort()).toEqual(statuses);
    for (const status of statuses.filter((code) => code !== '200')) {
      expect(responses[status]).toMatchObject({ content: ERROR_BODY });
    }
  });

  it('keeps the description a route gave a status itself', () => {
    const own = { description: 'Invalid limit', content: ERROR_BODY };
    const document = documentWith({ responses: { '200': { description: 'ok' }, '400': own } });
    expect(addGlobalAnswers(document).paths['/x'].post!.responses['400']).toBe(own);
  });
});
