import type { Server } from 'node:http';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger, PARAMS_PROVIDER_TOKEN, Params } from 'nestjs-pino';
import { API_KEY_SCHEME, BEARER_SCHEME } from '@app/auth';
import { IngressBurst } from '@app/chat';
import { AppModule } from './app.module';
import { appConfig } from './config/app.config';
import { requestLogMiddleware } from './config/logger.options';
import { validateConfiguration } from './config/configuration';
import { ConnectionDrain } from './http/connection-drain';
import { addGlobalAnswers } from './http/openapi-global-answers';
import { assertWebUiBuilt } from './web/web-ui.module';

/** Builds the fully configured application; used by main.ts and by the e2e tests alike. */
export async function createApp(): Promise<INestApplication> {
  validateConfiguration();
  const config = appConfig();
  assertWebUiBuilt(config);
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bufferLogs: true,
    abortOnError: false,
    // JSON only (below): Nest's defaults would also parse form bodies, which every endpoint refuses (415).
    bodyParser: false,
  });
  app.set('trust proxy', config.trustProxy);
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  app.use(app.get(ConnectionDrain).middleware);
  const requestLog = requestLogMiddleware(config, app.get<Params>(PARAMS_PROVIDER_TOKEN));
  if (requestLog) app.use(requestLog);
  // Every endpoint takes JSON (uploads read multipart through their own multer); any other body is left
  // unread for RequestBodyGuard's 415 instead of being parsed first. Body-parser's default 100 KB limit.
  app.useBodyParser('json');
  // Chat runs hold their slow work while a burst of connections is still being accepted (IngressBurst).
  const ingress = app.get(IngressBurst);
  (app.getHttpServer() as Server).on('connection', () => ingress.connectionAccepted());
  const document = addGlobalAnswers(
    SwaggerModule.createDocument(
      app,
      new DocumentBuilder()
        .setTitle('SuperBiz Diagnosis Agent')
        .setDescription(
          'Traceable fault diagnosis: chat (SSE), trace and reasoning audit, knowledge documents',
        )
        .setVersion('0.1.0')
        .addApiKey(
          { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key from API_KEYS' },
          API_KEY_SCHEME,
        )
        .addBearerAuth(
          { type: 'http', scheme: 'bearer', description: 'The same API key as a bearer token' },
          BEARER_SCHEME,
        )
        .build(),
    ),
  );
  SwaggerModule.setup('api/docs', app, document);
  return app;
}
