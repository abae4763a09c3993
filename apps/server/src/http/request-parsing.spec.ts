import { BadRequestException, ExecutionContext, UnsupportedMediaTypeException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { ApiConsumes } from '@nestjs/swagger';
import {
  MAX_BODY_DEPTH,
  nestedDeeperThan,
  parseContentType,
  parsingErrorOf,
  RequestBodyGuard,
  unsupportedBodyReason,
} from './request-parsing';

describe('parsingErrorOf', () => {
  it.each([
    ['entity.too.large', 413],
    ['entity.parse.failed', 400],
    ['charset.unsupported', 415],
    ['encoding.unsupported', 415],
    ['request.aborted', 400],
    ['request.size.invalid', 400],
  ])('maps body-parser %s to %s', (type, status) => {
    const error = Object.assign(new Error('raw parser message with "input"'), { type });
    const mapped = parsingErrorOf(error);
    expect(mapped?.getStatus()).toBe(status);
    expect(JSON.stringify(mapped?.getResponse())).not.toContain('input');
  });

  it.each([
    ['br', 'ERR__ERROR_FORMAT_PADDING_2'],
    ['deflate', 'Z_DATA_ERROR'],
    ['gzip', 'Z_BUF_ERROR'],
  ])('maps a %s body that fails to decode (%s) to 400', (_encoding, code) => {
    const error = Object.assign(new Error('Decompression failed'), { status: 400, code });
    const mapped = parsingErrorOf(error);
    expect(mapped?.getStatus()).toBe(400);
    expect(mapped?.getResponse()).toMatchObject({
      message: 'request body does not match its Content-Encoding',
    });
  });

  it.each([
    ['a server-side parser misuse', Object.assign(new Error('x'), { type: 'stream.encoding.set' })],
    ['a plain error', new Error('boom')],
    ['a non-error', 'boom'],
    ['null', null],
  ])('leaves %s alone', (_name, error) => {
    expect(parsingErrorOf(error)).toBeNull();
  });
});

describe('nestedDeeperThan', () => {
  const nest = (depth: number): unknown => (depth === 0 ? 'leaf' : { a: [nest(depth - 1)] });
  it.each([
    ['a string', 'x', false],
    ['null', null, false],
    ['a flat object', { query: 'x', session_id: 'y' }, false],
    ['exactly the limit', JSON.parse(`${'['.repeat(MAX_BODY_DEPTH)}${']'.repeat(MAX_BODY_DEPTH)}`), false],
    [
      'one past the limit',
      JSON.parse(`${'['.repeat(MAX_BODY_DEPTH + 1)}${']'.repeat(MAX_BODY_DEPTH + 1)}`),
      true,
    ],
    ['objects and arrays mixed', nest(20), true],
    [
      'very deep input, without overflowing the stack',
      JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
      true,
    ],
  ])('%s', (_name, value, expected) => {
    expect(nestedDeeperThan(value, MAX_BODY_DEPTH)).toBe(expected);
  });
});

describe('parseContentType', () => {
  it.each([
    [undefined, { mediaType: '', charset: null }],
    ['application/json', { mediaType: 'application/json', charset: null }],
    ['Application/JSON; Charset="UTF-8"', { mediaType: 'application/json', charset: 'utf-8' }],
    ['multipart/form-data; boundary=xyz', { mediaType: 'multipart/form-data', charset: null }],
  ])('%s', (header, expected) => {
    expect(parseContentType(header)).toEqual(expected);
  });
});

describe('unsupportedBodyReason', () => {
  const json = ['application/json'];
  const upload = ['multipart/form-data'];
  const wrongType = 'request body must be sent as application/json';
  const wrongCharset = 'request body charset is not supported; send UTF-8';
  it.each([
    ['JSON', 'application/json', json, null],
    ['JSON in UTF-8, any case', 'application/json; charset=UTF-8', json, null],
    ['JSON in UTF-16', 'application/json; charset=utf-16', json, wrongCharset],
    ['JSON in latin1', 'application/json;charset=iso-8859-1', json, wrongCharset],
    ['text/plain', 'text/plain', json, wrongType],
    ['text/plain in UTF-8', 'text/plain; charset=utf-8', json, wrongType],
    ['a form', 'application/x-www-form-urlencoded', json, wrongType],
    ['an upload form on a JSON endpoint', 'multipart/form-data; boundary=x', json, wrongType],
    ['no Content-Type', undefined, json, wrongType],
    ['an upload form', 'multipart/form-data; boundary=x', upload, null],
    [
      'JSON on an upload endpoint',
      'application/json',
      upload,
      'request body must be sent as multipart/form-data',
    ],
  ])('%s', (_name, header, accepted, expected) => {
    expect(unsupportedBodyReason(header, accepted)).toBe(expected);
  });
});

describe('RequestBodyGuard', () => {
  class Routes {
    json(): void {}
    @ApiConsumes('multipart/form-data')
    upload(): void {}
  }
  const guard = new RequestBodyGuard(new Reflector());
  const contextOf = (
    handler: keyof Routes,
    headers: Record<string, string>,
    body: unknown,
    type = 'http',
  ): ExecutionContext => {
    const host = new ExecutionContextHost([{ headers, body }], Routes, Routes.prototype[handler]);
    host.setType(type);
    return host;
  };
  const json = { 'content-type': 'application/json', 'content-length': '2' };

  it('lets JSON in UTF-8 through', () => {
    expect(guard.canActivate(contextOf('json', json, { query: 'x' }))).toBe(true);
  });

  it('lets a request without a body through whatever its Content-Type', () => {
    expect(guard.canActivate(contextOf('json', { 'content-type': 'text/plain' }, {}))).toBe(true);
  });

  it('refuses a body the endpoint does not consume with 415', () => {
    expect(() => guard.canActivate(contextOf('json', { ...json, 'content-type': 'text/plain' }, {}))).toThrow(
      new UnsupportedMediaTypeException('request body must be sent as application/json'),
    );
    expect(() => guard.canActivate(contextOf('upload', json, {}))).toThrow(
      new UnsupportedMediaTypeException('request body must be sent as multipart/form-data'),
    );
  });

  it('takes what an endpoint declares with @ApiConsumes', () => {
    const form = { 'content-type': 'multipart/form-data; boundary=x', 'transfer-encoding': 'chunked' };
    expect(guard.canActivate(contextOf('upload', form, {}))).toBe(true);
  });

  it('refuses a body nested deeper than MAX_BODY_DEPTH with 400', () => {
    const deep = JSON.parse(`${'['.repeat(MAX_BODY_DEPTH + 1)}${']'.repeat(MAX_BODY_DEPTH + 1)}`) as unknown;
    expect(() => guard.canActivate(contextOf('json', json, { query: deep }))).toThrow(
      new BadRequestException(`request body is nested too deeply (more than ${MAX_BODY_DEPTH} levels)`),
    );
  });

  it('leaves contexts other than HTTP alone', () => {
    expect(guard.canActivate(contextOf('json', { 'content-type': 'text/plain' }, {}, 'rpc'))).toBe(true);
  });
});
