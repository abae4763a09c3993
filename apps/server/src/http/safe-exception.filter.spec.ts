import { ArgumentsHost, BadRequestException, Logger } from '@nestjs/common';
import { SafeExceptionFilter } from './safe-exception.filter';

function host() {
  const response = {
    headersSent: false,
    statusCode: 0,
    body: undefined as unknown,
    status(code: number) {
      this.statusCode = code;
      return this;
    },
    json(body: unknown) {
      this.body = body;
      return this;
    },
    end: jest.fn(),
  };
  const request = { method: 'GET', path: '/api/documents/x' };
  const argumentsHost = {
    switchToHttp: () => ({ getResponse: () => response, getRequest: () => request }),
  } as unknown as ArgumentsHost;
  return { response, argumentsHost };
}

describe('SafeExceptionFilter', () => {
  afterEach(() => jest.restoreAllMocks());

  it('passes our own HTTP errors through', () => {
    const { response, argumentsHost } = host();
    new SafeExceptionFilter().catch(new BadRequestException('title must not be empty'), argumentsHost);
    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject({ message: 'title must not be empty' });
  });

  it('turns anything else into a plain 500 and logs only the error class', () => {
    const { response, argumentsHost } = host();
    const logged: string[] = [];
    jest
      .spyOn(Logger.prototype, 'error')
      .mockImplementation((message: unknown) => void logged.push(String(message)));
    const failure = Object.assign(new Error("ER_PARSE: SELECT password FROM users WHERE token='secret'"), {
      name: 'QueryFailedError',
    });
    new SafeExceptionFilter().catch(failure, argumentsHost);
    expect(response.statusCode).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain('password');
    expect(logged).toEqual(['unhandled QueryFailedError on GET /api/documents/x']);
  });

  it('answers body-parser failures as the client errors they are, without an error log', () => {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    for (const [type, status] of [
      ['entity.too.large', 413],
      ['charset.unsupported', 415],
      ['request.aborted', 400],
    ] as const) {
      const { response, argumentsHost } = host();
      new SafeExceptionFilter().catch(Object.assign(new Error('raw'), { type }), argumentsHost);
      expect(response.statusCode).toBe(status);
    }
    expect(errors).not.toHaveBeenCalled();
  });
});
