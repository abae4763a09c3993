import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyGuard } from './api-key.guard';
import { authConfig } from './auth.config';

/** API keys and roles: one global guard that reads each route's `@RequireApiKey` role. */
@Module({
  imports: [ConfigModule.forFeature(authConfig)],
  providers: [{ provide: APP_GUARD, useClass: ApiKeyGuard }],
})
export class AuthModule {}
