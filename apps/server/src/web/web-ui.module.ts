import { Module } from '@nestjs/common';
import { ServeStaticModule } from '@nestjs/serve-static';
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { Response } from 'express';
import { ConfigValidationError } from '@app/config';
import { appConfig, AppConfig } from '../config/app.config';

/**
 * The UI is script-only from its own origin: no inline code, no third-party hosts, no framing. Its
 * text comes from models and tools, so this limits what a rendering bug could ever do.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers for every file of the UI under `root`. */
function headersFor(root: string) {
  const assets = join(root, 'assets') + sep;
  return (res: Response, path: string): void => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    // Vite fingerprints asset names, so they never change; index.html must always be revalidated.
    res.setHeader(
      'Cache-Control',
      path.startsWith(assets) ? 'public, max-age=31536000, immutable' : 'no-cache',
    );
  };
}

/** Start-up check, before any pool or socket exists: the server without its UI is a broken deployment. */
export function assertWebUiBuilt(config: AppConfig): void {
  if (!existsSync(join(config.webUiDir, 'index.html'))) {
    throw new ConfigValidationError([
      `WEB_UI_DIR has no index.html (${config.webUiDir}); run \`npm run build\` or point it at the built UI`,
    ]);
  }
}

/**
 * Serves the built web UI (apps/web) at `/`. Pages are addressed by the URL hash, so only real files
 * are served and every other path falls through to the API routes and their JSON 404.
 */
@Module({
  imports: [
    ServeStaticModule.forRootAsync({
      inject: [appConfig.KEY],
      useFactory: (config: AppConfig) => [
        {
          rootPath: config.webUiDir,
          renderPath: '/',
          serveStaticOptions: {
            index: 'index.html',
            fallthrough: true,
            setHeaders: headersFor(config.webUiDir),
          },
        },
      ],
    }),
  ],
})
export class WebUiModule {}
